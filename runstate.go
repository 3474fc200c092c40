package mailauth

import (
	"context"

	"errors"
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mailauth/mailauth/internal/report"
	"github.com/mailauth/mailauth/mtasts"
	"github.com/mailauth/mailauth/redact"
	"github.com/mailauth/mailauth/resolver"
)

// checkGrace is how long a scan waits past its deadline for checks to
// notice it before it reports them as not finished.
const checkGrace = 250 * time.Millisecond

// upstream is the resolver below every scan: the shared cache when there
// is one. The liveness probe of resolverUnavailable bypasses it.
func (s *Scanner) upstream() resolver.Resolver {
	if s.cache != nil {
		return s.cache
	}
	return s.cfg.Resolver
}

// run is the state of one scan or IP check. Its steps, in the order a
// scan takes them (ScanEncoded) and the order they are written in:
// parseRequest, runChecks (run.go), finish, summary, encode, stats
// (stats.go).
type run struct {
	cfg    *Config
	dns    *resolver.Scan
	guard  *redact.Set
	domain Domain
	sel    string
	ip     netip.Addr // invalid when no sending IP was supplied
	source string     // the scan context's source tag (WithSource), for OnLeak

	mxOnce   sync.Once
	sessions *mtasts.SessionCache
	mxDone   chan struct{} // closed when mx is set
	mx       mxFacts       // what the mx check found, for mta-sts and tls-rpt
	mxEarly  *earlyDANE    // the MX check's early DANE lookups, when firstMX made them before it ran
	// stsBegun is when firstMTASTS began the policy host's questions, the
	// start of the fetch's time-out (mtasts.Options.Begun); nil when it
	// did not.
	stsBegun atomic.Pointer[time.Time]

	paths map[CheckID]*resolver.Path // each check's critical path; set before the checks start

	probeStart   sync.Once // probeEarly
	probeOnce    sync.Once
	probeOK      bool        // the resolver answered the control question (resolverWorks)
	serviceFault atomic.Bool // a check's lookups failed for the service's resolver
	mxLog        *faultLog   // the MX check's inconclusive answers (checkFuncs)
	logs         []*faultLog // every check's (checkFuncs, before the checks start)

	// dnssecValidating: the service's resolver was found to validate
	// DNSSEC (resolver.Properties, props.go), set before the checks
	// start. Only then may a verdict speak of DNSSEC (a validated
	// answer, a validation failure): through a resolver that does not
	// validate, broken signatures cannot be seen.
	dnssecValidating bool
}

func (s *Scanner) newRun() *run {
	guard := redact.NewSet()
	guard.UseVocabulary(outputVocabulary())
	return &run{
		cfg:      &s.cfg,
		dns:      resolver.NewScan(guard.ScanResolverThen(s.upstream(), noteProgress), s.cfg.QueryBudget),
		guard:    guard,
		sessions: s.sessions,
		mxDone:   make(chan struct{}),

		dnssecValidating: true, // set by the resolver-properties probe
	}
}

// parseRequest normalizes and validates a scan request and fills the
// guard's allowlist with the values a response may echo.
func (r *run) parseRequest(req ScanRequest) error {
	in, err := req.Validate()
	if err != nil {
		return err
	}
	d := in.Domain
	r.domain, r.sel, r.ip = d, in.Selector, in.SendingIP
	r.guard.Allow(d.ASCII, d.Unicode)
	for p := parentOf(d.ASCII); p != ""; p = parentOf(p) {
		r.guard.Allow(p) // a DMARC policy domain is the domain or a parent
	}
	if r.sel != "" {
		r.guard.Allow(r.sel)
	}
	if r.ip.IsValid() {
		r.guard.Allow(r.ip.String())
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

// finish checks what happened around the checks: the caller gave up
// (its context's error), or the resolver itself is unusable
// (ErrResolverUnavailable). Otherwise it runs the redaction guard over the
// verdicts.
func (r *run) finish(parent context.Context, checks []CheckSummary) error {
	r.reportInconclusive()
	if errors.Is(parent.Err(), context.Canceled) {
		return parent.Err()
	}
	if r.serviceFault.Load() || r.resolverUnavailable(parent) {
		return ErrResolverUnavailable
	}
	r.scrub(checks)
	return nil
}

// DefaultControlName is the control question's name when
// Config.ControlName is empty: its SOA is asked to tell a dead resolver
// from one domain whose servers fail, and any DNS reply about it, even
// NXDOMAIN, proves the resolver works. Any working resolver on the
// internet answers it. The command line's spf-eval asks the same.
const DefaultControlName = "com"

// probeName is DefaultControlName, as the package's own code says it.
const probeName = DefaultControlName

// resolverUnavailable reports whether the resolver itself failed: every
// question of the scan got no DNS reply at all (a timeout, no route, a
// refusal, or the scan deadline), and a probe question fails the same way
// (doc/design.md §2: one failing name never fails a scan).
func (r *run) resolverUnavailable(parent context.Context) bool {
	if r.dns.Queries() == 0 || !r.dns.All(func(q resolver.Query) bool { return q.Reason.Transport() }) {
		return false
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), probeTimeout)
	defer cancel()
	return r.cfg.Resolver.Lookup(ctx, r.controlName(), resolver.TypeSOA).Reason.Transport()
}

// probeTimeout bounds the liveness probe of resolverUnavailable.
const probeTimeout = 3 * time.Second

// summary assembles the ScanSummary from the checks' verdicts.
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
		Summary:       overallSummary(grade, counts, undetermined(checks), slowChecks(checks)),
		Checks:        checks,
		Disclaimer:    txtDisclaimer.with(),
	}
	out.Summary = r.nxdomainFirst(oneCauseFirst(out.Summary, checks))
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

