package resolver_test

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/mailauth/mailauth/resolver"
)

// BenchmarkQuestionsInFlight: what a question waiting for its reply
// holds on the heap, at each layer a scan's questions go through. 4,000
// distinct A questions are started at once against a loopback UDP
// server that reads every query and answers none, so each stays in
// flight; the live heap is read before they start and once they are all
// sent. client-B/question is a Client's lookup alone (its state, timer,
// context hook, query and its share of a socket); cache-B/question the
// same through a Cache over the Client (its flight and hook added);
// scan-B/question through a Scan over that Cache, one Scan for every 8
// questions (about what a scan has in flight at once), so that its
// share of a Scan's own state is in. The questions' contexts carry a
// deadline, as a scan's do. Deterministic where BenchmarkScansInFlight
// (in the module's root) is not.
//
//	go test -run XXX -bench BenchmarkQuestionsInFlight -benchtime 2x ./resolver
func BenchmarkQuestionsInFlight(b *testing.B) {
	addr := startSilent(b)
	const n, perScan = 4000, 8
	layers := []string{"client", "cache", "scan"}
	sums := make(map[string]float64, len(layers))
	for b.Loop() {
		for _, layer := range layers {
			sums[layer] += heldInFlight(addr, layer, n, perScan) / n
		}
	}
	for _, layer := range layers {
		b.ReportMetric(sums[layer]/float64(b.N), layer+"-B/question")
	}
}

// heldInFlight starts n questions through layer against the silent
// server at addr and returns the live heap they hold once all are sent.
// It ends them (their context) before it returns.
func heldInFlight(addr, layer string, n, perScan int) float64 {
	c := &resolver.Client{Servers: []string{addr}, Timeout: time.Minute, Attempts: 1}
	cache := resolver.NewCache(c, 64<<20)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("h%d.inflight.test", i)
	}
	scans := make([]*resolver.Scan, 0, n/perScan+1)
	var wg sync.WaitGroup
	wg.Add(n)
	before := liveHeap()
	for i, name := range names {
		switch layer {
		case "client":
			c.StartTTL(ctx, name, resolver.TypeA, func(resolver.Answer, uint32) { wg.Done() })
		case "cache":
			cache.Start(ctx, name, resolver.TypeA, func(resolver.Answer) { wg.Done() })
		default:
			if i%perScan == 0 {
				scans = append(scans, resolver.NewScan(cache, 0))
			}
			scans[len(scans)-1].Start(ctx, name, resolver.TypeA, func(resolver.Answer) { wg.Done() })
		}
	}
	held := liveHeap()
	cancel()
	wg.Wait()
	// The names and the Scans were made before the first reading: they
	// stay live through the second, so that neither counts.
	runtime.KeepAlive(names)
	runtime.KeepAlive(scans)
	return float64(held) - float64(before)
}

// startSilent serves a UDP server on loopback that reads every datagram
// and answers none, until tb ends.
func startSilent(tb testing.TB) string {
	return serveUDP(tb, func(net.PacketConn, []byte, net.Addr) {})
}
