package mailauth

import (
	"context"
	"crypto/x509"
	"net/netip"
	"sync"
	"time"

	"github.com/mailauth/mailauth/redact"
	"github.com/mailauth/mailauth/resolver"
)

// DefaultScanTimeout bounds one scan (issue #6).
const DefaultScanTimeout = 15 * time.Second

// checkGrace is how long a scan waits past its deadline for checks to
// notice it before it reports them as not finished.
const checkGrace = 250 * time.Millisecond

// Config configures a Scanner. The zero value is usable: it resolves
// through the servers of /etc/resolv.conf and fetches MTA-STS policies on
// port 443 with the system roots.
type Config struct {
	// Resolver answers DNS questions. nil means a resolver.Client over
	// DNSServers.
	Resolver resolver.Resolver
	// DNSServers are "host:port" recursive resolvers for the default
	// Resolver; empty means /etc/resolv.conf.
	DNSServers []string
	// HTTPSPort is the port of the MTA-STS policy fetch (lab use); 0 = 443.
	HTTPSPort int
	// RootCAs are the roots trusted by the MTA-STS fetch; nil = system roots.
	RootCAs *x509.CertPool
	// AllowLoopbackTargets lets the MTA-STS fetch reach 127.0.0.0/8 and ::1
	// (lab and test use only). No setting admits any other non-public range.
	AllowLoopbackTargets bool
	// FetchTimeout bounds the MTA-STS policy fetch; 0 = the mtasts default.
	FetchTimeout time.Duration
	// ScanTimeout bounds a whole scan; 0 = DefaultScanTimeout.
	ScanTimeout time.Duration
	// QueryBudget bounds the distinct DNS questions of one scan;
	// 0 = resolver.DefaultBudget.
	QueryBudget int
	// Now is the clock; nil = time.Now.
	Now func() time.Time
	// OnLeak, when set, is called with the number of texts the redaction
	// guard had to replace in one result. It never receives the values.
	OnLeak func(n int)
}

// Scanner runs scans. It is safe for concurrent use.
type Scanner struct {
	cfg Config
}

