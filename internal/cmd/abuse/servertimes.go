package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/resolver"
)

// The server's side of the well-behaved client's requests: how long the
// handler took (admission, the scan, the answer) and, within it, the scan
// alone. The client's latency beyond the handler's is the connection's
// way to the handler (the kernel's queues, the accept loop, reading the
// request, waiting for a core); the handler's beyond the scan is the
// admission (the rate limit, the budget, the wait for a slot).

// goodPrefix holds the well-behaved client's sources (goodSource).
var goodPrefix = netip.MustParsePrefix("127.0.1.0/24")

// goodKey marks the context of a well-behaved client's request; its
// value is the *goodRequest.
type goodKey struct{}

// goodRequest is when the handler got a well-behaved client's request
// and when its scan began and ended (mu: the scan may run on another
// goroutine than the handler's).
type goodRequest struct {
	start time.Time

	mu                 sync.Mutex
	scanStart, scanEnd time.Time
}

// serverTimes collects the handler's and the scan's durations of the
// well-behaved client's requests since the last reset.
type serverTimes struct {
	mu      sync.Mutex
	handler []float64      // ms
	scan    []float64      // ms
	before  []float64      // ms from the handler's start to the scan's: decoding, the rate limit, the admission
	after   []float64      // ms from the scan's end to the handler's: the answer's encoding, the leak guard, the write
	lookup  []float64      // ms, each DNS lookup of the scans
	slowest []string       // the slowest lookups ("TXT 31.2 ms"), at most slowLookupsKept
	worst   []float64      // their durations, slowest first
	rt      runtimeReading // the runtime's metrics at the last take
	// runnable samples the server's runnable goroutines; trace writes a
	// runtime trace of a measurement when asked (-trace).
	runnable *runnableSampler
	trace    *serverTrace
}

// slowLookupsKept is how many of a phase's slowest lookups are reported.
const slowLookupsKept = 5

// addLookup records one lookup of qtype that took d.
func (s *serverTimes) addLookup(qtype resolver.Type, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := ms(d)
	s.lookup = append(s.lookup, v)
	i, _ := slices.BinarySearchFunc(s.worst, v, func(a, b float64) int { return cmp.Compare(b, a) })
	if i >= slowLookupsKept {
		return
	}
	s.worst = slices.Insert(s.worst, i, v)
	s.slowest = slices.Insert(s.slowest, i, fmt.Sprintf("%s %.1f ms", qtype, v))
	if len(s.worst) > slowLookupsKept {
		s.worst, s.slowest = s.worst[:slowLookupsKept], s.slowest[:slowLookupsKept]
	}
}

// timedResolver times the DNS lookups of the well-behaved client's scans
// (its other methods are the Client's own).
type timedResolver struct {
	*resolver.Client
	times *serverTimes
}

// Lookup implements resolver.Resolver.
func (t timedResolver) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	if ctx.Value(goodKey{}) == nil {
		return t.Client.Lookup(ctx, name, qtype)
	}
	t0 := time.Now()
	a := t.Client.Lookup(ctx, name, qtype)
	t.times.addLookup(qtype, time.Since(t0))
	return a
}

// Start implements resolver.Starter: the scans start their lookups
// (the Client's own Start, promoted, would go untimed).
func (t timedResolver) Start(ctx context.Context, name string, qtype resolver.Type, done func(resolver.Answer)) {
	if ctx.Value(goodKey{}) == nil {
		t.Client.Start(ctx, name, qtype, done)
		return
	}
	t0 := time.Now()
	t.Client.Start(ctx, name, qtype, func(a resolver.Answer) {
		t.times.addLookup(qtype, time.Since(t0))
		done(a)
	})
}

// wrap times h's requests from goodPrefix.
func (s *serverTimes) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ap, err := netip.ParseAddrPort(r.RemoteAddr)
		if err != nil || !goodPrefix.Contains(ap.Addr().Unmap()) {
			h.ServeHTTP(w, r)
			return
		}
		g := &goodRequest{start: time.Now()}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), goodKey{}, g)))
		end := time.Now()
		s.add(&s.handler, end.Sub(g.start))
		g.mu.Lock()
		scanStart, scanEnd := g.scanStart, g.scanEnd
		g.mu.Unlock()
		if !scanStart.IsZero() && !scanEnd.IsZero() {
			s.add(&s.before, scanStart.Sub(g.start))
			s.add(&s.after, end.Sub(scanEnd))
		}
	})
}

func (s *serverTimes) add(to *[]float64, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	*to = append(*to, ms(d))
}

// timedService times the scans of the well-behaved client's requests.
type timedService struct {
	svc   *mailauth.Scanner
	times *serverTimes
}

var (
	_ httpapi.Service        = timedService{}
	_ httpapi.EncodedService = timedService{}
)

func (t timedService) timed(ctx context.Context) func() {
	g, ok := ctx.Value(goodKey{}).(*goodRequest)
	if !ok {
		return func() {}
	}
	start := time.Now()
	g.mu.Lock()
	g.scanStart = start
	g.mu.Unlock()
	return func() {
		end := time.Now()
		g.mu.Lock()
		g.scanEnd = end
		g.mu.Unlock()
		t.times.add(&t.times.scan, end.Sub(start))
	}
}

