package mailauth

// This file is the package's entry point: a Scanner, made by New from a
// Config, runs a whole scan (Scan) or the check of one sending IP
// (CheckIP). The checks themselves are described in checks.go; how one
// scan runs them is in runstate.go (one scan's state, from its request
// to its encoded result) and run.go (the checks running at once).

import (
	"context"
	"crypto/x509"
	"net/netip"
	"runtime"
	"time"

	"github.com/mailauth/mailauth/internal/gostack"
	"github.com/mailauth/mailauth/mtasts"
	"github.com/mailauth/mailauth/resolver"
)

// DefaultScanTimeout bounds one scan (product choice, doc/design.md §2):
// a check still running then is reported as not finished.
const DefaultScanTimeout = 15 * time.Second

// Config configures a Scanner. The zero value is usable: it resolves
// through the servers of /etc/resolv.conf and fetches MTA-STS policies on
// port 443 with the system roots.
type Config struct {
	// Resolver answers DNS questions. nil means a resolver.Client over
	// DNSServers.
	Resolver resolver.Resolver
	// DNSServers are "host:port" recursive resolvers for the default
	// Resolver; a host without a port ("9.9.9.9", "2620:fe::fe") means
	// port 53. "tls://host[:port]" is one asked over DNS over TLS (RFC
	// 7858; port 853 by default), whose certificate must be valid for
	// host, a name or an IP address. Empty means /etc/resolv.conf.
	DNSServers []string
	// DNSRootCAs verify the certificates of the tls:// DNSServers; nil
	// means the system roots (a test CA is added here).
	DNSRootCAs *x509.CertPool
	// HTTPSPort is the port of the MTA-STS policy fetch (lab use); 0 = 443.
	HTTPSPort int
	// RootCAs are the roots trusted by the MTA-STS fetch; nil = system roots.
	RootCAs *x509.CertPool
	// AllowLoopbackTargets lets the MTA-STS fetch reach 127.0.0.0/8 and ::1
	// (lab and test use only). No setting admits any other non-public range.
	AllowLoopbackTargets bool
	// ControlName is the name whose SOA the scanner asks, bypassing any
	// cache, to tell a broken resolver from a broken domain: a resolver
	// that cannot answer it conclusively (NXDOMAIN counts as an answer)
	// is the service's fault, and the scan fails with
	// ErrResolverUnavailable. Any working resolver answers the default,
	// "com"; a lab whose resolver knows only its own zones names one of
	// them (mailauth serve passes its -canary-name).
	ControlName string
	// FetchTimeout bounds the MTA-STS policy fetch; 0 = the mtasts default.
	FetchTimeout time.Duration
	// ScanTimeout bounds a whole scan; 0 = DefaultScanTimeout.
	ScanTimeout time.Duration
	// QueryBudget bounds the distinct DNS questions of one scan;
	// 0 = resolver.DefaultBudget.
	QueryBudget int
	// DNSCacheBytes, when positive, puts a resolver.Cache of about this
	// many bytes between the scans and Resolver: answers are shared
	// across the Scanner's scans for their TTL (at most
	// resolver.MaxCacheTTL). 0 means no cache shared across scans (each
	// scan still asks a question once).
	DNSCacheBytes int
	// Now is the clock; nil = time.Now.
	Now func() time.Time
	// OnLeak, when set, is called with the number of checks whose texts
	// the redaction guard had to replace in one result, and the source
	// tag of the scan's context ([WithSource]; "" when none), so that a
	// program can limit its alarms per source. It never receives the
	// values.
	OnLeak func(source string, n int)
	// OnGuardFull, when set, is called with the source tag of the scan's
	// context when a result is withheld (ErrLeakBlocked) because a value
	// (an MTA-STS policy's text) arrived when the redaction guard was
	// full: a zone that published more than the guard holds, not a bug,
	// so OnLeak is not called for it. It never receives the values.
	OnGuardFull func(source string)
	// OnPanic, when set, is called with the id of a check that panicked
	// (and was reported as not determined).
	OnPanic func(CheckID)
	// OnInconclusive, when set, is called with the reason of every
	// inconclusive answer a check received (resolver.Reason, a closed
	// set: resolver.Reasons) and the side its verdict was attributed to:
	// SideDomain, SideService, or SideNone for slowness and the
	// unattributed; the control question's answer is included, so the
	// side is the one the verdict used, not only the reason's own. It is
	// called once per answer when the checks have ended (the same
	// question asked by two checks counts twice), from the scan's
	// goroutine, and must return at once. It never receives the name
	// asked.
	OnInconclusive func(resolver.Reason, resolver.Side)
	// OnStats, when set, is called once with the figures of every scan
	// that returns a result (benchmarks use it; see ScanStats).
	OnStats func(ScanStats)
	// stackMoved, when set (BenchmarkScansInFlight sets it), is called
	// with the id of a check whose goroutine's stack moved while the
	// check ran: it outgrew the 8 KiB it reserves at its start.
	stackMoved func(CheckID)
	// noFirst: the checks ask their first questions themselves, as they
	// would without checkSpec.first (TestFirstQuestionsAreTheChecks).
	noFirst bool
	// MaxConcurrentScans bounds the scans and IP checks that run at the
	// same time; more wait, in arrival order, for one to finish. 0 means
	// DefaultMaxConcurrentScans; a negative value means no bound. The
	// wait counts against the caller's context (a scan whose context ends
	// while it waits returns the context's error and costs nothing), not
	// against ScanTimeout: ScanTimeout starts when the scan gets its
	// slot, so a scan that waited still gets its whole time. A program
	// that bounds total time bounds its context. The bound protects the
	// process's memory: each scan in flight holds about 250 KiB (a
	// profile of the service), so 2,000 at once would hold about half a
	// gigabyte. The same measurements saw 2,000 scans at once through the
	// service's DNS client finish half as many scans per second as 500;
	// BenchmarkConcurrentScans, with the in-memory resolver, did not show
	// that collapse (BENCHMARKS.md, "Whole scans").
	MaxConcurrentScans int
}