// New returns a Scanner for cfg.
func New(cfg Config) *Scanner {
	if cfg.Resolver == nil {
		cfg.Resolver = &resolver.Client{Servers: cfg.DNSServers}
	}
	if cfg.ScanTimeout <= 0 {
		cfg.ScanTimeout = DefaultScanTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Scanner{cfg: cfg}
}

// run is the state of one scan or IP check.
type run struct {
	cfg    *Config
	dns    *resolver.Scan
	guard  *redact.Set
	domain Domain
	sel    string
	ip     netip.Addr // invalid when no sending IP was supplied

	mxOnce sync.Once
	mxDone chan struct{} // closed when mxSet and nullMX are set
	mxSet  []string      // MX exchanges for the MTA-STS pattern match; never serialised
	nullMX bool          // the domain publishes a null MX (RFC 7505)
}

func (s *Scanner) newRun() *run {
	guard := redact.NewSet()
	return &run{
		cfg:    &s.cfg,
		dns:    resolver.NewScan(guard.Resolver(s.cfg.Resolver), s.cfg.QueryBudget),
		guard:  guard,
		mxDone: make(chan struct{}),
	}
}

// Scan runs the eight checks for req. The error is an *InputError for an
// invalid request, ErrResolverUnavailable when no DNS server answered, or
// the context's error when ctx ended before the scan could start.
func (s *Scanner) Scan(ctx context.Context, req ScanRequest) (ScanSummary, error) {
	start := s.cfg.Now()
	r := s.newRun()
	if err := r.parseRequest(req); err != nil {
		return ScanSummary{}, err
	}
	if err := ctx.Err(); err != nil {
		return ScanSummary{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ScanTimeout)
	defer cancel()

	checks := r.runChecks(ctx, map[CheckID]checkFunc{
		CheckMX:     r.checkMX,
		CheckSPF:    r.checkSPF,
		CheckDMARC:  r.checkDMARC,
		CheckDKIM:   r.checkDKIM,
		CheckMTASTS: r.checkMTASTS,
		CheckTLSRPT: r.checkTLSRPT,
		CheckPTR:    r.checkPTR,
		CheckCAA:    r.checkCAA,
	})
	if r.resolverUnavailable() {
		return ScanSummary{}, ErrResolverUnavailable
	}
	r.scrub(checks)
	return r.summary(start, s.cfg.Now(), checks), nil
}

// CheckIP checks the PTR records of one public sending IP and their
// forward confirmation. The error is an *InputError for a non-public
// address or ErrResolverUnavailable when no DNS server answered.
func (s *Scanner) CheckIP(ctx context.Context, ip netip.Addr) (PtrCheckSummary, error) {
	start := s.cfg.Now()
	r := s.newRun()
	addr, err := NormalizeSendingIP(ip.String(), MaxSendingIPLenPtr)
	if err != nil {
		return PtrCheckSummary{}, err
	}
	r.ip = addr
	r.guard.Allow(addr.String())
	if err := ctx.Err(); err != nil {
		return PtrCheckSummary{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ScanTimeout)
	defer cancel()
	checks := r.runChecks(ctx, map[CheckID]checkFunc{CheckPTR: r.checkPTR})
	if r.resolverUnavailable() {
		return PtrCheckSummary{}, ErrResolverUnavailable
	}
	r.scrub(checks)
	end := s.cfg.Now()
	return PtrCheckSummary{
		SendingIP:  addr.String(),
		CheckedAt:  end.UTC().Truncate(time.Millisecond),
		DurationMs: end.Sub(start).Milliseconds(),
		Check:      checks[0],
		Disclaimer: txtDisclaimer.with(),
	}, nil
}

// parseRequest normalizes and validates a scan request and fills the
// guard's allowlist with the values a response may echo.
func (r *run) parseRequest(req ScanRequest) error {
	d, err := NormalizeDomain(req.Domain)
	if err != nil {
		return err
	}
	r.domain = d
	r.guard.Allow(d.ASCII, d.Unicode)
	for p := parentOf(d.ASCII); p != ""; p = parentOf(p) {
		r.guard.Allow(p) // a DMARC policy domain is the domain or a parent
	}
	if req.DKIMSelector != "" {
		if err := ValidateSelector(req.DKIMSelector); err != nil {
			return err
		}
		r.sel = req.DKIMSelector
		r.guard.Allow(r.sel)
	}
	if req.SendingIP != "" {
		addr, err := NormalizeSendingIP(req.SendingIP, MaxSendingIPLenScan)
		if err != nil {
			return err
		}
		r.ip = addr
		r.guard.Allow(addr.String())
	}
	return nil
}

func parentOf(name string) string {
	for i := 0; i < len(name); i++ {
		if name[i] == '.' {
			return name[i+1:]
		}
	}
	return ""
}

// resolverUnavailable reports whether the resolver itself failed: at
// least one question was sent and none got a DNS reply — each timed out,
// could not reach a server, or was refused (DESIGN.md section 2).
func (r *run) resolverUnavailable() bool {
	log := r.dns.Log()
	if len(log) == 0 {
		return false
	}
	for _, q := range log {
		switch q.Reason {
		case resolver.ReasonTimeout, resolver.ReasonNetwork, resolver.ReasonRefused:
		default:
			return false
		}
	}
	return true
}

// summary assembles the ScanSummary from the eight verdicts.
func (r *run) summary(start, end time.Time, checks []CheckSummary) ScanSummary {
	sc := score(checks)
	grade := gradeFor(sc)
	counts := countStatuses(checks)
	out := ScanSummary{
		Domain:        r.domain.ASCII,
		UnicodeDomain: r.domain.Unicode,
		ScannedAt:     end.UTC().Truncate(time.Millisecond),
		DurationMs:    max(end.Sub(start).Milliseconds(), 0),
		Score:         sc,
		Grade:         grade,
		Counts:        counts,
		Summary:       overallSummary(grade, counts),
		Checks:        checks,
		Disclaimer:    txtDisclaimer.with(),
	}
	if r.sel != "" {
		sel := r.sel
		out.DKIMSelector = &sel
	}
	if r.ip.IsValid() {
		ip := r.ip.String()
		out.SendingIP = &ip
	}
	return out
}

func overallSummary(g Grade, c StatusCounts) LocalizedText {
	evaluated := c.Pass + c.Warn + c.Fail
	if evaluated == 0 {
		return txtOverallNone.with()
	}
	return overallTexts[g].with(c.Pass, evaluated)
}

// scrub replaces any text that contains a recorded wire value: the
// catalogue words texts from counts only, so a hit is a bug. It is
// counted and reported through OnLeak, never logged with the value.
func (r *run) scrub(checks []CheckSummary) {
	n := 0
	fix := func(t *LocalizedText) {
		if r.guard.Contains(t.ZH) || r.guard.Contains(t.EN) {
			*t = txtInternal.with()
			n++
		}
	}
	for i := range checks {
		fix(&checks[i].Title)
		fix(&checks[i].Summary)
		fix(&checks[i].Details)
	}
	if n > 0 && r.cfg.OnLeak != nil {
		r.cfg.OnLeak(n)
	}
}
