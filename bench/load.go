package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mailauth/mailauth/httpapi"
)

// loadPhase is `mailauth serve`'s handler under a closed-loop load
// generator: clients concurrent clients, each sending its next scan as
// soon as the last one answered, for dur.
type loadPhase struct {
	delay       time.Duration
	clients     int
	dur         time.Duration
	maxInFlight int
}

// loadResult is what one load phase measured.
type loadResult struct {
	ok, failed    int
	scansPerSec   float64
	p50, p99      float64 // ms, of the successful requests
	cpuPerScan    float64 // ms of process CPU per successful scan
	baseRSS       int64   // bytes resident when the phase started (the lab and earlier phases' leftovers); 0 when unknown
	peakRSS       int64   // bytes; 0 when unknown
	hitRate       float64
	distinctShare float64 // share of requests whose domain was not scanned before in the phase
}

// rateLimitForBench is the per-source limit of the bench's service: high
// enough that the limiter never answers 429 (the product default is
// httpapi.DefaultRateLimit per minute).
const rateLimitForBench = 1 << 30

// runLoad serves the scanner through httpapi over loopback TCP and loads
// it. Each client connects from its own loopback source address
// (127.0.0.2 and up), so that per-source limits see many sources.
func (l *lab) runLoad(p loadPhase) (loadResult, error) {
	l.dns.DelayAll(p.delay)
	defer l.dns.DelayAll(0)
	scanner := l.newScanner(32<<20, nil)
	h := httpapi.New(scanner, httpapi.Options{
		Limiter:     httpapi.NewMemoryLimiter(httpapi.MemoryLimiterOptions{Limit: rateLimitForBench}),
		MaxInFlight: p.maxInFlight,
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return loadResult{}, fmt.Errorf("bench listen: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	url := "http://" + ln.Addr().String() + "/api/scan"

	runtime.GC()
	debug.FreeOSMemory()
	rssReset := resetPeakRSS()
	baseRSS := statusBytes("VmRSS:")
	cpu0 := cpuTime()
	var next atomic.Int64
	var mu sync.Mutex
	var lat []float64
	failed := 0
	deadline := time.Now().Add(p.dur)
	start := time.Now()
	var wg sync.WaitGroup
	for c := range p.clients {
		client := loadClient(c)
		wg.Go(func() {
			defer client.CloseIdleConnections()
			for time.Now().Before(deadline) {
				d := l.domains[int(next.Add(1)-1)%len(l.domains)]
				t0 := time.Now()
				err := post(client, url, d)
				el := ms(time.Since(t0))
				mu.Lock()
				if err != nil {
					failed++
				} else {
					lat = append(lat, el)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	r := loadResult{ok: len(lat), failed: failed, hitRate: scanner.DNSCacheStats().HitRate()}
	r.scansPerSec = float64(r.ok) / elapsed.Seconds()
	r.p50, r.p99 = quantile(lat, 0.5), quantile(lat, 0.99)
	if r.ok > 0 {
		r.cpuPerScan = ms(cpu) / float64(r.ok)
	}
	if rssReset {
		r.baseRSS, r.peakRSS = baseRSS, statusBytes("VmHWM:")
	}
	sent := int(next.Load())
	r.distinctShare = float64(min(sent, len(l.domains))) / float64(max(sent, 1))
	return r, nil
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

// post sends one scan request and reads the whole answer; anything but a
// 200 is an error.
func post(c *http.Client, url string, d domain) error {
	body, _ := json.Marshal(map[string]string{"domain": d.name, "dkimSelector": d.selector, "sendingIp": d.sendingIP})
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}