// DefaultMaxConcurrentScans returns the bound on scans running at once
// that a zero Config.MaxConcurrentScans means: 128 per core the Go
// runtime uses (GOMAXPROCS), at least 64. A scan spends most of its time
// waiting on the network (about 2 ms of CPU for 50–250 ms of round
// trips), so a core is kept busy by about a hundred scans; more than that
// only queues inside the process, holding memory.
func DefaultMaxConcurrentScans() int {
	return max(64, 128*runtime.GOMAXPROCS(0))
}

// Scanner runs scans. It is safe for concurrent use.
type Scanner struct {
	cfg      Config
	cache    *resolver.Cache      // nil without Config.DNSCacheBytes
	sessions *mtasts.SessionCache // TLS sessions of policy hosts, shared by the scans
	slots    chan struct{}        // one element per scan running; nil = no bound
	props    resolverProps        // what the resolver was found to do (props.go)
}

// tlsSessions is how many policy hosts' TLS sessions a Scanner keeps for
// resumption (each for at most mtasts.MaxSessionAge), within
// mtasts.DefaultSessionBytes (2 MiB: a session keeps its host's
// certificate chain, so about 700 of them): a host is fetched again only
// when its domain is scanned again within minutes, and a workload of
// distinct domains never resumes.
const tlsSessions = 1024