// Scan implements httpapi.Service.
func (t timedService) Scan(ctx context.Context, req mailauth.ScanRequest) (mailauth.ScanSummary, error) {
	defer t.timed(ctx)()
	return t.svc.Scan(ctx, req)
}

// CheckIP implements httpapi.Service.
func (t timedService) CheckIP(ctx context.Context, ip netip.Addr) (mailauth.PTRCheckSummary, error) {
	return t.svc.CheckIP(ctx, ip)
}

// ScanEncoded implements httpapi.EncodedService.
func (t timedService) ScanEncoded(ctx context.Context, req mailauth.ScanRequest) (*mailauth.ScanSummary, []byte, error) {
	defer t.timed(ctx)()
	return t.svc.ScanEncoded(ctx, req)
}

// CheckIPEncoded implements httpapi.EncodedService.
func (t timedService) CheckIPEncoded(ctx context.Context, ip netip.Addr) (*mailauth.PTRCheckSummary, []byte, error) {
	return t.svc.CheckIPEncoded(ctx, ip)
}

// serverSide summarises the server's side of a phase's well-behaved
// requests (ms).
type serverSide struct {
	N          int     `json:"n"`
	HandlerP50 float64 `json:"handlerP50ms"`
	HandlerP99 float64 `json:"handlerP99ms"`
	HandlerMax float64 `json:"handlerMaxms"`
	ScanP50    float64 `json:"scanP50ms"`
	ScanP99    float64 `json:"scanP99ms"`
	ScanMax    float64 `json:"scanMaxms"`
	// Before the scan (decoding, the rate limit, the admission and its
	// wait for a slot) and after it (the answer's encoding, the leak
	// guard, the write): p99 and maximum.
	BeforeP99 float64 `json:"beforeP99ms"`
	BeforeMax float64 `json:"beforeMaxms"`
	AfterP99  float64 `json:"afterP99ms"`
	AfterMax  float64 `json:"afterMaxms"`
	// The DNS lookups of those scans: how many, their p50, p99 and
	// maximum, and the slowest ones by type.
	LookupN       int      `json:"lookupN"`
	LookupP50     float64  `json:"lookupP50ms"`
	LookupP99     float64  `json:"lookupP99ms"`
	LookupMax     float64  `json:"lookupMaxms"`
	SlowestLookup []string `json:"slowestLookups,omitempty"`
	// Runtime is the server's runtime over the same interval: its
	// collector's pauses and its goroutines' wait to run.
	Runtime runtimeSide `json:"runtime"`
}

// take summarises and resets the durations.
func (s *serverTimes) take() serverSide {
	s.mu.Lock()
	h, sc, lk, slow, bf, af := s.handler, s.scan, s.lookup, s.slowest, s.before, s.after
	s.handler, s.scan, s.lookup, s.slowest, s.worst, s.before, s.after = nil, nil, nil, nil, nil, nil, nil
	rt, prev := readRuntime(s.runnable), s.rt
	s.rt = rt
	s.mu.Unlock()
	q := func(v []float64) (p50, p99, mx float64) {
		if len(v) == 0 {
			return 0, 0, 0
		}
		slices.Sort(v)
		return v[len(v)/2], v[min(len(v)-1, len(v)*99/100)], v[len(v)-1]
	}
	out := serverSide{N: len(h), Runtime: rt.since(prev)}
	out.HandlerP50, out.HandlerP99, out.HandlerMax = q(h)
	out.ScanP50, out.ScanP99, out.ScanMax = q(sc)
	_, out.BeforeP99, out.BeforeMax = q(bf)
	_, out.AfterP99, out.AfterMax = q(af)
	out.LookupN, out.SlowestLookup = len(lk), slow
	out.LookupP50, out.LookupP99, out.LookupMax = q(lk)
	return out
}

// timesServer serves, on a loopback port of its own, GET /: the summary
// of the durations since the last GET, which it resets.
func timesServer(s *serverTimes) (*http.Server, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("times listener: %w", err)
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if name := r.URL.Query().Get("trace"); name != "" {
			_ = json.NewEncoder(w).Encode(s.trace.start(name))
			return
		}
		_ = json.NewEncoder(w).Encode(s.take())
	})}
	go func() { _ = srv.Serve(ln) }()
	return srv, ln.Addr().String(), nil
}

// startServerTrace asks the lab to write a runtime trace of the server,
// named name, for the next traceFor (when -trace was given); it returns
// the file, or why none is written.
func startServerTrace(addr, name string) string {
	if addr == "" {
		return ""
	}
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get("http://" + addr + "/?trace=" + url.QueryEscape(name))
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	var out string
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return out
}

// readServerSide fetches (and resets) the lab's server-side durations;
// the zero summary when addr is empty or the lab does not answer.
func readServerSide(addr string) serverSide {
	var out serverSide
	if addr == "" {
		return out
	}
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get("http://" + addr + "/")
	if err != nil {
		return out
	}
	defer resp.Body.Close()
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return out
}
