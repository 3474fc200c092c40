package mailauth

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/redact"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// BenchmarkScan measures a whole scan of the fully configured domain:
// every check, DNS from the in-memory resolver (so the figure is the
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
		_, err := s.Scan(context.Background(), req)
		require.NoError(b, err)
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
		_, err := s.Scan(context.Background(), req)
		require.NoError(b, err)
	}
}

// BenchmarkGuardRecord records the TXT records of one scan (SPF, DMARC,
// TLS-RPT, an MTA-STS policy) into a fresh redaction Set that uses the
// output vocabulary, as the scanner's guard does for every answer.
func BenchmarkGuardRecord(b *testing.B) {
	v := outputVocabulary()
	texts := []string{
		"v=spf1 ip4:192.0.2.7/24 ip4:198.51.100.0/24 ip6:2001:db8:7::/48 include:_spf7.provider.example.net include:_netblocks.mail.example.org a mx ~all",
		"v=DMARC1; p=reject; sp=quarantine; rua=mailto:dmarc-reports@receiver.example.net,mailto:agg@example.com; ruf=mailto:forensic@example.com; fo=1; adkim=s; aspf=r; pct=100",
		"v=TLSRPTv1; rua=mailto:tlsrpt@receiver.example.net,https://report.example.net/v1/tlsrpt",
		"version: STSv1\nmode: enforce\nmx: mail.example.com\nmx: *.mx.provider.example.net\nmax_age: 604800\n",
	}
	b.ReportAllocs()
	for b.Loop() {
		s := redact.NewSet()
		s.UseVocabulary(v)
		for _, t := range texts {
			s.AddText(t)
		}
	}
}

// concurrentScans is how many scans BenchmarkConcurrentScans starts at
// once (2,000 at once collapsed the library before it had a bound).
const concurrentScans = 2000

// BenchmarkConcurrentScans starts concurrentScans scans at once per
// iteration, with the default Config.MaxConcurrentScans and without a
// bound (-1): DNS from the in-memory resolver with 20 ms added to every
// answer (a scan waits on the network, as in service), the MTA-STS
// policy over loopback HTTPS, the default ScanTimeout. It reports the
// scans finished per second of wall time, the share that came back
// incomplete or failed (past their deadline, mostly), and the wall time
// of the slowest scan.
//
//	go test -run XXX -bench BenchmarkConcurrentScans -benchtime 3x .
func BenchmarkConcurrentScans(b *testing.B) {
	for _, bc := range []struct {
		name  string
		bound int
	}{{"default", 0}, {"unbounded", -1}} {
		b.Run(bc.name, func(b *testing.B) {
			lab := testlab.Start(b, []string{scanZone}, policies)
			r := dnstest.NewResolver(dnstest.MustLoad(b, scanZone))
			for _, n := range dnstest.MustLoad(b, scanZone).Names() {
				r.SetFault(n, dnstest.AnyType, dnstest.Delay(20*time.Millisecond))
			}
			s := New(Config{Resolver: r, HTTPSPort: lab.HTTPSPort, RootCAs: lab.RootCAs,
				AllowLoopbackTargets: true, MaxConcurrentScans: bc.bound})
			req := ScanRequest{Domain: "good.example.com", DKIMSelector: "s1", SendingIP: "8.8.8.8"}
			var total, failed int
			var slowest time.Duration
			for b.Loop() {
				var mu sync.Mutex
				var wg sync.WaitGroup
				for range concurrentScans {
					wg.Go(func() {
						start := time.Now()
						sum, err := s.Scan(context.Background(), req)
						took := time.Since(start)
						mu.Lock()
						defer mu.Unlock()
						total++
						if err != nil || sum.Incomplete() {
							failed++
						}
						slowest = max(slowest, took)
					})
				}
				wg.Wait()
			}
			b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "scans/s")
			b.ReportMetric(100*float64(failed)/float64(max(total, 1)), "%failed")
			b.ReportMetric(slowest.Seconds(), "s-slowest")
		})
	}
}

