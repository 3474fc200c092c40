package mailauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver"
)

// inFlightScans is how many scans BenchmarkScansInFlight keeps in flight
// (the service's memory phase: 500 clients).
const inFlightScans = 500

// inFlightDelay holds every DNS answer of BenchmarkScansInFlight back,
// as the service's memory phase does.
const inFlightDelay = 100 * time.Millisecond

// socketsLinger is how long BenchmarkScansInFlight waits, once every scan
// has ended, before it takes the idle figures: the resolver's tombstones
// (2 s) and its sockets' idle close (1 s), and a margin.
const socketsLinger = 3500 * time.Millisecond

// inFlightDomains is how many distinct domains the benchmark's lab
// serves: enough that the shared cache answers none of a scan's own
// questions (each worker scans its own domains in turn).
const inFlightDomains = 20 * inFlightScans

// BenchmarkScansInFlight measures what a scan in flight costs in memory:
// inFlightScans workers scan distinct domains in a closed loop, with
// every DNS answer held back inFlightDelay by a relay that parks no
// goroutine per question (so the lab's own stacks do not count), over
// the real UDP client, a shared DNS cache of the service's default size
// and a loopback HTTPS policy fetch. Four times during the loop it
// collects the garbage twice and reads the live heap and the goroutine
// stacks; it reports, averaged over the samples, what they hold above
// the same figures taken once every scan has ended and its sockets have
// closed (the lab, the scanner and the shared cache, which is not the
// scans'), divided by
// the scans in flight: B/scan (live heap and stacks), heap-B/scan,
// stack-B/scan and goroutines/scan; and stack-moves/scan, how often a
// check's goroutine outgrew the 8 KiB it reserves at its start (each
// check's share in the log, -test.v). With MAILAUTH_INFLIGHT_GOROUTINES=F
// in the environment it writes the goroutines at the second sample to F,
// the heap profile then to F.heap (the profile is a collection late:
// takeMemSnap has just run two), the heap profile just after the scans
// ended (their tombstones and sockets still there) to F.ended.heap, and
// the idle heap profile, without the shared cache, to F.idle.heap,
// sampling one allocation in every 4 KiB instead of 512 KiB; compare them
// with go tool pprof -base F.idle.heap F.heap (-base F.ended.heap: what
// the scans in flight hold but their tombstones).
//
//	go test -run XXX -bench BenchmarkScansInFlight -benchtime 1x .
func BenchmarkScansInFlight(b *testing.B) {
	dump := os.Getenv("MAILAUTH_INFLIGHT_GOROUTINES")
	if dump != "" {
		defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
		runtime.MemProfileRate = 4 << 10
	}
	domains, zone := inFlightWorld(inFlightDomains)
	path := filepath.Join(b.TempDir(), "inflight.zone")
	require.NoError(b, os.WriteFile(path, []byte(zone), 0o600))
	lab := testlab.Start(b, []string{path}, nil)
	relay := startDelayRelay(b, lab.DNS.Addr(), inFlightDelay)
	httpsPort, roots := startPolicyServer(b)
	var movesMu sync.Mutex
	moves := map[CheckID]int{}
	s := New(Config{
		Resolver: &resolver.Client{Servers: []string{relay}}, HTTPSPort: httpsPort, RootCAs: roots,
		AllowLoopbackTargets: true, DNSCacheBytes: 32 << 20, MaxConcurrentScans: 2 * inFlightScans,
		stackMoved: func(id CheckID) {
			movesMu.Lock()
			moves[id]++
			movesMu.Unlock()
		},
	})
	var heap, stack, gor, samples float64
	var scans atomic.Int64
	for b.Loop() {
		var inFlight, next atomic.Int64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for range inFlightScans {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					d := domains[int(next.Add(1))%len(domains)]
					inFlight.Add(1)
					_, err := s.Scan(context.Background(), ScanRequest{Domain: d, DKIMSelector: "s1", SendingIP: "8.8.8.8"})
					inFlight.Add(-1)
					scans.Add(1)
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		var snaps []memSnap
		for range 4 {
			time.Sleep(time.Second) // a benchmark's sampling interval, never a test's verdict
			snap := takeMemSnap()
			snap.inFlight = inFlight.Load()
			snap.cached = s.DNSCacheStats().Entries
			snaps = append(snaps, snap)
			if len(snaps) == 2 {
				writeGoroutines(b, dump)
			}
		}
		close(stop)
		wg.Wait()
		ended := takeMemSnap() // the scans over, their tombstones and sockets not yet
		writeHeap(b, dump, ".ended.heap")
		// The scans' sockets outlive them: a query stays registered for
		// its tombstone (2 s) after its lookup took a UDP answer, and a
		// socket closes a second after its last query. Those are the
		// scans' cost, not the idle process's.
		time.Sleep(socketsLinger)
		idle := takeMemSnap()
		b.Logf("just after the scans ended, above the idle process: heap %.1f KB a scan that was in flight (the last 2 s's tombstones and the sockets that carry them)",
			(float64(ended.heap)-float64(idle.heap))/float64(inFlightScans)/1000)
		// The shared cache keeps growing while the scans run: the idle
		// figures hold more answers than any sample did. Its answers
		// are not the scans' cost; what an entry costs on the heap is
		// measured by dropping the cache, and each sample's entries
		// are taken off with that.
		entries := s.DNSCacheStats().Entries
		s.cache = resolver.NewCache(s.cfg.Resolver, s.cfg.DNSCacheBytes)
		bare := takeMemSnap()
		writeHeap(b, dump, ".idle.heap")
		perEntry := (float64(idle.heap) - float64(bare.heap)) / float64(max(entries, 1))
		b.Logf("the shared cache: %d answers, %.0f B each on the heap", entries, perEntry)
		for _, sn := range snaps {
			n := float64(max(sn.inFlight, 1))
			heap += (float64(sn.heap) - float64(bare.heap) - float64(sn.cached)*perEntry) / n
			stack += (float64(sn.stack) - float64(idle.stack)) / n
			gor += float64(sn.goroutines-idle.goroutines) / n
			samples++
		}
	}
	movesMu.Lock()
	var moved int
	for _, id := range CheckOrder() {
		moved += moves[id]
		b.Logf("%s: stack moved in %.1f %% of %d scans", id, 100*float64(moves[id])/float64(scans.Load()), scans.Load())
	}
	movesMu.Unlock()
	b.ReportMetric(float64(moved)/float64(scans.Load()), "stack-moves/scan")
	b.ReportMetric((heap+stack)/samples, "B/scan")
	b.ReportMetric(heap/samples, "heap-B/scan")
	b.ReportMetric(stack/samples, "stack-B/scan")
	b.ReportMetric(gor/samples, "goroutines/scan")
}

// writeGoroutines writes the goroutines, grouped by stack, to the file
// path (none when path is empty): where the stacks of the scans in
// flight wait; and the heap profile to path.heap.
func writeGoroutines(tb testing.TB, path string) {
	if path == "" {
		return
	}
	f, err := os.Create(path)
	require.NoError(tb, err)
	defer f.Close()
	require.NoError(tb, pprof.Lookup("goroutine").WriteTo(f, 1))
	writeHeap(tb, path, ".heap")
}

// writeHeap writes the heap profile to path+suffix (nothing when path is
// empty).
func writeHeap(tb testing.TB, path, suffix string) {
	if path == "" {
		return
	}
	h, err := os.Create(path + suffix)
	require.NoError(tb, err)
	defer h.Close()
	require.NoError(tb, pprof.Lookup("heap").WriteTo(h, 0))
}

// memSnap is the process's memory after two collections.
type memSnap struct {
	heap, stack uint64
	goroutines  int
	inFlight    int64
	cached      int // answers in the shared cache
}

func takeMemSnap() memSnap {
	runtime.GC()
	runtime.GC()
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(live)
	return memSnap{heap: live[0].Value.Uint64(), stack: live[1].Value.Uint64(), goroutines: runtime.NumGoroutine()}
}

// inFlightWorld returns n domains set up like good.example.com in
// testdata/zones/scan.zone (MX, SPF, DMARC, DKIM, MTA-STS, TLS-RPT, CAA)
// and their zone; startPolicyServer serves their MTA-STS policies.
func inFlightWorld(n int) (domains []string, zone string) {
	var z strings.Builder
	z.WriteString("$ORIGIN example.com.\n@ SOA ns.example.com. hostmaster.example.com. 1 3600 600 86400 300\n")
	dkim := `"v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA4SJ0VpWbf9nn4fh+69yBjqcfyxve8ArB7CxPi4QqKyYTlK23yglZLyK0OztXBGJQecWvQ8p2ipMonO0Bvjh0tx0VODTsNl3oskM6FreExzONJvQfB/C28dQBxLHnGzZyZlfPuRaHYcQkuFvJmRMJYJd1k03u" "B/5OoivJ4kvZ6s7Uv6NDj2SluDSNRA0zXu6eYjNsdfC8AZx+BwvQOXAxhqBd9EzBVGzSGwuAefPIumMRNzB0TurPLBdJiCaSzAxRx2Fvcpr19mUgUGv0ertTsX4yr95Dq+YJPe2Mfm0RjPSzqbnqTJDwvirulowDn33kF0zLIWqeJJ8fo1oHJ9ZJSwIDAQAB"`
	for i := range n {
		d := fmt.Sprintf("d%d", i)
		fqdn := d + ".example.com"
		domains = append(domains, fqdn)
		fmt.Fprintf(&z, "%s MX 10 mx1.%s\nmx1.%s A 8.8.8.8\n%s TXT \"v=spf1 mx -all\"\n", d, d, d, d)
		fmt.Fprintf(&z, "_dmarc.%s TXT \"v=DMARC1; p=reject; rua=mailto:dmarc-reports@%s\"\n", d, fqdn)
		fmt.Fprintf(&z, "s1._domainkey.%s TXT %s\n", d, dkim)
		fmt.Fprintf(&z, "_mta-sts.%s TXT \"v=STSv1; id=20261121T000000\"\nmta-sts.%s A 127.0.0.1\n", d, d)
		fmt.Fprintf(&z, "_smtp._tls.%s TXT \"v=TLSRPTv1; rua=mailto:tls-reports@%s\"\n%s CAA 0 issue \"letsencrypt.org\"\n", d, fqdn, d)
	}
	z.WriteString("$ORIGIN 8.8.8.in-addr.arpa.\n8 PTR mx1.d0.example.com.\n")
	return domains, z.String()
}

// startPolicyServer serves, for every host mta-sts.D, the MTA-STS policy
// of inFlightWorld's domain D over HTTPS on 127.0.0.1, with a
// certificate for the host made when it is first asked for (one
// certificate for thousands of names would make every handshake carry
// them all). It returns the port and a pool that trusts the
// certificates.
func startPolicyServer(tb testing.TB) (int, *x509.CertPool) {
	tb.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(tb, err)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "in-flight bench CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(tb, err)
	ca, err := x509.ParseCertificate(caDER)
	require.NoError(tb, err)
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	var certs sync.Map // host -> *tls.Certificate
	var serial atomic.Int64
	serial.Store(1)
	getCert := func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		if c, ok := certs.Load(hello.ServerName); ok {
			return c.(*tls.Certificate), nil
		}
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("bench: leaf key: %w", err)
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial.Add(1)), DNSNames: []string{hello.ServerName},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return nil, fmt.Errorf("bench: leaf: %w", err)
		}
		c, _ := certs.LoadOrStore(hello.ServerName, &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key})
		return c.(*tls.Certificate), nil
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		domain, ok := strings.CutPrefix(strings.ToLower(host), "mta-sts.")
		if !ok || r.URL.Path != "/.well-known/mta-sts.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "version: STSv1\nmode: enforce\nmx: mx1.%s\nmax_age: 604800\n", domain)
	}))
	srv.TLS = &tls.Config{GetCertificate: getCert, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	tb.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	p, err := strconv.Atoi(port)
	require.NoError(tb, err)
	return p, roots
}

