package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strings"
	"sync"
	"time"

	contract "github.com/mailauth/mailauth/internal/report" // report is this program's own
)

// Sources of the lab's clients (all of 127.0.0.0/8 is local on Linux).
const (
	keyFloodSource = "127.0.0.1" // the trusted proxy: its X-Forwarded-For names the flood's keys
)

// goodLoad is the well-behaved client's pace: a scan every Every, from
// Sources addresses (127.0.1.1 on) in turn. Each source sends one every
// Sources × Every, which must stay under the contract's 30 scans a
// minute per source.
type goodLoad struct {
	Sources int           `json:"sources"`
	Every   time.Duration `json:"every"`
}

// siegeGood is the pace of -mode attack and -mode siege: 5 scans a
// second, each source one every 4 s.
func siegeGood() goodLoad { return goodLoad{Sources: 20, Every: 200 * time.Millisecond} }

// capacityGood is the pace of -mode capacity: 40 scans a second, each
// source one every 2.5 s (24 a minute). A 60 s phase then holds 2,400
// requests, so its p99 is the 24th-slowest rather than the third, and
// its bootstrap interval is about a third as wide.
func capacityGood() goodLoad { return goodLoad{Sources: 100, Every: 25 * time.Millisecond} }

// String describes the pace for the report.
func (g goodLoad) String() string {
	return fmt.Sprintf("every %s, %d sources", g.Every, g.Sources)
}

func goodSource(i int) string    { return fmt.Sprintf("127.0.1.%d", i+1) }
func hostileSource(i int) string { return fmt.Sprintf("127.66.0.%d", i+1) }

// newClient returns an HTTP client whose connections come from src.
func newClient(src string, conns int) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	return &http.Client{
		Timeout:   40 * time.Second,
		Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns},
	}
}

// post sends one scan request and returns the status (0 on a transport
// error) and the latency.
func post(ctx context.Context, c *http.Client, base, body, xff string) (int, time.Duration) {
	status, _, d := postMsg(ctx, c, base, body, xff)
	return status, d
}

// postMsg is post that also returns the error message of a non-200.
func postMsg(ctx context.Context, c *http.Client, base, body, xff string) (int, string, time.Duration) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/scan", strings.NewReader(body))
	if err != nil {
		return 0, "", 0
	}
	req.Header.Set("Content-Type", "application/json")
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	t0 := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", time.Since(t0)
	}
	defer resp.Body.Close()
	var e contract.Error
	if resp.StatusCode != 200 {
		_ = json.NewDecoder(io.LimitReader(resp.Body, 4096)).Decode(&e)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, e.Error, time.Since(t0)
}

func scanBody(domain string) string { return `{"domain":"` + domain + `"}` }

// latencies summarises the well-behaved client's requests of one phase.
type latencies struct {
	N       int     `json:"n"`
	OK      int     `json:"ok"`
	Success float64 `json:"successPct"`
	P50     float64 `json:"p50ms"`
	P99     float64 `json:"p99ms"`
	Max     float64 `json:"maxms"`
	Status  tally   `json:"status"`
	// Dialled counts the requests that opened a connection, SlowestDial
	// is the longest connection setup (ms): a tail in connection setup is
	// the kernel's accept queue, not the service.
	Dialled     int     `json:"dialled"`
	SlowestDial float64 `json:"slowestDialMs"`
	// Slowest are the slowest requests (at most slowestKept), slowest
	// first, with where their time went.
	Slowest []timing `json:"slowest,omitempty"`
	// Server is the server's side of the same requests (capacity mode).
	Server serverSide `json:"server"`
	// Samples are the requests' latencies (ms), sorted: the p99's
	// interval is drawn from them (ratioInterval).
	Samples []float64 `json:"samplesMs,omitempty"`
}

// slowestKept is how many of a phase's slowest requests are reported
// with their breakdown.
const slowestKept = 3

// timing is one request's latency and where it went: the connection
// setup (0 when a kept-alive connection was reused) and the wait from
// the request written to the first byte of the answer (the server's
// admission and scan, and any wait for the accept loop).
type timing struct {
	Total float64 `json:"totalMs"`
	Dial  float64 `json:"dialMs"`
	Wait  float64 `json:"waitMs"`
}

