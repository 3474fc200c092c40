package main

import (
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/pgtest"
	"github.com/mailauth/mailauth/internal/redistest"
	"github.com/mailauth/mailauth/internal/testlab"
)

// privacyRequests is the number of scans, and of ptr-checks, per store.
const privacyRequests = 200

// canary is one request's distinct values, none of which may be stored
// or logged.
type canary struct {
	label, domain, selector, sendingIP, client, utm string
}

// newCanaries makes n canaries of random, unmistakable values: public
// sending IPs (IPv4 and IPv6), and clients (as the trusted proxy's
// X-Forwarded-For) of both families. No two clients share a rate-limit
// source (an IPv4 address or an IPv6 /64), so each has its own counter.
func newCanaries(n int) []canary {
	out := make([]canary, n)
	sources := map[string]bool{}
	for i := 0; i < n; {
		r := randHex(6)
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		c := canary{label: "cnry" + r, selector: "sel" + randHex(5), utm: "utm" + randHex(5)}
		c.domain = c.label + ".example.com"
		if i%2 == 0 {
			c.sendingIP = fmt.Sprintf("45.%d.%d.%d", 100+b[0]%100, 100+b[1]%100, 100+b[2]%100)
			c.client = fmt.Sprintf("2001:db8:%x:%x::%x", 0x1000+int(b[3])<<4, 0x1000+int(b[4])<<4, 0x1000+int(b[5]))
		} else {
			c.sendingIP = fmt.Sprintf("2a00:1450:%x:%x::%x", 0x1000+int(b[0])<<4, 0x1000+int(b[1])<<4, 0x1000+int(b[2]))
			c.client = fmt.Sprintf("198.%d.%d.%d", 100+b[3]%100, 100+b[4]%100, 100+b[5]%100)
		}
		if src := clientSource(c.client); !sources[src] {
			sources[src] = true
			out[i] = c
			i++
		}
	}
	return out
}

// clientSource is the rate-limit source of a client address: the address
// itself for IPv4, its /64 for IPv6.
func clientSource(client string) string {
	a := netip.MustParseAddr(client)
	if a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a, 64).Masked().String()
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// forms are the strings that would betray c: each raw value, the /64 of
// an IPv6 client, and the plain (unkeyed) SHA-256 of each value.
func (c canary) forms() []string {
	raw := []string{c.label, c.domain, c.selector, c.sendingIP, c.client, c.utm}
	if a := netip.MustParseAddr(c.client); a.Is6() {
		raw = append(raw, netip.PrefixFrom(a, 64).Masked().String())
	}
	out := raw
	for _, v := range raw {
		sum := sha256.Sum256([]byte(v))
		out = append(out, hex.EncodeToString(sum[:]), hex.EncodeToString(sum[:16]))
	}
	return out
}

// TestPrivacyCanaries runs 200 scans and 200 ptr-checks of distinct
// canary domains, selectors, sending IPs, clients and utm_source values
// through `mailauth serve` and the real scanner (loopback lab DNS), with
// each store and the Redis limiter; then dumps every table (and the SQLite
// files byte for byte), every Redis key and the whole log, and finds no
// canary in any form.
func TestPrivacyCanaries(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{"../../testdata/zones/scan.zone"}, nil)
	dir := t.TempDir()
	stores := map[string]string{
		"sqlite":   "sqlite:" + filepath.Join(dir, "analytics.db"),
		"postgres": pgtest.Start(t).NewDatabase(t, "privacy"),
	}
	for name, storage := range stores {
		t.Run(name, func(t *testing.T) {
			canaries := newCanaries(privacyRequests)
			rd := redistest.Start(t)
			admin := make(chan string, 1)
			base, log, stop := startServe(t, []string{"-listen", "127.0.0.1:0", "-storage", storage, "-dns", lab.DNS.Addr(),
				"-trusted-proxies", "127.0.0.1", "-source-labels", "web", "-ratelimit", rd, "-admin-listen", "127.0.0.1:0"},
				nil, serveHooks{admin: func(a string) { admin <- a }})
			sent := sendCanaries(t, base, canaries)
			metrics := scrape(t, "http://"+<-admin+"/metrics")
			require.True(t, strings.Contains(metrics, `mailauth_checks_total{check="spf"`), "the metrics lack the checks:\n%.2000s", metrics)
			code := stop()
			require.Equal(t, exitOK, code, "exit:\n%s", log.String())
			dump, events := dumpStore(t, storage)
			keys := redisKeys(t, rd)
			// A client's counter lives one window from its first request
			// (the scan): on a loaded machine the first ones may have
			// expired before this dump. Those sent within the window
			// before it are there.
			live := 0
			for _, at := range sent {
				if time.Since(at) < httpapi.DefaultRateWindow {
					live++
				}
			}
			// One counter per client, in Redis; except that a decision the
			// instance made in memory, while a Redis call had timed out on a
			// loaded machine (the limiter's fallback), leaves none.
			inMemory := fallbackDecisions(t, metrics)
			if inMemory > 0 {
				t.Logf("%d rate-limit decisions made in memory (a Redis call timed out)", inMemory)
			}
			assert.LessOrEqual(t, perSourceKeys(keys), privacyRequests, "per-source Redis keys")
			assert.GreaterOrEqual(t, perSourceKeys(keys), live-inMemory, "per-source Redis keys: %d of the clients sent within the window, %d decisions in memory", live, inMemory)
			dump += strings.Join(keys, "\n") + metrics // the metrics are held to the same rule
			assert.Equal(t, 2*privacyRequests, events, "rows stored")
			require.True(t, strings.Contains(dump, "other"), "the dump is not what was written:\n%.2000s", dump)
			require.True(t, strings.Contains(log.String(), `"path":"/api/scan"`), "the log is not what was written:\n%.2000s", dump)
			for _, c := range canaries {
				for _, f := range c.forms() {
					require.False(t, strings.Contains(dump, f), "store %s, Redis or the metrics hold canary %q", name, f)
					require.False(t, strings.Contains(log.String(), f), "log holds canary %q", f)
				}
			}
		})
	}
}