// hostileSPFZone is a zone whose domain tree.example.com publishes an
// SPF tree of 50 includes (10 at the top, 4 more under each), every
// record a long run of ip4 and ip6 mechanisms: the costliest SPF data a
// hostile zone can make the guard record, within the 10-lookup limit
// and beyond it.
func hostileSPFZone() string {
	var b strings.Builder
	b.WriteString("$ORIGIN example.com.\n$TTL 300\n")
	ips := func(n int) string {
		var s strings.Builder
		for k := range 20 {
			fmt.Fprintf(&s, " ip4:198.51.%d.%d/32 ip6:2001:db8:%x::%x/128", n%250, k, n, k)
		}
		return s.String()
	}
	top := "v=spf1"
	for i := range 10 {
		top += fmt.Sprintf(" include:i%d.tree.example.com", i)
		rec := "v=spf1" + ips(i)
		for j := range 4 {
			rec += fmt.Sprintf(" include:j%d.i%d.tree.example.com", j, i)
			fmt.Fprintf(&b, "j%d.i%d.tree TXT %s\n", j, i, splitTXT("v=spf1"+ips(10+4*i+j)+" -all"))
		}
		fmt.Fprintf(&b, "i%d.tree TXT %s\n", i, splitTXT(rec+" -all"))
	}
	fmt.Fprintf(&b, "tree TXT %s\n", splitTXT(top+" -all"))
	b.WriteString("tree MX 10 mx1.good.example.com.\n_dmarc.tree TXT \"v=DMARC1; p=reject\"\n")
	return b.String()
}

// splitTXT writes s as a TXT record's character-strings of at most 255
// bytes.
func splitTXT(s string) string {
	var parts []string
	for len(s) > 255 {
		parts = append(parts, `"`+s[:255]+`"`)
		s = s[255:]
	}
	return strings.Join(append(parts, `"`+s+`"`), " ")
}

// BenchmarkScanHostileSPF is BenchmarkScan for a domain whose SPF tree
// is hostileSPFZone's, with the in-memory resolver (no shared cache): its
// CPU and allocation per scan against BenchmarkScan's are the price a
// hostile zone can make a scan cost.
//
//	go test -run XXX -bench 'BenchmarkScan$|BenchmarkScanHostileSPF' -benchmem .
func BenchmarkScanHostileSPF(b *testing.B) {
	lab := testlab.Start(b, []string{scanZone}, policies)
	base, err := os.ReadFile(scanZone)
	require.NoError(b, err)
	z, err := dnstest.Parse(string(base)+"\n"+hostileSPFZone(), "example.com.")
	require.NoError(b, err)
	s := New(Config{
		Resolver: dnstest.NewResolver(z), HTTPSPort: lab.HTTPSPort,
		RootCAs: lab.RootCAs, AllowLoopbackTargets: true,
	})
	req := ScanRequest{Domain: "tree.example.com"}
	b.ReportAllocs()
	for b.Loop() {
		_, err := s.Scan(context.Background(), req)
		require.NoError(b, err)
	}
}

// piecesZone returns a domain that does not exist, made of one letter
// (253 bytes: labels of 63, 63, 63 and 57 a's under com), and a zone
// that publishes about 4,000 TXT tokens on its parents' _dmarc names,
// each a piece of the domain (a run of a's, two runs joined by a dot).
// The scan records every token, and the summary names the domain: each
// token occurs there many times, wholly inside the typed domain, where
// the guard must pass over it (redact.Set.Allow).
func piecesZone() (domain, zone string) {
	a := func(n int) string { return strings.Repeat("a", n) }
	var tokens []string
	for k := 4; k <= 63; k++ {
		tokens = append(tokens, a(k))
	}
	for x := 1; x <= 63; x++ {
		for y := 1; y <= 63; y++ {
			tokens = append(tokens, a(x)+"."+a(y))
		}
	}
	return lettersZone(tokens, 250)
}

// onePrefixZone is piecesZone's domain with a zone whose values all
// start with its first 4 bytes: one value of each length from 6 to
// lengths + 5 ("aaaa", then b's, then c), and short ones ("aaaa" and
// three letters). The guard's bounds hold them all, and neither
// comparing the values one by one nor looking up their lengths is cheap
// at a position that starts with "aaaa" (see redact's longChain).
func onePrefixZone(lengths, short int) (domain, zone string) {
	const letters = "bcdefghijklmnopqrstuvwxyz"
	var texts []string
	for k := 1; k <= lengths; k++ {
		texts = append(texts, "aaaa"+strings.Repeat("b", k)+"c")
	}
	for i := range short {
		texts = append(texts, "aaaa"+string(letters[i%25])+string(letters[i/25%25])+string(letters[i/625%25]))
	}
	return lettersZone(texts, 250)
}

