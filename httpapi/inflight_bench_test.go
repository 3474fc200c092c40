package httpapi

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/resolver"
)

// inFlightRequests is how many requests BenchmarkRequestsInFlight holds
// in flight at once.
const inFlightRequests = 200

// heldResolver answers no question until its release channel (hold)
// is closed or the question's context ends; then every answer is a
// timeout.
type heldResolver struct{ release atomic.Pointer[chan struct{}] }

// hold makes the questions from now on wait; the function it returns
// releases them.
func (h *heldResolver) hold() (release func()) {
	ch := make(chan struct{})
	h.release.Store(&ch)
	return func() { close(ch) }
}

// Lookup implements resolver.Resolver.
func (h *heldResolver) Lookup(ctx context.Context, _ string, _ resolver.Type) resolver.Answer {
	select {
	case <-ctx.Done():
	case <-*h.release.Load():
	}
	return resolver.Answer{Outcome: resolver.Inconclusive, Reason: resolver.ReasonTimeout, Rcode: -1}
}

// inFlightMem is the live heap, the goroutine stacks and the goroutines
// of the process after two collections.
type inFlightMem struct{ heap, stacks, goroutines float64 }

// readInFlightMem collects twice and reads inFlightMem.
func readInFlightMem() inFlightMem {
	runtime.GC()
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(s)
	return inFlightMem{float64(s[0].Value.Uint64()), float64(s[1].Value.Uint64()), float64(runtime.NumGoroutine())}
}

// BenchmarkRequestsInFlight measures what a scan request in flight costs
// the service in memory beyond the scan itself: with every DNS question
// held unanswered (heldResolver), it holds inFlightRequests scans in
// flight first as library calls (one goroutine each, as ScanEncoded's
// callers run it), then as POST /api/scan requests over loopback TCP
// (the clients are raw connections with no goroutine of their own), and
// reports for each, after two collections, the live heap and goroutine
// stacks above the idle figures, over the scans in flight: lib-heap-B/op,
// lib-stack-B/op, http-heap-B/op, http-stack-B/op, and the goroutines
// per scan. Each connection has answered one request before (so that the
// handler's goroutine has run a whole request) and stays open through
// both phases; the idle figures count the open connections, whose own
// cost (net/http's buffers and the connection's goroutine) is reported
// as conn-heap-B/op and conn-stack-B/op. The difference between the two
// phases is what the HTTP service adds per request in flight: the
// request's state, the middleware, net/http's background reader, and the
// handler's goroutine, which waits for the scan under all of them.
//
//	go test -run '^$' -bench BenchmarkRequestsInFlight -benchtime 1x ./httpapi/
func BenchmarkRequestsInFlight(b *testing.B) {
	held := new(heldResolver)
	held.hold()()
	scanner := mailauth.New(mailauth.Config{Resolver: held, ScanTimeout: time.Minute, MaxConcurrentScans: 2 * inFlightRequests})
	h := New(scanner, Options{
		Limiter:        NewMemoryLimiter(MemoryLimiterOptions{Limit: 1 << 30}),
		MaxInFlight:    2 * inFlightRequests,
		SourceInFlight: 2 * inFlightRequests,
		SourceBudget:   -1,
		NetworkLimits:  []NetworkLimit{},
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: time.Minute, IdleTimeout: time.Minute}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Close() })

	domain := func(i int) string { return fmt.Sprintf("d%d.example.com", i) }
	for range b.N {
		// Each connection answers one request first, as a keep-alive
		// client's does between its requests: the handler's goroutine
		// then waits on a stack grown by a whole request.
		bare := readInFlightMem()
		conns := make([]net.Conn, inFlightRequests)
		readers := make([]*bufio.Reader, inFlightRequests)
		for i := range conns {
			c, err := net.Dial("tcp", ln.Addr().String())
			require.NoError(b, err)
			conns[i], readers[i] = c, bufio.NewReader(c)
			postScan(b, c, domain(i))
			resp, err := http.ReadResponse(readers[i], nil)
			require.NoError(b, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
		idle := readInFlightMem()
		release := held.hold()

		// The library: the scans, each on a goroutine of its own.
		done := make(chan struct{}, inFlightRequests)
		for i := range inFlightRequests {
			go func() {
				_, _, _ = scanner.ScanEncoded(context.Background(), mailauth.ScanRequest{Domain: domain(i)})
				done <- struct{}{}
			}()
		}
		waitRunning(b, scanner, inFlightRequests)
		lib := readInFlightMem()
		release()
		for range inFlightRequests {
			<-done
		}
		waitRunning(b, scanner, 0)

		// The service: the same scans as requests, on the connections.
		release = held.hold()
		for i, c := range conns {
			postScan(b, c, domain(i))
		}
		waitRunning(b, scanner, inFlightRequests)
		svc := readInFlightMem()
		release()
		for i, c := range conns {
			resp, err := http.ReadResponse(readers[i], nil)
			require.NoError(b, err)
			_ = resp.Body.Close()
			require.NoError(b, c.Close())
		}
		waitRunning(b, scanner, 0)

		n := float64(inFlightRequests)
		b.ReportMetric((lib.heap-idle.heap)/n, "lib-heap-B/op")
		b.ReportMetric((lib.stacks-idle.stacks)/n, "lib-stack-B/op")
		b.ReportMetric((lib.goroutines-idle.goroutines)/n, "lib-goroutines/op")
		b.ReportMetric((svc.heap-idle.heap)/n, "http-heap-B/op")
		b.ReportMetric((svc.stacks-idle.stacks)/n, "http-stack-B/op")
		b.ReportMetric((svc.goroutines-idle.goroutines)/n, "http-goroutines/op")
		b.ReportMetric((idle.heap-bare.heap)/n, "conn-heap-B/op")
		b.ReportMetric((idle.stacks-bare.stacks)/n, "conn-stack-B/op")
	}
}

// postScan writes a POST /api/scan request for domain to c.
func postScan(tb testing.TB, c net.Conn, domain string) {
	tb.Helper()
	body := fmt.Sprintf(`{"domain":%q}`, domain)
	_, err := fmt.Fprintf(c, "POST /api/scan HTTP/1.1\r\nHost: mailauth.test\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	require.NoError(tb, err)
}

// waitRunning waits until the scanner runs n scans and, when n > 0, its
// goroutines have settled (every check waits under a question).
func waitRunning(tb testing.TB, s *mailauth.Scanner, n int) {
	tb.Helper()
	deadline := time.Now().Add(time.Minute)
	last := -1
	for time.Now().Before(deadline) {
		running, _ := s.ScansRunning()
		g := runtime.NumGoroutine()
		if running == n && g == last {
			return
		}
		last = g
		time.Sleep(100 * time.Millisecond)
	}
	tb.Fatalf("scans running: want %d; %s", n, "timed out")
}
