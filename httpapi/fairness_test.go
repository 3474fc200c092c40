package httpapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth"
)

// blockingService is a Service whose scans block until released (or
// their context ends) and records which client entered, by domain.
type blockingService struct {
	FakeService
	mu      sync.Mutex
	entered []string
	release chan struct{}
}

func newBlockingService() *blockingService {
	b := &blockingService{release: make(chan struct{}, 100)}
	b.ScanFunc = func(ctx context.Context, req mailauth.ScanRequest) (mailauth.ScanSummary, error) {
		b.mu.Lock()
		b.entered = append(b.entered, req.Domain)
		b.mu.Unlock()
		select {
		case <-b.release:
			return SampleScanSummary(), nil
		case <-ctx.Done():
			return mailauth.ScanSummary{}, ctx.Err()
		}
	}
	return b
}

func (b *blockingService) Entered() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.entered...)
}

// eventually polls cond until it holds, failing the test after a generous
// bound (a liveness check, not a timing threshold).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// postFrom sends a scan of domain as the forwarded client xff and
// delivers the status on the returned channel.
func postFrom(ts *TestServer, xff, domain string) <-chan int {
	out := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/scan", strings.NewReader(`{"domain":"`+domain+`"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", xff)
		resp, err := ts.Client().Do(req)
		if err != nil {
			out <- -1
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		out <- resp.StatusCode
	}()
	return out
}

var loopbackProxy = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

// TestSourceInFlightCap: one source cannot run more than SourceInFlight
// diagnostics at once, however many it sends; another source is served
// at once meanwhile.
func TestSourceInFlightCap(t *testing.T) {
	t.Parallel()
	svc := newBlockingService()
	ts := NewTestServer(t, svc, Options{TrustedProxies: loopbackProxy, QueueWait: 30 * time.Second})
	var hostile []<-chan int
	for i := range 10 {
		hostile = append(hostile, postFrom(ts, "203.0.113.66", fmt.Sprintf("h%d.example.com", i)))
	}
	eventually(t, "3 hostile scans to start", func() bool { return len(svc.Entered()) == DefaultSourceInFlight })
	good := postFrom(ts, "198.51.100.7", "good.example.com")
	eventually(t, "the good scan to start", func() bool { return len(svc.Entered()) == DefaultSourceInFlight+1 })
	if e := svc.Entered(); e[len(e)-1] != "good.example.com" || len(e) != 4 {
		t.Fatalf("entered %q: the hostile source ran more than %d scans at once", e, DefaultSourceInFlight)
	}
	for range 11 {
		svc.release <- struct{}{}
	}
	if s := <-good; s != 200 {
		t.Errorf("good client: %d", s)
	}
	for _, c := range hostile {
		<-c
	}
}

// TestFairQueueing: with every slot taken by one source and more of its
// requests waiting, a request of another source is served at the next
// turn, not after the whole backlog (round-robin between sources).
func TestFairQueueing(t *testing.T) {
	t.Parallel()
	s := newScheduler(2)
	s.reserve = 0 // this test is about the turn order, not the reserve
	hostile := admissionFor(netip.MustParseAddr("203.0.113.66"), 10)
	good := admissionFor(netip.MustParseAddr("198.51.100.7"), 10)
	var releases []func()
	for range 2 {
		rel, _, e := s.acquire(context.Background(), hostile, time.Minute)
		if e != nil {
			t.Fatal(e.msg)
		}
		releases = append(releases, rel)
	}
	order := make(chan string, 10)
	var wg sync.WaitGroup
	wait := func(name string, ad admission) {
		defer wg.Done()
		rel, _, e := s.acquire(context.Background(), ad, time.Minute)
		if e != nil {
			order <- "refused " + name
			return
		}
		order <- name
		rel()
	}
	for i := range 6 {
		wg.Add(1)
		go wait(fmt.Sprint("hostile", i), hostile)
		eventually(t, "the hostile request to queue", func() bool { return s.waiting() == i+1 })
	}
	wg.Add(1)
	go wait("good", good)
	eventually(t, "the good request to queue", func() bool { return s.waiting() == 7 })
	releases[0]() // one slot: the hostile source's turn (it queued first); it finishes at once
	got := []string{<-order, <-order}
	if got[0] != "hostile0" || got[1] != "good" {
		t.Fatalf("grant order %q, want hostile0 then good (round-robin), not the backlog first", got)
	}
	releases[1]()
	wg.Wait()
}

// TestNetworkInFlightCap: the /64s of one IPv6 /56 together run at most
// networkInFlight56 diagnostics.
func TestNetworkInFlightCap(t *testing.T) {
	t.Parallel()
	svc := newBlockingService()
	ts := NewTestServer(t, svc, Options{TrustedProxies: loopbackProxy, QueueWait: 30 * time.Second})
	var all []<-chan int
	for i := range 8 { // 8 /64s of 2001:db8:0:100::/56, 3 requests each
		for j := range 3 {
			all = append(all, postFrom(ts, fmt.Sprintf("2001:db8:0:1%02x::1", i), fmt.Sprintf("n%d-%d.example.com", i, j)))
		}
	}
	eventually(t, "the /56 to reach its cap", func() bool { return len(svc.Entered()) == networkInFlight56 })
	good := postFrom(ts, "2001:db8:1::1", "good.example.com") // another /48
	eventually(t, "the good scan to start", func() bool { return len(svc.Entered()) == networkInFlight56+1 })
	if e := svc.Entered(); e[len(e)-1] != "good.example.com" {
		t.Fatalf("entered %q: the /56 ran more than %d scans", e, networkInFlight56)
	}
	for range len(all) + 1 {
		svc.release <- struct{}{}
	}
	<-good
	for _, c := range all {
		<-c
	}
}