// New returns a Scanner for cfg.
func New(cfg Config) *Scanner {
	if cfg.Resolver == nil {
		cfg.Resolver = &resolver.Client{Servers: withDNSPort(cfg.DNSServers), RootCAs: cfg.DNSRootCAs}
	}
	if cfg.ScanTimeout <= 0 {
		cfg.ScanTimeout = DefaultScanTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Scanner{cfg: cfg, sessions: mtasts.NewSessionCache(tlsSessions)}
	switch n := cfg.MaxConcurrentScans; {
	case n == 0:
		s.slots = make(chan struct{}, DefaultMaxConcurrentScans())
	case n > 0:
		s.slots = make(chan struct{}, n)
	}
	if cfg.DNSCacheBytes > 0 {
		s.cache = resolver.NewCache(cfg.Resolver, cfg.DNSCacheBytes)
	}
	return s
}

// DNSCacheStats returns the counters of the cache shared across scans
// (all zero without Config.DNSCacheBytes).
func (s *Scanner) DNSCacheStats() resolver.CacheStats {
	if s.cache == nil {
		return resolver.CacheStats{}
	}
	return s.cache.Stats()
}

// PurgeDNSCache drops every answer of the cache shared across scans
// (resolver.Cache.Purge) and returns how many it dropped; 0 without
// Config.DNSCacheBytes.
func (s *Scanner) PurgeDNSCache() int {
	if s.cache == nil {
		return 0
	}
	return s.cache.Purge()
}

// Scan runs every check of CheckOrder for req. The error is an
// *InputError for an invalid request, ErrResolverUnavailable when the
// service's own resolver failed (see its doc; ErrResolverNotRecursive,
// which wraps it, when the resolver does not offer recursion), or the
// context's error
// when ctx ended before the scan could start (also while it waited for a
// slot, Config.MaxConcurrentScans).
func (s *Scanner) Scan(ctx context.Context, req ScanRequest) (ScanSummary, error) {
	out, _, err := s.scanEncoded(ctx, req)
	if err != nil {
		return ScanSummary{}, err
	}
	return *out, nil
}

// ScanEncoded is Scan that also returns the result's JSON, encoded once
// as the service sends it (report.Encode) and verified by the leak guard:
// the bytes the guard checked are the bytes a server should send. The
// summary comes as a pointer (nil with an error), so that a caller waits
// for the scan without a summary in its frame: the service's handler
// waits under every frame of its middleware, and a smaller wait lets the
// runtime shrink its stack.
func (s *Scanner) ScanEncoded(ctx context.Context, req ScanRequest) (*ScanSummary, []byte, error) {
	return s.scanEncoded(ctx, req)
}

// scanEncoded is ScanEncoded with the summary on the heap. It runs the
// checks in runChecks and concludes in conclude, neither inlined: the
// scan waits for its checks under ScanEncoded's and this frame, which
// hold no summary. The deep work before and after the wait (starting the
// checks, concluding) runs apart (gostack.Apart), so the caller's stack
// does not grow for it.
//
//go:noinline
func (s *Scanner) scanEncoded(ctx context.Context, req ScanRequest) (*ScanSummary, []byte, error) {
	start := s.cfg.Now()
	wallStart := time.Now()
	r := s.newRun()
	r.source = Source(ctx)
	if err := r.parseRequest(req); err != nil {
		return nil, nil, err
	}
	release, err := s.admit(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	parent := ctx
	if err := r.learnResolver(ctx, s); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ScanTimeout)
	defer cancel()

	checks := r.runChecks(ctx, r.checkFuncs(CheckOrder()...))
	return apart(func() (*ScanSummary, []byte, error) { return s.conclude(r, parent, start, wallStart, checks) })
}

// apart runs a scan's conclusion on a goroutine of its own
// (gostack.Apart) and returns what it returned.
func apart[S any](conclude func() (*S, []byte, error)) (*S, []byte, error) {
	var res struct {
		sum  *S
		body []byte
		err  error
	}
	gostack.Apart(func() { res.sum, res.body, res.err = conclude() })
	return res.sum, res.body, res.err
}

// conclude looks at what happened around the checks (run.finish), then
// builds the scan's summary from them and encodes it (see scanEncoded).
// It runs apart (gostack.Apart): the control question that finish may
// ask, the leak guard's search and the JSON encoder go deep, and the
// caller's goroutine (in the service a request's, which lives on with
// its connection) keeps the stack it waited on.
//
//go:noinline
func (s *Scanner) conclude(r *run, parent context.Context, start, wallStart time.Time, checks []CheckSummary) (*ScanSummary, []byte, error) {
	if err := r.finish(parent, checks); err != nil {
		return nil, nil, err
	}
	out := r.summary(start, s.cfg.Now(), checks)
	r.markGenerated(out.ScannedAt, out.Summary, out.Disclaimer)
	body, err := r.encode(out)
	if err != nil {
		return nil, nil, err
	}
	r.stats(wallStart)
	return &out, body, nil
}

// admit waits for a slot among the scans running at once
// (Config.MaxConcurrentScans) and returns the function that gives it
// back; the error is ctx's when ctx ends first (or had ended already).
// Waiting scans are admitted in arrival order (the Go runtime queues a
// channel's blocked senders first in, first out).
func (s *Scanner) admit(ctx context.Context) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.slots == nil {
		return func() {}, nil
	}
	select {
	case s.slots <- struct{}{}:
		return func() { <-s.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ScansRunning returns how many scans and IP checks hold a slot now
// (Config.MaxConcurrentScans), and the bound (0: none).
func (s *Scanner) ScansRunning() (running, bound int) {
	return len(s.slots), cap(s.slots)
}

// CheckIP checks the PTR records of one public sending IP and their
// forward confirmation. The error is an *InputError for a non-public
// address or ErrResolverUnavailable when the service's own resolver
// failed (see its doc).
func (s *Scanner) CheckIP(ctx context.Context, ip netip.Addr) (PTRCheckSummary, error) {
	out, _, err := s.checkIPEncoded(ctx, ip)
	if err != nil {
		return PTRCheckSummary{}, err
	}
	return *out, nil
}

// CheckIPEncoded is CheckIP that also returns the result's JSON, encoded
// once and verified by the leak guard, and the summary as a pointer (nil
// with an error; see ScanEncoded).
func (s *Scanner) CheckIPEncoded(ctx context.Context, ip netip.Addr) (*PTRCheckSummary, []byte, error) {
	return s.checkIPEncoded(ctx, ip)
}

// checkIPEncoded is CheckIPEncoded. It waits for the check under its
// frame, which holds no summary; concludePTR builds it on the heap, apart
// (gostack.Apart) as the check's start is.
//
//go:noinline
func (s *Scanner) checkIPEncoded(ctx context.Context, ip netip.Addr) (*PTRCheckSummary, []byte, error) {
	start := s.cfg.Now()
	r := s.newRun()
	r.source = Source(ctx)
	addr, err := NormalizeSendingIP(ip.String())
	if err != nil {
		return nil, nil, err
	}
	r.ip = addr
	r.guard.Allow(addr.String())
	release, err := s.admit(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	parent := ctx
	if err := r.learnResolver(ctx, s); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ScanTimeout)
	defer cancel()
	checks := r.runChecks(ctx, r.checkFuncs(CheckPTR))
	return apart(func() (*PTRCheckSummary, []byte, error) { return s.concludePTR(r, parent, addr, start, checks) })
}

// concludePTR looks at what happened around the check (run.finish), then
// builds the PTR check's summary from it and encodes it, apart from the
// caller's stack (see checkIPEncoded and conclude).
//
//go:noinline
func (s *Scanner) concludePTR(r *run, parent context.Context, addr netip.Addr, start time.Time, checks []CheckSummary) (*PTRCheckSummary, []byte, error) {
	if err := r.finish(parent, checks); err != nil { // it may replace the check's summary (the leak guard)
		return nil, nil, err
	}
	check := &checks[0]
	end := s.cfg.Now()
	out := PTRCheckSummary{
		SendingIP:  addr.String(),
		CheckedAt:  end.UTC().Truncate(time.Millisecond),
		DurationMs: max(end.Sub(start).Milliseconds(), 0),
		Check:      *check,
		Disclaimer: txtDisclaimer.with(),
	}
	r.markGenerated(out.CheckedAt, out.Disclaimer)
	body, err := r.encode(out)
	if err != nil {
		return nil, nil, err
	}
	return &out, body, nil
}