// redisKeys lists every key of the Redis server at url.
func redisKeys(t *testing.T, url string) []string {
	t.Helper()
	opt, err := redis.ParseURL(url)
	require.NoError(t, err)
	c := redis.NewClient(opt)
	defer c.Close()
	keys, err := c.Keys(t.Context(), "*").Result()
	require.NoError(t, err)
	return keys
}

// sendCanaries posts one scan and one ptr-check per canary, 8 at a time;
// every one must be answered 200. It returns when each canary's scan was
// sent, in no order.
func sendCanaries(t *testing.T, base string, canaries []canary) []time.Time {
	t.Helper()
	var wg sync.WaitGroup
	work := make(chan canary)
	var mu sync.Mutex
	var sent []time.Time
	for range 8 {
		wg.Go(func() {
			for c := range work {
				mu.Lock()
				sent = append(sent, time.Now())
				mu.Unlock()
				h := map[string]string{"X-Forwarded-For": c.client}
				scan := fmt.Sprintf(`{"domain":%q,"dkimSelector":%q,"sendingIp":%q}`, c.domain, c.selector, c.sendingIP)
				assert.Equal(t, 200, postJSON(t, base, "/api/scan?utm_source="+c.utm, scan, h), "scan")
				assert.Equal(t, 200, postJSON(t, base, "/api/ptr-check?utm_source="+c.utm, fmt.Sprintf(`{"sendingIp":%q}`, c.sendingIP), h), "ptr-check")
			}
		})
	}
	for _, c := range canaries {
		work <- c
	}
	close(work)
	wg.Wait()
	return sent
}

// dumpStore returns every value of every table of the store as text (for
// SQLite also the database files' bytes) and the number of raw rows.
func dumpStore(t *testing.T, storage string) (string, int) {
	t.Helper()
	driver, dsn, tables := "pgx", storage, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
	var b strings.Builder
	if path, ok := strings.CutPrefix(storage, "sqlite:"); ok {
		driver, dsn, tables = "sqlite", path, "SELECT name FROM sqlite_master WHERE type = 'table'"
		for _, suffix := range []string{"", "-wal", "-shm"} {
			raw, _ := os.ReadFile(path + suffix)
			b.Write(raw)
		}
	}
	db, err := sql.Open(driver, dsn)
	require.NoError(t, err)
	defer db.Close()
	names := queryStrings(t, db, tables)
	require.GreaterOrEqual(t, len(names), 6, "only tables %q", names)
	events := 0
	for _, n := range names {
		rows := queryStrings(t, db, "SELECT * FROM "+n)
		if n == "events" {
			events = len(rows)
		}
		b.WriteString(strings.Join(rows, "\n"))
	}
	return b.String(), events
}

// queryStrings returns each row of query as its values joined by |.
func queryStrings(t *testing.T, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.Query(query)
	require.NoError(t, err)
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		parts := make([]string, len(vals))
		for i, v := range vals {
			if bs, ok := v.([]byte); ok {
				v = string(bs)
			}
			parts[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	require.NoError(t, rows.Err())
	return out
}

// perSourceKeys counts the per-source rate-limit keys, leaving out the
// aggregate IPv6 /56 and /48 counters (httpapi.NetworkLimit), whose keys
// carry "net56:" or "net48:" after the prefix (hashed like the others).
// fallbackDecisions reads from a metrics scrape the rate-limit decisions
// the instance made in its memory because Redis did not answer.
func fallbackDecisions(t *testing.T, metrics string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^mailauth_ratelimit_fallback_decisions_total (\d+)$`).FindStringSubmatch(metrics)
	require.NotNil(t, m, "the metrics lack the fallback decisions")
	n, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	return n
}

func perSourceKeys(keys []string) int {
	n := 0
	for _, k := range keys {
		if !strings.Contains(k, ":net56:") && !strings.Contains(k, ":net48:") {
			n++
		}
	}
	return n
}
