package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/gctune"
	"github.com/mailauth/mailauth/resolver"
)

// The server is httpapi.NewServer, as `mailauth serve` runs it.
const (
	// labMaxKeys is the memory limiter's key capacity in the lab
	// (MemoryLimiterOptions.MaxKeys): small, so the key flood fills it
	// quickly.
	labMaxKeys = 4096
)

// lab is the service under test: the real scanner and handler behind the
// connection-limited listener, resolving through the DNS child.
type lab struct {
	srv     *http.Server
	ln      *httpapi.Listener
	addr    string
	dnsAddr string
	stopDNS func()
	// dropsAddr serves, in -mode spoof, what the resolver client dropped
	// as forged so far, by kind (dropsServer).
	dropsAddr string
	drops     *http.Server
	// timesAddr serves the server's side of the well-behaved client's
	// requests (serverTimes).
	timesAddr string
	timesSrv  *http.Server
}

// startLab starts the DNS child over zoneFiles and serves the service on
// loopback.
func startLab(o options, zoneFiles []string) (*lab, error) {
	gctune.Apply(0) // the collector settings of `mailauth serve`, unless GOGC or GOMEMLIMIT is set
	dnsAddr, stopDNS, err := startDNS(o, zoneFiles)
	if err != nil {
		return nil, err
	}
	httpsPort, err := closedPort()
	if err != nil {
		stopDNS()
		return nil, err
	}
	client := &resolver.Client{Servers: []string{dnsAddr}}
	times := &serverTimes{runnable: startRunnableSampler(), trace: &serverTrace{prefix: o.trace}}
	cfg := mailauth.Config{
		Resolver:  timedResolver{Client: client, times: times},
		HTTPSPort: httpsPort, AllowLoopbackTargets: true,
		// as `mailauth serve` sets it: httpapi's fair queue admits, and
		// the library's bound must not queue again below it
		MaxConcurrentScans: httpapi.DefaultMaxInFlight,
	}
	if o.mode == "spoof" {
		cfg.DNSCacheBytes = spoofCacheMB << 20 // the shared cache the forged answers aim at
	}
	svc := mailauth.New(cfg)
	raw, err := httpapi.Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		stopDNS()
		return nil, err
	}
	proxy := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	mem := &httpapi.MemoryReturner{} // shared as `mailauth serve` shares it
	ln := httpapi.LimitListener(raw, httpapi.ListenerOptions{TrustedProxies: proxy, MemoryReturner: mem})
	maxKeys := labMaxKeys
	if o.mode == "spray" {
		maxKeys = 0 // the default capacity: the spray measures memory at full size
	}
	h := httpapi.New(timedService{svc: svc, times: times}, httpapi.Options{
		Limiter:        httpapi.NewMemoryLimiter(httpapi.MemoryLimiterOptions{MaxKeys: maxKeys, MemoryReturner: mem}),
		TrustedProxies: proxy,
		MemoryReturner: mem,
		Logger:         slog.New(slog.NewJSONHandler(io.Discard, nil)),
	})
	srv := httpapi.NewServer(times.wrap(h), ln, log.New(io.Discard, "", 0))
	go func() { _ = srv.Serve(ln) }()
	l := &lab{srv: srv, ln: ln, addr: raw.Addr().String(), dnsAddr: dnsAddr, stopDNS: stopDNS}
	if l.timesSrv, l.timesAddr, err = timesServer(times); err != nil {
		l.close()
		return nil, err
	}
	if o.mode == "spoof" {
		if l.drops, l.dropsAddr, err = dropsServer(client); err != nil {
			l.close()
			return nil, err
		}
	}
	return l, nil
}

// dropper is a resolver client that counts what it dropped as forged
// (resolver.Client.SpoofDrops).
type dropper interface{ SpoofDrops() map[string]uint64 }

// dropsServer serves GET / on a loopback port of its own: the JSON of
// client's SpoofDrops (null when it counts none), for the spoof mode's
// load process.
func dropsServer(client any) (*http.Server, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("drops listener: %w", err)
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		var drops map[string]uint64
		if d, ok := client.(dropper); ok {
			drops = d.SpoofDrops()
		}
		_ = json.NewEncoder(w).Encode(drops)
	})}
	go func() { _ = srv.Serve(ln) }()
	return srv, ln.Addr().String(), nil
}

func (l *lab) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = l.srv.Shutdown(ctx)
	if l.drops != nil {
		_ = l.drops.Shutdown(ctx)
	}
	if l.timesSrv != nil {
		_ = l.timesSrv.Shutdown(ctx)
	}
	l.stopDNS()
}

// closedPort returns a loopback port nothing listens on.
func closedPort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	p := ln.Addr().(*net.TCPAddr).Port
	return p, ln.Close()
}

// sample is one reading of the process's resources.
type sample struct {
	At         time.Duration `json:"at"`
	RSSKB      int           `json:"rssKB"`
	Goroutines int           `json:"goroutines"`
	FDs        int           `json:"fds"`
	Conns      int           `json:"conns"`
	HeapKB     uint64        `json:"heapKB"`
	LiveKB     uint64        `json:"liveKB"`  // heap marked live by the last GC
	StackKB    uint64        `json:"stackKB"` // goroutine stacks in use
	// What -samples prints besides: heap memory in spans in use but
	// holding no object (a span is in use while one object in it is);
	// heap memory free and not yet returned to the system; the runtime's
	// metadata; the RSS that maps files (the binary's pages).
	UnusedKB  uint64 `json:"unusedKB"`
	FreeKB    uint64 `json:"freeKB"`
	MetaKB    uint64 `json:"metaKB"`
	RSSFileKB int    `json:"rssFileKB"`
}

// readSample reads RSS, the runtime's memory figures, goroutines,
// descriptors and open connections.
func (l *lab) readSample(start time.Time) sample {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	mem := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"}, {Name: "/memory/classes/metadata/other:bytes"},
		{Name: "/memory/classes/metadata/mcache/inuse:bytes"}, {Name: "/memory/classes/metadata/mspan/inuse:bytes"}}
	metrics.Read(mem)
	kb := func(i int) uint64 { return mem[i].Value.Uint64() >> 10 }
	s := sample{At: time.Since(start).Round(time.Second), Goroutines: runtime.NumGoroutine(),
		Conns: l.ln.Stats().Open, HeapKB: ms.HeapInuse >> 10, LiveKB: kb(0), StackKB: ms.StackInuse >> 10,
		UnusedKB: kb(1), FreeKB: kb(2), MetaKB: kb(3) + kb(4) + kb(5)}
	if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
		s.FDs = len(ents)
	}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
				s.RSSKB, _ = strconv.Atoi(f[1])
			} else if len(f) >= 2 && f[0] == "RssFile:" {
				s.RSSFileKB, _ = strconv.Atoi(f[1])
			}
		}
	}
	return s
}

// tcpCounters reads the network namespace's TCP ActiveOpens and
// AttemptFails (/proc/net/snmp): connection attempts made, and attempts
// that failed (to a closed port, here).
func tcpCounters() (opens, fails int) {
	b, err := os.ReadFile("/proc/net/snmp")
	if err != nil {
		return -1, -1
	}
	var names, values []string
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "Tcp:") {
			continue
		}
		if names == nil {
			names = strings.Fields(line)
		} else {
			values = strings.Fields(line)
		}
	}
	for i := range names {
		if i >= len(values) {
			break
		}
		switch names[i] {
		case "ActiveOpens":
			opens, _ = strconv.Atoi(values[i])
		case "AttemptFails":
			fails, _ = strconv.Atoi(values[i])
		}
	}
	return opens, fails
}
