package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// loadPhase is `mailauth serve`'s handler, in a service process of its
// own, under a closed-loop load generator: clients concurrent clients,
// each sending its next scan as soon as the last one answered, for dur.
type loadPhase struct {
	delay       time.Duration
	clients     int
	dur         time.Duration
	maxInFlight int
	cpuProfile  string // the service process's CPU profile; "" = none
	heapProfile string // the service process's heap profile, taken mid-phase; "" = none
	analytics   bool   // the service records analytics in SQLite, as mailauth serve does by default
}

// loadResult is what one load phase measured.
type loadResult struct {
	ok, failed    int
	scansPerSec   float64
	p50, p99      float64 // ms, of the successful requests
	serviceCPU    float64 // ms of the service process's CPU per successful scan
	labCPU        float64 // ms of this process's CPU (DNS and HTTPS servers, load generator) per successful scan
	startRSS      int64   // bytes resident in the service process when the load started; 0 when unknown
	peakRSS       int64   // the service process's peak resident set (VmHWM), bytes; 0 when unknown
	service       serviceFigures
	heap          *heapSnapshot // the service's memory when its heap profile was taken; nil = none
	idle          *heapSnapshot // the service's memory serviceLinger after the phase's load ended; nil = none
	bare          *heapSnapshot // the idle service's memory once its shared DNS cache was purged; nil = none
	inFlight      int64         // requests in flight then
	distinctShare float64       // share of requests whose domain was not scanned before in the phase
}

// rateLimitForBench is the per-source limit of the bench's service: high
// enough that the limiter never answers 429 (the product default is
// httpapi.DefaultRateLimit per minute).
const rateLimitForBench = 1 << 30

// serviceLinger is how long the memory phase waits, once its load has
// ended (the clients have closed their connections), before it reads the
// service's idle memory: the resolver's tombstones (2 s) and its sockets'
// idle close (1 s), and a margin, as BenchmarkScansInFlight waits.
const serviceLinger = 3500 * time.Millisecond

// serviceCacheBytes is the service's DNS cache shared across scans:
// `mailauth serve`'s default (-dns-cache-mb 32).
const serviceCacheBytes = 32 << 20

// serviceConfig is the configuration of the service process of phase p.
func (l *lab) serviceConfig(p loadPhase) serviceConfig {
	cfg := serviceConfig{DNS: l.dns.Addr(), HTTPSPort: l.port, CAPEM: string(l.caPEM), CacheBytes: serviceCacheBytes,
		MaxInFlight: p.maxInFlight, RateLimit: rateLimitForBench, CPUProfile: p.cpuProfile}
	if p.heapProfile != "" {
		cfg.MemProfileRate = heapProfileRate
	}
	return cfg
}

// heapProfileRate is the service's runtime.MemProfileRate in a phase
// that writes a heap profile: one sample in 4 KiB, as
// BenchmarkScansInFlight's profiles, so that the profile resolves what a
// request holds (a few KiB in dozens of small objects). Only that phase
// pays for it; its CPU figures are not the ones compared with the floor.
const heapProfileRate = 4 << 10

// analyticsDir makes a fresh directory for a phase's SQLite analytics
// store (the service's default, on the same disk as mailauth serve's
// state directory would be) and returns the store setting and the
// cleanup; with on false, none.
func analyticsDir(on bool) (setting string, cleanup func(), err error) {
	if !on {
		return "", func() {}, nil
	}
	dir, err := os.MkdirTemp("", "mailauth-bench-analytics-")
	if err != nil {
		return "", nil, fmt.Errorf("analytics directory: %w", err)
	}
	return "sqlite:" + filepath.Join(dir, "analytics.db"), func() { _ = os.RemoveAll(dir) }, nil
}

// runLoad starts a service process on the lab and loads it over loopback
// TCP. Each client connects from its own loopback source address
// (127.0.0.2 and up), so that per-source limits see many sources.
func (l *lab) runLoad(p loadPhase) (loadResult, error) {
	l.dns.DelayAll(p.delay)
	defer l.dns.DelayAll(0)
	cfg := l.serviceConfig(p)
	store, cleanup, err := analyticsDir(p.analytics)
	if err != nil {
		return loadResult{}, err
	}
	defer cleanup()
	cfg.Analytics = store
	svc, err := startServiceProc(cfg)
	if err != nil {
		return loadResult{}, err
	}
	r, err := l.load(svc, p)
	if err != nil {
		svc.kill()
		return r, err
	}
	if r.service, err = svc.stop(); err != nil {
		return r, err
	}
	return r, nil
}

