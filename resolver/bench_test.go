package resolver_test

import (
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// BenchmarkClientLookupUDP: one A question over loopback UDP to a
// dnstest.Server, decoded into an Answer. cpu-ns/op is the process's CPU
// time (user + system, the server's share included) per exchange.
func BenchmarkClientLookupUDP(b *testing.B) {
	srv := dnstest.Start(b, zones(b))
	c := client(srv)
	ctx := b.Context()
	cpu := startCPU()
	for b.Loop() {
		// Checked before testify is called: boxing the answer would add allocations to the timed loop.
		if a := c.Lookup(ctx, "a.resolver.test", resolver.TypeA); a.Outcome != resolver.Found {
			require.Equal(b, resolver.Found, a.Outcome, "%+v", a)
		}
	}
	b.ReportMetric(float64(cpu())/float64(b.N), "cpu-ns/op")
}

// BenchmarkClientLookupUDPParallel: the same from 8 goroutines at once,
// so that questions share the Client's sockets while in flight.
func BenchmarkClientLookupUDPParallel(b *testing.B) {
	srv := dnstest.Start(b, zones(b))
	c := client(srv)
	ctx := b.Context()
	cpu := startCPU()
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			// Checked before testify is called: boxing the answer would add allocations to the timed loop.
			if a := c.Lookup(ctx, "a.resolver.test", resolver.TypeA); a.Outcome != resolver.Found {
				assert.Equal(b, resolver.Found, a.Outcome, "%+v", a)
			}
		}
	})
	b.ReportMetric(float64(cpu())/float64(b.N), "cpu-ns/op")
}

// BenchmarkClientExchange: the client's side of one exchange, against a
// minimal responder (it echoes each query with the QR bit set: a NODATA
// reply), so that cpu-ns/op is mostly the client's own cost: building,
// sending, receiving, matching and decoding, and (before the shared
// sockets) opening and closing a socket per question.
func BenchmarkClientExchange(b *testing.B) {
	addr := startEcho(b)
	c := &resolver.Client{Servers: []string{addr}, Attempts: 1}
	ctx := b.Context()
	cpu := startCPU()
	for b.Loop() {
		// Checked before testify is called: boxing the answer would add allocations to the timed loop.
		if a := c.Lookup(ctx, "a.resolver.test", resolver.TypeA); a.Outcome != resolver.NoData {
			require.Equal(b, resolver.NoData, a.Outcome, "%+v", a)
		}
	}
	b.ReportMetric(float64(cpu())/float64(b.N), "cpu-ns/op")
}

// BenchmarkClientExchangeParallel: the same from 64 goroutines per P at
// once, as when hundreds of scans are in flight: the send path's locks
// and sockets are shared by all of them.
func BenchmarkClientExchangeParallel(b *testing.B) {
	addr := startEcho(b)
	c := &resolver.Client{Servers: []string{addr}, Timeout: 5 * time.Second}
	ctx := b.Context()
	cpu := startCPU()
	b.SetParallelism(64)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			// Checked before testify is called: boxing the answer would add allocations to the timed loop.
			if a := c.Lookup(ctx, "a.resolver.test", resolver.TypeA); a.Outcome != resolver.NoData {
				assert.Equal(b, resolver.NoData, a.Outcome, "%+v", a)
			}
		}
	})
	b.ReportMetric(float64(cpu())/float64(b.N), "cpu-ns/op")
}

// startEcho serves a UDP responder on loopback that sends every datagram
// back with the QR bit set, until tb ends.
func startEcho(tb testing.TB) string {
	return serveUDP(tb, func(pc net.PacketConn, query []byte, from net.Addr) {
		if len(query) >= 12 {
			query[2] |= 0x80
			_, _ = pc.WriteTo(query, from)
		}
	})
}

// serveUDP serves a UDP server on loopback that hands every datagram it
// reads to handle, until tb ends, and returns its address.
func serveUDP(tb testing.TB, handle func(pc net.PacketConn, datagram []byte, from net.Addr)) string {
	tb.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(tb, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			handle(pc, buf[:n], from)
		}
	}()
	tb.Cleanup(func() {
		_ = pc.Close()
		<-done
	})
	return pc.LocalAddr().String()
}

// startCPU returns a function that reports the process CPU time (user +
// system) spent since startCPU was called (processCPU: 0 where getrusage
// is not available).
func startCPU() func() time.Duration {
	var once sync.Once
	start := processCPU()
	var spent time.Duration
	return func() time.Duration {
		once.Do(func() { spent = processCPU() - start })
		return spent
	}
}

// BenchmarkScanHit: a question the Scan has already answered (the dedupe
// and cache hit path, including the copy of the answer).
func BenchmarkScanHit(b *testing.B) {
	scan := resolver.NewScan(dnstest.NewResolver(zones(b)), 0)
	ctx := b.Context()
	scan.Lookup(ctx, "txt.resolver.test", resolver.TypeTXT)
	b.ReportAllocs()
	for b.Loop() {
		// Checked before testify is called: boxing the answer would add allocations to the timed loop.
		if a := scan.Lookup(ctx, "TXT.resolver.test.", resolver.TypeTXT); a.Outcome != resolver.Found {
			require.Equal(b, resolver.Found, a.Outcome, "%+v", a)
		}
	}
}

// BenchmarkScanHitParallel: the same, from every P at once (contention on
// the Scan's mutex).
func BenchmarkScanHitParallel(b *testing.B) {
	benchHitParallel(b, resolver.NewScan(dnstest.NewResolver(zones(b)), 0), "a.resolver.test", resolver.TypeA)
}

// BenchmarkCacheHitParallel: a question the Cache shared across scans
// already holds, from every P at once (the path a provider's SPF include
// takes in every scan after the first).
func BenchmarkCacheHitParallel(b *testing.B) {
	benchHitParallel(b, resolver.NewCache(dnstest.NewResolver(zones(b)), 0), "txt.resolver.test", resolver.TypeTXT)
}

// benchHitParallel asks r once, then measures the same question asked
// again from every P at once.
func benchHitParallel(b *testing.B, r resolver.Resolver, name string, qtype resolver.Type) {
	ctx := b.Context()
	r.Lookup(ctx, name, qtype)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			// Checked before testify is called: boxing the answer would add allocations to the timed loop.
			if a := r.Lookup(ctx, name, qtype); a.Outcome != resolver.Found {
				assert.Equal(b, resolver.Found, a.Outcome, "%+v", a)
			}
		}
	})
}