func overallSummary(g Grade, c StatusCounts, undetermined, slow int) LocalizedText {
	evaluated := c.Pass + c.Warn + c.Fail
	switch {
	case evaluated == 0:
		return txtOverallNone.with()
	case report.TooIncomplete(evaluated, undetermined) && slow > 0:
		return txtOverallSlow.with(undetermined, evaluated)
	case report.TooIncomplete(evaluated, undetermined):
		return txtOverallIncomplete.with(undetermined, evaluated)
	}
	parts := []LocalizedText{overallTexts[g].with(c.Pass, evaluated)}
	if slow > 0 {
		parts = append(parts, txtOverallSlowSome.with(slow))
	}
	if undetermined > slow {
		parts = append(parts, txtOverallUndetermined.with(undetermined-slow))
	}
	return joinTexts(parts)
}

// undetermined counts the checks whose outcome could not be determined.
func undetermined(checks []CheckSummary) int {
	n := 0
	for _, c := range checks {
		if c.Undetermined() {
			n++
		}
	}
	return n
}

// slowChecks counts the checks that ran out of time (ScanSummary.Slow):
// UndeterminedSlow and UndeterminedTimeout.
func slowChecks(checks []CheckSummary) int {
	n := 0
	for _, c := range checks {
		if c.Determination == UndeterminedSlow || c.Determination == UndeterminedTimeout {
			n++
		}
	}
	return n
}

// scrub replaces the verdict of any check whose texts contain a recorded
// wire value with the not-determined fallback. The catalogue words texts
// from counts only, so a hit in a text made of catalogue sentences alone
// (composedText) is a coincidence a zone chose, not a leak: only a hit in
// any other text, which could really be a leak (a bug), is reported
// through OnLeak, counted, never with the value.
func (r *run) scrub(checks []CheckSummary) {
	r.markChecksGenerated(checks)
	n := 0
	for i, c := range checks {
		if r.leaks(c.Summary) || r.leaks(c.Details) {
			if !composedText(c.Summary) || !composedText(c.Details) {
				n++
			}
			checks[i] = r.fallback(c.ID, UndeterminedInternal).toSummary(c.ID)
		}
	}
	if n > 0 && r.cfg.OnLeak != nil {
		r.cfg.OnLeak(r.source, n)
	}
}

func (r *run) leaks(t LocalizedText) bool { return r.guard.Contains(t.ZH) || r.guard.Contains(t.EN) }

// ErrLeakBlocked means the redaction guard found a recorded wire value in
// a finished result outside the texts it can replace, or could not vouch
// for the result because a value (an MTA-STS policy's text) arrived when
// it was full. The result is withheld; the HTTP service answers 500. The
// first indicates a bug, never a property of the scanned domain, and is
// counted by OnLeak; the second a zone that published more than the
// guard's bound, and is reported through OnGuardFull instead.
var ErrLeakBlocked = errors.New("mailauth: result withheld by the redaction guard")

// encode encodes the result once, as the service sends it
// (report.Encode), and proves those bytes carry no recorded wire value
// (doc/privacy.md: checked before anything is written).
func (r *run) encode(v any) ([]byte, error) {
	body, err := report.Encode(v)
	if err != nil {
		return nil, fmt.Errorf("mailauth: encode result: %w", err)
	}
	if err := r.guard.Verify(body); err != nil {
		switch {
		case errors.Is(err, redact.ErrUnguarded):
			if r.cfg.OnGuardFull != nil {
				r.cfg.OnGuardFull(r.source)
			}
		case r.cfg.OnLeak != nil:
			r.cfg.OnLeak(r.source, 1)
		}
		return nil, ErrLeakBlocked
	}
	return body, nil
}