// startDelayRelay relays UDP DNS queries to upstream and holds each
// reply back by delay before it goes back, with two reader goroutines
// and one sender, which sends the replies in the order they came, each
// when its delay is up: no goroutine per question or per reply (a
// timer's function runs on a goroutine of its own, and on a busy machine
// hundreds of those wait to run at once, counted as the scans'). It
// returns the relay's address; it stops when tb ends.
func startDelayRelay(tb testing.TB, upstream string, delay time.Duration) string {
	tb.Helper()
	front, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	require.NoError(tb, err)
	up, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	require.NoError(tb, err)
	upAddr, err := netip.ParseAddrPort(upstream)
	require.NoError(tb, err)
	tb.Cleanup(func() { front.Close(); up.Close() })
	type origin struct {
		from netip.AddrPort
		id   uint16
	}
	var mu sync.Mutex
	var ids [1 << 16]origin
	var nextID uint16
	type held struct {
		due time.Time
		msg []byte
		to  netip.AddrPort
	}
	// held replies: the delay is the same for each, so they fall due in
	// the order they came.
	queue := make(chan held, 1<<16) // closed by its one sender, below, when the relay stops
	go func() {
		for h := range queue {
			time.Sleep(time.Until(h.due))
			_, _ = front.WriteToUDPAddrPort(h.msg, h.to)
		}
	}()
	go func() {
		buf := make([]byte, 65535)
		for {
			n, from, err := front.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			if n < 12 {
				continue
			}
			mu.Lock()
			nextID++
			id := nextID
			ids[id] = origin{from: from, id: binary.BigEndian.Uint16(buf)}
			mu.Unlock()
			binary.BigEndian.PutUint16(buf, id)
			_, _ = up.WriteToUDPAddrPort(buf[:n], upAddr)
		}
	}()
	go func() {
		defer close(queue)
		buf := make([]byte, 65535)
		for {
			n, _, err := up.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			if n < 12 {
				continue
			}
			mu.Lock()
			o := ids[binary.BigEndian.Uint16(buf)]
			mu.Unlock()
			msg := append([]byte(nil), buf[:n]...)
			binary.BigEndian.PutUint16(msg, o.id)
			queue <- held{due: time.Now().Add(delay), msg: msg, to: o.from}
		}
	}()
	return front.LocalAddr().String()
}
