package mailauth

import (
	"context"
	"testing"
	"time"

	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// BenchmarkScan measures a whole scan of the fully configured domain:
// eight checks, DNS from the in-memory resolver (so the figure is the
// scanner's own cost) and a real HTTPS policy fetch over loopback.
func BenchmarkScan(b *testing.B) {
	lab := testlab.Start(b, []string{scanZone}, policies)
	s := New(Config{
		Resolver: dnstest.NewResolver(dnstest.MustLoad(b, scanZone)), HTTPSPort: lab.HTTPSPort,
		RootCAs: lab.RootCAs, AllowLoopbackTargets: true,
	})
	req := ScanRequest{Domain: "good.example.com", DKIMSelector: "s1", SendingIP: "8.8.8.8"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Scan(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanDelayedDNS is the same scan over the real UDP server with
// 20 ms added to every DNS answer: the wall time shows how much of the
// DNS work runs concurrently (a scan that asked its 13 questions one by
// one would take at least 260 ms).
func BenchmarkScanDelayedDNS(b *testing.B) {
	lab := testlab.Start(b, []string{scanZone}, policies)
	z := dnstest.MustLoad(b, scanZone)
	for _, n := range z.Names() {
		lab.DNS.SetFault(n, dnstest.AnyType, dnstest.Delay(20*time.Millisecond))
	}
	s := New(Config{
		Resolver: lab.DNS.Client(time.Second), HTTPSPort: lab.HTTPSPort,
		RootCAs: lab.RootCAs, AllowLoopbackTargets: true,
	})
	req := ScanRequest{Domain: "good.example.com", DKIMSelector: "s1", SendingIP: "8.8.8.8"}
	for b.Loop() {
		if _, err := s.Scan(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