// lettersZone returns piecesZone's domain and a zone that publishes
// tokens on its parents' _dmarc names, joined into TXT strings of at
// most max bytes (a longer token is a record of its own, in strings of
// 250 bytes).
func lettersZone(tokens []string, max int) (domain, zone string) {
	a := func(n int) string { return strings.Repeat("a", n) }
	labels := []string{a(63), a(63), a(63), a(57), "com"}
	domain = strings.Join(labels, ".")
	var records []string
	var cur []string
	n := 0
	flush := func() {
		if len(cur) > 0 {
			records = append(records, `"`+strings.Join(cur, " ")+`"`)
		}
		cur, n = nil, 0
	}
	for _, tk := range tokens {
		if len(tk) > max {
			flush()
			records = append(records, splitTXT(tk))
			continue
		}
		if n+len(tk)+1 > max {
			flush()
		}
		cur = append(cur, tk)
		n += len(tk) + 1
	}
	flush()
	var b strings.Builder
	b.WriteString("$ORIGIN com.\n@ SOA ns.com. h.com. 1 3600 600 86400 300\n")
	parents := []string{strings.Join(labels[1:4], "."), strings.Join(labels[2:4], "."), labels[3]}
	for i, r := range records {
		fmt.Fprintf(&b, "_dmarc.%s TXT %s\n", parents[i%len(parents)], r)
	}
	return domain, b.String()
}

// BenchmarkScanDomainPieces is BenchmarkScan for piecesZone's domain:
// the price, against BenchmarkScan's, of a zone that has the guard pass
// over thousands of values sharing their first bytes.
//
//	go test -run XXX -bench 'BenchmarkScan$|BenchmarkScanDomainPieces' -benchmem .
func BenchmarkScanDomainPieces(b *testing.B) {
	domain, zone := piecesZone()
	benchLettersZone(b, domain, zone)
}

// BenchmarkScanOnePrefix is BenchmarkScan for onePrefixZone's domain
// (750 lengths, 7,000 short values): what the guard still costs when a
// zone spends its bounds on one prefix.
//
//	go test -run XXX -bench 'BenchmarkScan$|BenchmarkScanOnePrefix' -benchmem .
func BenchmarkScanOnePrefix(b *testing.B) {
	domain, zone := onePrefixZone(750, 7000)
	benchLettersZone(b, domain, zone)
}

// benchLettersZone scans domain in zone, no leak alarm allowed.
func benchLettersZone(b *testing.B, domain, zone string) {
	z, err := dnstest.Parse(zone, "com.")
	require.NoError(b, err)
	leaks := 0
	s := New(Config{Resolver: dnstest.NewResolver(z), OnLeak: func(_ string, n int) { leaks += n }})
	req := ScanRequest{Domain: domain}
	b.ReportAllocs()
	for b.Loop() {
		_, _, err := s.ScanEncoded(context.Background(), req)
		require.NoError(b, err)
	}
	require.Zero(b, leaks)
}

// BenchmarkGuardRecordHostileSPF records the answers of hostileSPFZone's
// 51 SPF records into a fresh redaction Set that uses the output
// vocabulary, through Set.Resolver, each answer at its lookup: the
// guard's share of BenchmarkScanHostileSPF, without the scan around it.
func BenchmarkGuardRecordHostileSPF(b *testing.B) { benchGuardHostile(b, false) }

// BenchmarkGuardRecordHostileSPFQueued is BenchmarkGuardRecordHostileSPF
// through Set.ScanResolverThen, as a scan records: the answers are queued
// as they arrive, then recorded at once when the Set is first read (Len
// here, Verify in a scan).
func BenchmarkGuardRecordHostileSPFQueued(b *testing.B) { benchGuardHostile(b, true) }

// benchGuardHostile is BenchmarkGuardRecordHostileSPF, through
// Set.ScanResolverThen when queued is set.
func benchGuardHostile(b *testing.B, queued bool) {
	z, err := dnstest.Parse(hostileSPFZone(), "example.com.")
	require.NoError(b, err)
	mem := dnstest.NewResolver(z)
	answers := map[string]resolver.Answer{}
	for _, n := range z.Names() {
		if a := mem.Lookup(context.Background(), n, resolver.TypeTXT); len(a.Records) > 0 {
			answers[n] = a
		}
	}
	require.Len(b, answers, 52)
	v := outputVocabulary()
	next := resolver.Func(func(_ context.Context, name string, _ resolver.Type) resolver.Answer {
		return answers[name]
	})
	b.ReportAllocs()
	for b.Loop() {
		s := redact.NewSet()
		s.UseVocabulary(v)
		r := s.Resolver(next)
		if queued {
			r = s.ScanResolverThen(next, nil)
		}
		for n := range answers {
			r.Lookup(context.Background(), n, resolver.TypeTXT)
		}
		require.Positive(b, s.Len())
		require.False(b, s.Overflowed())
	}
}
