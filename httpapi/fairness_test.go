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
	"github.com/stretchr/testify/require"

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
	require.Eventually(t, cond, 30*time.Second, 5*time.Millisecond, "timed out waiting for %s", what)
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
	e := svc.Entered()
	require.Len(t, e, 4, "entered %q: the hostile source ran more than %d scans at once", e, DefaultSourceInFlight)
	require.Equal(t, "good.example.com", e[len(e)-1], "entered %q: the hostile source ran more than %d scans at once", e, DefaultSourceInFlight)
	for range 11 {
		svc.release <- struct{}{}
	}
	assert.Equal(t, 200, <-good, "good client")
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
	// Not fresh either (a fresh request would go first, see
	// TestFreshWaiterFirst): its scan of a slow domain a moment ago.
	s.usage.add(good.groups, 5*time.Second, s.now())
	var releases []func()
	for range 2 {
		rel, _, e := s.acquire(context.Background(), hostile, time.Minute, nil)
		require.Nil(t, e, "acquire")
		releases = append(releases, rel)
	}
	order := make(chan string, 10)
	var wg sync.WaitGroup
	wait := func(name string, ad admission) {
		defer wg.Done()
		rel, _, e := s.acquire(context.Background(), ad, time.Minute, nil)
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
	require.Equal(t, []string{"hostile0", "good"}, got, "grant order: want hostile0 then good (round-robin), not the backlog first")
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
	e := svc.Entered()
	require.Equal(t, "good.example.com", e[len(e)-1], "entered %q: the /56 ran more than %d scans", e, networkInFlight56)
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
	require.Equal(t, 500, <-postFrom(ts, "203.0.113.66", "slow.example.com"), "scan past the budget (deadline from the budget)")
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
	assert.Len(t, svc.Entered(), 1, "the service ran more than one scan")
	svc.release <- struct{}{}
	assert.Equal(t, 200, <-postFrom(ts, "198.51.100.7", "good.example.com"), "other source")
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
			require.Equal(t, 200, send(fmt.Sprintf("2001:db8:0:1%02x::1", i)).StatusCode, "/64 %d", i)
		}
	}
	r := send("2001:db8:0:1ff::1")
	require.Equal(t, 429, r.StatusCode, "5th /64 of the /56: %s", r.Body)
	require.Equal(t, errNetworkLimited.msg, ErrorMessage(t, r), "5th /64 of the /56")
	require.NotEmpty(t, r.Header.Get("Retry-After"), "5th /64 of the /56: Retry-After")
	assert.Equal(t, "1", r.Header.Get("X-RateLimit-Remaining"), "X-RateLimit-Remaining: want the per-source 1")
	assert.Equal(t, 200, send("2001:db8:0:200::1").StatusCode, "another /56")
	assert.Equal(t, 200, send("203.0.113.9").StatusCode, "IPv4 client")
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