// String formats t for the report.
func (t timing) String() string {
	return fmt.Sprintf("%.1f ms (dial %.1f, first byte after %.1f)", t.Total, t.Dial, t.Wait)
}

// tally counts statuses (0 = transport error).
type tally map[int]int

// outcomes counts statuses with their error messages ("500 server busy…").
type outcomes map[string]int

// recorder collects the good client's results.
type recorder struct {
	mu      sync.Mutex
	ms      []float64
	status  tally
	dialled int     // requests that opened a new connection
	slowest float64 // longest connection setup, ms
	timings []timing
}

// dialled notes a request that opened a connection taking d.
func (r *recorder) dial(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dialled++
	r.slowest = max(r.slowest, float64(d.Microseconds())/1000)
}

// addTiming notes one request's status and timing.
func (r *recorder) addTiming(status int, t timing) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timings = append(r.timings, t)
	if r.status == nil {
		r.status = tally{}
	}
	r.status[status]++
	r.ms = append(r.ms, t.Total)
}

// ms returns d in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func (r *recorder) summary() latencies {
	r.mu.Lock()
	defer r.mu.Unlock()
	ms := slices.Clone(r.ms)
	slices.Sort(ms)
	l := latencies{N: len(ms), OK: r.status[200], Status: r.status, Dialled: r.dialled, SlowestDial: r.slowest}
	ts := slices.Clone(r.timings)
	slices.SortFunc(ts, func(a, b timing) int { return cmp.Compare(b.Total, a.Total) })
	l.Slowest = ts[:min(len(ts), slowestKept)]
	if l.N == 0 {
		return l
	}
	l.Success = 100 * float64(l.OK) / float64(l.N)
	l.P50, l.P99, l.Max = ms[l.N/2], p99Of(ms), ms[l.N-1]
	l.Samples = ms
	return l
}

// runGood scans goodDomain at pace g, rotating sources, until ctx ends.
func runGood(ctx context.Context, base string, g goodLoad, rec *recorder) {
	clients := make([]*http.Client, g.Sources)
	for i := range clients {
		clients[i] = newClient(goodSource(i), 2)
	}
	var wg sync.WaitGroup
	t := time.NewTicker(g.Every)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			wg.Wait()
			return
		case <-t.C:
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var connStart, wrote, first time.Time
			var dial time.Duration
			trace := &httptrace.ClientTrace{
				ConnectStart: func(string, string) { connStart = time.Now() },
				ConnectDone: func(string, string, error) {
					if !connStart.IsZero() {
						dial = time.Since(connStart)
						rec.dial(dial)
					}
				},
				WroteRequest:         func(httptrace.WroteRequestInfo) { wrote = time.Now() },
				GotFirstResponseByte: func() { first = time.Now() },
			}
			ctx := httptrace.WithClientTrace(context.Background(), trace)
			status, d := post(ctx, clients[i%g.Sources], base, scanBody(goodDomain), "")
			t := timing{Total: ms(d), Dial: ms(dial)}
			if !wrote.IsZero() && !first.IsZero() {
				t.Wait = ms(first.Sub(wrote))
			}
			rec.addTiming(status, t)
		}()
	}
}

// counters is a concurrency-safe count of outcomes per kind of request.
type counters struct {
	mu sync.Mutex
	m  map[string]outcomes
}

func (c *counters) add(kind string, status int, msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]outcomes{}
	}
	if c.m[kind] == nil {
		c.m[kind] = outcomes{}
	}
	key := fmt.Sprint(status)
	if msg != "" {
		key += " " + msg
	}
	c.m[kind][key]++
}

func (c *counters) snapshot() map[string]outcomes {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]outcomes{}
	for k, v := range c.m {
		out[k] = outcomes{}
		for s, n := range v {
			out[k][s] = n
		}
	}
	return out
}

// get sends a GET and returns the status (0 on a transport error).
func get(ctx context.Context, c *http.Client, url string) int {
	return send(ctx, c, http.MethodGet, url, "")
}

// postPath posts a JSON body to url and returns the status.
func postPath(ctx context.Context, c *http.Client, url, body string) int {
	return send(ctx, c, http.MethodPost, url, body)
}

// send sends one request (a JSON body when body is not empty) and
// returns the status, 0 on a transport error.
func send(ctx context.Context, c *http.Client, method, url, body string) int {
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return 0
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
