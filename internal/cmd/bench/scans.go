package main

import (
	"context"
	"crypto/x509"
	"sync"
	"time"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/seqscan"
	"github.com/mailauth/mailauth/resolver"
)

// scanPhase is one pass over the domains with the library's Scanner.
type scanPhase struct {
	delay       time.Duration // added to every DNS answer
	concurrency int           // scans at once
	sequential  bool          // checks one after another (the baseline)
	cacheBytes  int           // the shared DNS cache; 0 = none
	limit       int           // scan only the first limit domains; 0 = all
	warm        int           // before measuring, fill the shared cache by scanning this many other domains (the last ones) with no delay
}

// scanResult is what one scan phase measured.
type scanResult struct {
	scans, failed   int
	ratioMedian     float64 // wall / critical-path bound, per scan
	ratioP95        float64
	wallMedian      float64 // ms
	wallP95         float64 // ms
	boundMedian     float64 // ms
	hopsMedian      float64 // round trips on the critical path
	idealMedian     float64 // wall / (hops × delay), per scan
	idealP95        float64
	questions       float64 // distinct questions per scan (below the per-scan dedupe)
	wire            float64 // queries the DNS server received per scan
	hitRate         float64 // of the shared cache
	scansPerSecond  float64
	undeterminedPct float64 // share of checks that could not be determined
}

// newScanner returns a Scanner on the lab, its resolver's properties
// already learned: that probe, asked once by the first scan, is no
// scan's question and must not count in a phase's wire queries.
func (l *lab) newScanner(cacheBytes int, onStats func(mailauth.ScanStats)) *mailauth.Scanner {
	s := mailauth.New(scannerConfig(l.dns.Addr(), l.port, l.roots, cacheBytes, onStats))
	s.ResolverProperties(context.Background())
	return s
}

// scannerConfig is the configuration of every scanner of the bench, in
// this process and in the service process: DNS from the lab's server
// only, the MTA-STS fetch to the lab's HTTPS port with the lab's CA.
func scannerConfig(dns string, httpsPort int, roots *x509.CertPool, cacheBytes int, onStats func(mailauth.ScanStats)) mailauth.Config {
	return mailauth.Config{
		Resolver:             &resolver.Client{Servers: []string{dns}},
		HTTPSPort:            httpsPort,
		RootCAs:              roots,
		AllowLoopbackTargets: true,
		DNSCacheBytes:        cacheBytes,
		OnStats:              onStats,
	}
}

// runScans scans every domain once, p.concurrency at a time.
func (l *lab) runScans(p scanPhase) scanResult {
	var mu sync.Mutex
	var stats []mailauth.ScanStats
	s := l.newScanner(p.cacheBytes, func(st mailauth.ScanStats) {
		mu.Lock()
		stats = append(stats, st)
		mu.Unlock()
	})
	l.warm(s, p.warm, p.limit)
	stats = nil
	cache0 := s.DNSCacheStats()
	l.dns.DelayAll(p.delay)
	defer l.dns.DelayAll(0)
	ctx := context.Background()
	if p.sequential {
		ctx = seqscan.With(ctx)
	}
	var failed, checks, undetermined int
	sent := l.dns.Received()
	start := time.Now()
	work := make(chan domain)
	var wg sync.WaitGroup
	for range p.concurrency {
		wg.Go(func() {
			for d := range work {
				out, err := s.Scan(ctx, mailauth.ScanRequest{Domain: d.name, DKIMSelector: d.selector, SendingIP: d.sendingIP})
				mu.Lock()
				if err != nil {
					failed++
				} else {
					checks += len(out.Checks)
					undetermined += undeterminedChecks(out)
				}
				mu.Unlock()
			}
		})
	}
	domains := l.domains
	if p.limit > 0 && p.limit < len(domains) {
		domains = domains[:p.limit]
	}
	for _, d := range domains {
		work <- d
	}
	close(work)
	wg.Wait()
	elapsed := time.Since(start)
	r := summarize(stats, failed, l.dns.Received()-sent, elapsed, hitRateSince(cache0, s.DNSCacheStats()), checks, undetermined)
	r.idealMedian, r.idealP95 = idealRatios(stats, p.delay)
	return r
}

// warm scans the last n domains one after another, with no delay, so
// that s's shared cache holds what they share with every other domain
// (the providers' include trees, exchanges and report receivers) and
// nothing of the domains measured next (the first limit; 0 = all), which
// it never scans: on a lab smaller than both, it scans fewer. This is the
// state of a service that has been answering for a while. Their figures
// are not kept.
func (l *lab) warm(s *mailauth.Scanner, n, limit int) {
	if limit <= 0 || limit > len(l.domains) {
		limit = len(l.domains)
	}
	for _, d := range l.domains[max(len(l.domains)-n, limit):] {
		_, _ = s.Scan(context.Background(), mailauth.ScanRequest{Domain: d.name, DKIMSelector: d.selector, SendingIP: d.sendingIP})
	}
}

// hitRateSince is the shared cache's hit rate between two readings of
// its counters.
func hitRateSince(before, after resolver.CacheStats) float64 {
	return resolver.CacheStats{
		Hits: after.Hits - before.Hits, Shared: after.Shared - before.Shared, Misses: after.Misses - before.Misses,
	}.HitRate()
}

// undeterminedChecks counts the checks of out that reached no
// conclusion, by the scanner's own typed fact (a bench sanity figure: it
// should be 0).
func undeterminedChecks(out mailauth.ScanSummary) int {
	n := 0
	for _, c := range out.Checks {
		if c.Undetermined() {
			n++
		}
	}
	return n
}

func summarize(stats []mailauth.ScanStats, failed, wire int, elapsed time.Duration, hitRate float64, checks, undetermined int) scanResult {
	r := scanResult{scans: len(stats), failed: failed, hitRate: hitRate}
	if len(stats) == 0 {
		return r
	}
	hops := make([]float64, 0, len(stats))
	ratios := make([]float64, 0, len(stats))
	walls := make([]float64, 0, len(stats))
	bounds := make([]float64, 0, len(stats))
	questions := 0
	for _, st := range stats {
		if st.Bound > 0 {
			ratios = append(ratios, float64(st.Wall)/float64(st.Bound))
		}
		walls = append(walls, ms(st.Wall))
		bounds = append(bounds, ms(st.Bound))
		hops = append(hops, float64(st.Hops))
		questions += st.Questions
	}
	r.ratioMedian, r.ratioP95 = quantile(ratios, 0.5), quantile(ratios, 0.95)
	r.wallMedian, r.wallP95 = quantile(walls, 0.5), quantile(walls, 0.95)
	r.boundMedian, r.hopsMedian = quantile(bounds, 0.5), quantile(hops, 0.5)
	r.questions = float64(questions) / float64(len(stats))
	r.wire = float64(wire) / float64(len(stats))
	r.scansPerSecond = float64(len(stats)) / elapsed.Seconds()
	if checks > 0 {
		r.undeterminedPct = 100 * float64(undetermined) / float64(checks)
	}
	return r
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// idealRatios returns the median and p95 of wall / (hops × delay): the
// scan against the physical limit of its round trips, with nothing for
// CPU, scheduling or the policy fetch's handshakes.
func idealRatios(stats []mailauth.ScanStats, delay time.Duration) (float64, float64) {
	var rs []float64
	for _, st := range stats {
		if st.Hops > 0 && delay > 0 {
			rs = append(rs, float64(st.Wall)/float64(time.Duration(st.Hops)*delay))
		}
	}
	return quantile(rs, 0.5), quantile(rs, 0.95)
}