// TestSourceBudget: a source whose diagnostics used up its time budget is
// refused at once (429 with Retry-After) until its window ends; the last
// diagnostic ran with the rest of the budget as its deadline; other
// sources are served.
func TestSourceBudget(t *testing.T) {
	t.Parallel()
	svc := newBlockingService()
	ts := NewTestServer(t, svc, Options{TrustedProxies: loopbackProxy, SourceBudget: 1500 * time.Millisecond})
	if s := <-postFrom(ts, "203.0.113.66", "slow.example.com"); s != 500 {
		t.Fatalf("scan past the budget: %d, want 500 (deadline from the budget)", s)
	}
	req := ts.Request(t, http.MethodPost, "/api/scan", "application/json", strings.NewReader(scanBody("again.example.com")))
	req.Header.Set("X-Forwarded-For", "203.0.113.66")
	r := ts.Do(t, req)
	assert.Equal(t, http.StatusTooManyRequests, r.StatusCode, "after the budget")
	assert.Equal(t, errSourceBudget.msg, ErrorMessage(t, r))
	secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if assert.NoError(t, err, "Retry-After %q", r.Header.Get("Retry-After")) {
		assert.GreaterOrEqual(t, secs, 1)
		assert.LessOrEqual(t, secs, int(DefaultRateWindow.Seconds()))
	}
	if n := len(svc.Entered()); n != 1 {
		t.Errorf("the service ran %d scans, want 1", n)
	}
	svc.release <- struct{}{}
	if s := <-postFrom(ts, "198.51.100.7", "good.example.com"); s != 200 {
		t.Errorf("other source: %d", s)
	}
}

// TestNetworkRateLimit: the /64s of one /56 share an aggregate limit; a
// refusal is a 429 with Retry-After, and X-RateLimit-Remaining keeps the
// per-source value.
func TestNetworkRateLimit(t *testing.T) {
	t.Parallel()
	lim := NewMemoryLimiter(MemoryLimiterOptions{Limit: 2})
	checkNetworkLimit(t, NewTestServer(t, &FakeService{}, Options{TrustedProxies: loopbackProxy, Limiter: lim, NetworkLimits: MemoryNetworkLimits(2)}))
}

// checkNetworkLimit sends from four /64s of one /56 (per-source limit 2,
// aggregate 8) and checks the fifth /64 is refused.
func checkNetworkLimit(t *testing.T, ts *TestServer) {
	t.Helper()
	send := func(xff string) Response {
		req := ts.Request(t, http.MethodPost, "/api/scan", "application/json", strings.NewReader(scanBody("example.com")))
		req.Header.Set("X-Forwarded-For", xff)
		return ts.Do(t, req)
	}
	for i := range network56Factor { // 4 /64s × 2 requests = the /56's 8
		for range 2 {
			if r := send(fmt.Sprintf("2001:db8:0:1%02x::1", i)); r.StatusCode != 200 {
				t.Fatalf("/64 %d: %d", i, r.StatusCode)
			}
		}
	}
	r := send("2001:db8:0:1ff::1")
	if r.StatusCode != 429 || ErrorMessage(t, r) != errNetworkLimited.msg || r.Header.Get("Retry-After") == "" {
		t.Fatalf("5th /64 of the /56: %d %s Retry-After %q", r.StatusCode, r.Body, r.Header.Get("Retry-After"))
	}
	if got := r.Header.Get("X-RateLimit-Remaining"); got != "1" {
		t.Errorf("X-RateLimit-Remaining %q, want the per-source 1", got)
	}
	if r := send("2001:db8:0:200::1"); r.StatusCode != 200 {
		t.Errorf("another /56: %d", r.StatusCode)
	}
	if r := send("203.0.113.9"); r.StatusCode != 200 {
		t.Errorf("IPv4 client: %d", r.StatusCode)
	}
}

// TestDiagnosticCarriesSource: the context a diagnostic runs with carries
// the client's fairness key as its source tag (mailauth.WithSource), so
// that the scanner's alarms can be limited per source.
func TestDiagnosticCarriesSource(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	svc := &FakeService{
		ScanFunc: func(ctx context.Context, req mailauth.ScanRequest) (mailauth.ScanSummary, error) {
			mu.Lock()
			got = append(got, mailauth.Source(ctx))
			mu.Unlock()
			return SampleScanSummary(), nil
		},
		CheckIPFunc: func(ctx context.Context, ip netip.Addr) (mailauth.PTRCheckSummary, error) {
			mu.Lock()
			got = append(got, mailauth.Source(ctx))
			mu.Unlock()
			s := SamplePtrCheckSummary()
			s.SendingIP = ip.String()
			return s, nil
		},
	}
	ts := NewTestServer(t, svc, Options{})
	assert.Equal(t, 200, ts.PostJSON(t, "/api/scan", scanBody("example.com")).StatusCode)
	assert.Equal(t, 200, ts.PostJSON(t, "/api/ptr-check", ptrBody("8.8.8.8")).StatusCode)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"127.0.0.1", "127.0.0.1"}, got)
}
