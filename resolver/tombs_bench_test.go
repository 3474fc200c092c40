package resolver_test

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// BenchmarkTombstones: what the lookups of the last two seconds hold on
// the heap once they have ended. 4,000 distinct A questions go through a
// Cache over a Client to a dnstest.Server, 50 at a time; each takes a UDP
// answer the Cache keeps, so its query stays registered on its socket as
// a tombstone for two seconds (with the lookup's waiter and the Cache's
// hook), and the socket stays open until its last one goes. The live heap
// is read just after the last lookup and again once every tombstone is
// released and every socket closed: B/lookup is the difference over the
// lookups (the Cache's answers are in both readings). Deterministic where
// BenchmarkScansInFlight (in the module's root) is not: there the
// tombstones held depend on how many scans the run completed.
//
//	go test -run XXX -bench BenchmarkTombstones -benchtime 3x ./resolver
func BenchmarkTombstones(b *testing.B) {
	const n, at = 4000, 50
	var zone strings.Builder
	zone.WriteString("$ORIGIN tomb.test.\n@ SOA ns hostmaster 1 3600 600 86400 300\n")
	for i := range n {
		fmt.Fprintf(&zone, "h%d 300 A 192.0.2.1\n", i)
	}
	srv := dnstest.Start(b, dnstest.MustParse(b, zone.String()))
	var perLookup float64
	for b.Loop() {
		cache := resolver.NewCache(client(srv), 64<<20)
		var next atomic.Int64
		var wg sync.WaitGroup
		for range at {
			wg.Go(func() {
				for i := next.Add(1) - 1; i < n; i = next.Add(1) - 1 {
					a := cache.Lookup(context.Background(), fmt.Sprintf("h%d.tomb.test", i), resolver.TypeA)
					if a.Outcome != resolver.Found {
						b.Errorf("h%d: %+v", i, a) // not FailNow: this is not the benchmark's goroutine
						return
					}
				}
			})
		}
		wg.Wait()
		ended := liveHeap()
		// The tombstones go two seconds after their lookup; a socket
		// closes a second after its last query goes.
		time.Sleep(3500 * time.Millisecond) // a benchmark's wait for the release, never a test's verdict
		released := liveHeap()
		perLookup += (float64(ended) - float64(released)) / n
		runtime.KeepAlive(cache)
	}
	b.ReportMetric(perLookup/float64(b.N), "B/lookup")
}

// liveHeap returns the live heap after two collections.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