// load runs the closed loop against the service process and measures it
// and this process over the same span.
func (l *lab) load(svc *serviceProc, p loadPhase) (loadResult, error) {
	var r loadResult
	r.startRSS = svc.statusBytes("VmRSS:")
	svcCPU0, err := svc.cpu()
	if err != nil {
		return r, err
	}
	cpu0 := cpuTime()
	g := &loadGen{domains: l.domains, url: "http://" + svc.addr + "/api/scan"}
	heapDone := make(chan error, 1)
	if p.heapProfile != "" {
		time.AfterFunc(p.dur/2, func() {
			inFlight := g.inFlight()
			snap, err := svc.heapProfile(p.heapProfile)
			r.heap, r.inFlight = &snap, inFlight
			heapDone <- err
		})
	} else {
		heapDone <- nil
	}
	elapsed := g.run(p.clients, p.dur)
	cpu := cpuTime() - cpu0
	if err := <-heapDone; err != nil {
		return r, err
	}
	if p.heapProfile != "" {
		// The service without requests, once the scans' sockets have
		// closed, as BenchmarkScansInFlight reads its idle figures: what
		// the snapshot above held beyond it is the requests'.
		time.Sleep(serviceLinger)
		idle, err := svc.heapProfile(idleProfile(p.heapProfile, "idle"))
		if err != nil {
			return r, err
		}
		r.idle = &idle
		// The shared cache grows until the load ends: the idle service
		// holds more answers than the snapshot did. What an answer costs
		// the heap is what dropping them frees; the snapshot's answers
		// are taken off at that, as BenchmarkScansInFlight does. The
		// heap profile of the purged service, beside the snapshot's,
		// gives site by site what the requests in flight held, and, at
		// the cache's own sites, the answers it held at the snapshot.
		bare, err := svc.purged(idleProfile(p.heapProfile, "bare"))
		if err != nil {
			return r, err
		}
		r.bare = &bare
	}
	svcCPU1, err := svc.cpu()
	if err != nil {
		return r, err
	}
	r.peakRSS = svc.statusBytes("VmHWM:")
	r.ok, r.failed = len(g.lat), g.failed
	r.scansPerSec = float64(r.ok) / elapsed.Seconds()
	r.p50, r.p99 = quantile(g.lat, 0.5), quantile(g.lat, 0.99)
	if r.ok > 0 {
		r.serviceCPU = ms(svcCPU1-svcCPU0) / float64(r.ok)
		r.labCPU = ms(cpu) / float64(r.ok)
	}
	sent := int(g.next.Load())
	r.distinctShare = float64(min(sent, len(l.domains))) / float64(max(sent, 1))
	return r, nil
}

// idleProfile is where a heap profile of the idle service goes, beside
// the one taken under load (m.prof, "bare": m.bare.prof).
func idleProfile(path, kind string) string {
	return strings.TrimSuffix(path, ".prof") + "." + kind + ".prof"
}

// loadGen is the closed-loop load generator: every client sends the scan
// of the next domain as soon as its last request was answered.
type loadGen struct {
	domains        []domain
	url            string
	next, answered atomic.Int64 // requests sent and answered

	mu     sync.Mutex
	lat    []float64 // ms, of the successful requests
	failed int
}

// inFlight is the number of requests sent and not yet answered.
func (g *loadGen) inFlight() int64 { return g.next.Load() - g.answered.Load() }

// run loads the service with clients clients for dur and returns the time
// it took.
func (g *loadGen) run(clients int, dur time.Duration) time.Duration {
	deadline := time.Now().Add(dur)
	start := time.Now()
	var wg sync.WaitGroup
	for c := range clients {
		client := loadClient(c)
		wg.Go(func() {
			defer client.CloseIdleConnections()
			for time.Now().Before(deadline) {
				d := g.domains[int(g.next.Add(1)-1)%len(g.domains)]
				t0 := time.Now()
				_, err := post(client, g.url, d)
				g.record(ms(time.Since(t0)), err)
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// record counts one answered request.
func (g *loadGen) record(latency float64, err error) {
	g.answered.Add(1)
	g.mu.Lock()
	defer g.mu.Unlock()
	if err != nil {
		g.failed++
		return
	}
	g.lat = append(g.lat, latency)
}

// loadClient is one simulated client: its own keep-alive connection from
// its own loopback address.
func loadClient(i int) *http.Client {
	src := &net.TCPAddr{IP: net.IPv4(127, 0, byte(1+i/250), byte(2+i%250))}
	d := &net.Dialer{LocalAddr: src, Timeout: 5 * time.Second}
	return &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 1, DisableCompression: true},
	}
}

// post sends one scan request and reads the whole answer, whose length
// it returns; anything but a 200 is an error.
func post(c *http.Client, url string, d domain) (int64, error) {
	body, _ := json.Marshal(map[string]string{"domain": d.name, "dkimSelector": d.selector, "sendingIp": d.sendingIP})
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return n, err
	}
	if resp.StatusCode != http.StatusOK {
		return n, fmt.Errorf("status %d", resp.StatusCode)
	}
	return n, nil
}
