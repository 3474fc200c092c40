package mailauth

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/mailauth/mailauth/resolver"
)

// Attribution of inconclusive lookups (doc/scoring.md, "Inconclusive
// lookups"). Every check reads DNS through a faultLog, which keeps the
// reasons of the answers that were inconclusive. A check whose verdict is
// undetermined because of a lookup is then judged from the attribution
// (resolver.Reason.Side, and the control question for the reasons whose
// side it leaves open), a typed fact, never from text:
//
//   - the domain's DNS, by the resolver's own word (DNSSEC validation
//     fails; none of its name servers could be used; a SERVFAIL or a
//     REFUSED that the CD test and the control question leave to the
//     domain; a CNAME chain loops or is too long): a fail finding that
//     names the cause, scored like any fail, because every receiver meets
//     the same fault;
//   - slowness (the resolver was still working on the question when the
//     check's time ran out: resolver.ReasonSlow, or a time-out while the
//     control question is answered): a warn finding that says so and
//     asks for another scan, left out of the score; a time-out is never
//     a verdict on the domain;
//   - the service's own resolver (unreachable, filtering, or failing a
//     control question any working resolver answers): the scan fails
//     with ErrResolverUnavailable, which the service answers 500;
//   - no attributable cause (the query budget, a malformed reply, the
//     caller giving up): the check stays undetermined and leaves the score.

// fault is what a check's inconclusive lookups are attributed to: a
// domain-side DNSFault, as CheckSummary.DNSFault carries it, slowness, or
// the service's own resolver, which never reaches a summary (the scan
// fails). faultRank orders them (attribute keeps the worst).
type fault = DNSFault

const (
	faultNone     = NoDNSFault       // nothing attributable
	faultDNSSEC   = DNSFaultDNSSEC   // DNSSEC validation fails
	faultNoAnswer = DNSFaultNoAnswer // name servers refuse, are lame or silent, by the resolver's word
	faultAlias    = DNSFaultAlias    // a CNAME chain loops or is too long
	// faultSlow is slowness: no fault of anyone's, and no DNSFault (a
	// slow check carries UndeterminedSlow instead).
	faultSlow = DNSFaultAlias + 1
	// faultService is the service's own resolver: past every DNSFault.
	faultService = DNSFaultAlias + 2
)

// faultRank orders the faults: a check whose lookups met several is
// judged by the worst (slowness only when nothing worse was said).
var faultRank = map[fault]int{faultNone: 0, faultSlow: 1, faultDNSSEC: 2, faultNoAnswer: 3, faultAlias: 4, faultService: 5}

// faultLog is a Resolver that bounds one check's questions to its share
// of the budget (limit) and notes the inconclusive answers it received,
// and whether the domain's MX answer was DNSSEC-validated.
type faultLog struct {
	limit  *resolver.Limited // nil: no limit
	next   resolver.Resolver // limit's Resolver, asked directly once limit admits a question
	domain string            // the scanned domain, canonical
	// early is the scan whose probeEarly the first inconclusive answer
	// calls: it starts the control question at once, so that its answer
	// is there when the check is judged (a check that waited out the
	// scan's deadline has only the grace period left). nil: none. (A
	// pointer, not the method value, which would cost an allocation per
	// check.)
	early *run

	mu        sync.Mutex
	reasons   []lookupFault
	validated bool // the domain's MX answer carried the AD bit
	// first are the questions the scan began for the check before it
	// ran (beginFirst), and when: the check's own lookup of one is
	// answered by the scan at once, and waited from then.
	first []firstQuestion
}

// firstQuestion is a question begun for a check before it ran.
type firstQuestion struct {
	name  string // canonical
	qtype resolver.Type
	at    time.Time
	// landed is when its answer came (firstAnswered); zero until then.
	// The check's own lookup of it gets that answer from the scan, later,
	// when the check starts: the wait it notes ends here.
	landed time.Time
}

// begun notes that the question name, qtype was begun for the check at
// at, below l (see beginFirst).
func (l *faultLog) begun(name string, qtype resolver.Type, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.first = append(l.first, firstQuestion{name: resolver.CanonicalName(name), qtype: qtype, at: at})
}

// firstAnswered notes that the answer a to the question name, qtype,
// begun for the check before it ran, came at at: the check's wait for it
// ends there (see span), and an inconclusive answer starts the control
// question at once, as the check's own would (note): the check may
// start much later, when the last of its first answers is in.
func (l *faultLog) firstAnswered(name string, qtype resolver.Type, a *resolver.Answer, at time.Time) {
	canon := resolver.CanonicalName(name)
	l.mu.Lock()
	for i := range l.first {
		if q := &l.first[i]; q.qtype == qtype && q.name == canon && q.landed.IsZero() {
			q.landed = at
			break
		}
	}
	l.mu.Unlock()
	if !a.Conclusive() && l.early != nil {
		l.early.probeEarly()
	}
}

// span returns when the check's wait for the answer to canon, qtype,
// asked at start, began and ended: from when it was begun for the check,
// if it was before, to when that answer came, if it had (landed true);
// else from start, to now. The caller holds l.mu.
func (l *faultLog) span(canon string, qtype resolver.Type, start, now time.Time) (from, to time.Time, landed bool) {
	for _, q := range l.first {
		if q.qtype == qtype && q.name == canon && q.at.Before(start) {
			if !q.landed.IsZero() && !q.landed.After(now) {
				return q.at, q.landed, true
			}
			return q.at, now, false
		}
	}
	return start, now, false
}

// lookupFault is one inconclusive answer: its reason, whether the name
// was the scanned domain or one of its subdomains, how long the lookup
// waited, and whether its context's deadline had passed when it ended
// (late: a lookup the scan's deadline cut short, or never let start,
// reports ReasonCanceled from the layers that share questions; it ran
// out of time all the same).
type lookupFault struct {
	reason resolver.Reason
	own    bool
	took   time.Duration
	late   bool
}

// Lookup implements resolver.Resolver.
func (l *faultLog) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	start := time.Now()
	var a resolver.Answer
	if l.limit == nil || l.limit.Admit(name, qtype) { // not the limit's own Lookup: one frame fewer
		a = resolver.Begin(ctx, l.next, name, qtype).Wait()
	} else {
		a = resolver.Fail(resolver.ReasonBudgetExhausted)
	}
	l.note(ctx, name, qtype, &a, start) // on the caller's goroutine: a panic in it is the check's
	return a
}

// Start implements resolver.Starter: the answer is noted when it comes,
// then handed to done.
func (l *faultLog) Start(ctx context.Context, name string, qtype resolver.Type, done func(resolver.Answer)) {
	start := time.Now()
	if l.limit != nil && !l.limit.Admit(name, qtype) { // not the limit's own Lookup: one frame fewer
		a := resolver.Fail(resolver.ReasonBudgetExhausted)
		l.note(ctx, name, qtype, &a, start)
		done(a)
		return
	}
	resolver.Start(ctx, l.next, name, qtype, func(a resolver.Answer) {
		if !l.noteSafely(ctx, name, qtype, &a, start) {
			a = resolver.Fail(resolver.ReasonMalformed)
		}
		done(a)
	})
}

// noteSafely is note, and reports whether it returned: Start's note runs
// on the goroutine that hands the answer on, where a panic would end the
// process; the answer then fails instead.
func (l *faultLog) noteSafely(ctx context.Context, name string, qtype resolver.Type, a *resolver.Answer, start time.Time) (ok bool) {
	defer func() {
		if !ok {
			_ = recover()
		}
	}()
	l.note(ctx, name, qtype, a, start)
	return true
}

// note notes the answer a to a question asked at start. It is not
// inlined, so that its locals are not in Lookup's frame, under which the
// lookup waits.
//
//go:noinline
func (l *faultLog) note(ctx context.Context, name string, qtype resolver.Type, a *resolver.Answer, start time.Time) {
	canon := resolver.CanonicalName(name)
	l.mu.Lock()
	defer l.mu.Unlock()
	if !a.Conclusive() {
		own := l.domain != "" && (canon == l.domain || strings.HasSuffix(canon, "."+l.domain))
		from, to, landed := l.span(canon, qtype, start, time.Now())
		// late: the deadline had passed when the answer came; for a
		// first question, when the scan's answer landed, not when the
		// check, started late by another of its first questions, asked.
		late := pastDeadlineAt(ctx, to)
		if !landed {
			late = late || errors.Is(ctx.Err(), context.DeadlineExceeded)
		}
		l.reasons = append(l.reasons, lookupFault{reason: a.Reason, own: own, took: to.Sub(from), late: late})
		if l.early != nil {
			l.early.probeEarly()
		}
	}
	if qtype == resolver.TypeMX && canon == l.domain && a.Outcome == resolver.Found && a.Authentic {
		l.validated = true
	}
}

// pastDeadlineAt reports whether ctx's deadline had passed at at: a
// lookup asked in the moment between the deadline and its context saying
// so is answered ReasonCanceled at once (resolver.Scan), with ctx.Err()
// still nil; it ran out of time all the same.
func pastDeadlineAt(ctx context.Context, at time.Time) bool {
	d, ok := ctx.Deadline()
	return ok && !at.Before(d)
}

// unlogged returns the resolver l reads through, its limit included,
// without l's notes.
func (l *faultLog) unlogged() resolver.Resolver {
	if l.limit != nil {
		return l.limit
	}
	return l.next
}

// logged returns a copy of the inconclusive answers noted so far.
func (l *faultLog) logged() []lookupFault {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]lookupFault(nil), l.reasons...)
}

// attribution is what attribute concludes of a check's lookups: the
// worst fault, whether every lookup with that fault asked the domain's
// own name, and, for faultSlow, the longest a slow lookup waited.
type attribution struct {
	fault fault
	own   bool
	took  time.Duration
}

// attribute returns the attribution of the check's inconclusive lookups.
// works reports whether the service's resolver answers the control
// question; it is asked whenever a reason leaves the side to it, and
// before a domain-side fault is named, because a resolver that fails even
// the control question (a broken trust anchor: every answer bogus; a
// wrong clock; a dead upstream) says nothing about the domain.
func (l *faultLog) attribute(works func() bool) attribution {
	out := attribution{fault: faultNone, own: true}
	for _, rf := range l.logged() {
		f := rf.fault(works)
		switch {
		case faultRank[f] > faultRank[out.fault]:
			out = attribution{fault: f, own: rf.own, took: rf.took}
		case f == out.fault && f != faultNone:
			out.own = out.own && rf.own
			out.took = max(out.took, rf.took)
		}
	}
	return out
}

// faultOf attributes one reason (see the package's attribution comment
// above): by its resolver.Side when that says it, else by works, the
// control question. Only the resolver's own word makes a reason the
// domain's: a time-out with a working resolver is slowness.
func faultOf(reason resolver.Reason, works func() bool) fault {
	switch reason.Side() {
	case resolver.SideNone:
		if reason == resolver.ReasonSlow {
			return faultSlow
		}
		return faultNone
	case resolver.SideService:
		return faultService
	case resolver.SideUnknown:
		switch reason {
		case resolver.ReasonServFail, resolver.ReasonRefused, resolver.ReasonTimeout:
		default:
			return faultNone // outside resolver.Reasons: nothing to say
		}
	}
	if !works() {
		return faultService
	}
	switch reason {
	case resolver.ReasonDNSSEC:
		return faultDNSSEC
	case resolver.ReasonCNAMELoop, resolver.ReasonCNAMEChain:
		return faultAlias
	case resolver.ReasonTimeout:
		return faultSlow
	}
	return faultNoAnswer
}

// fault attributes one logged answer: faultOf its reason, and slowness
// for one canceled late (its deadline, not its caller, ended it). Any
// other reason keeps its own meaning at the deadline too: a resolver
// that sent garbage (ReasonMalformed) is not the domain's slowness.
func (rf lookupFault) fault(works func() bool) fault {
	if rf.reason == resolver.ReasonCanceled && rf.late {
		return faultSlow
	}
	return faultOf(rf.reason, works)
}

// sideOf is the side a lookup attributed to f is counted on
// (Config.OnInconclusive): the domain for its DNS faults, the service
// for its resolver, none for slowness and the rest.
func sideOf(f fault) resolver.Side {
	switch f {
	case faultDNSSEC, faultNoAnswer, faultAlias:
		return resolver.SideDomain
	case faultService:
		return resolver.SideService
	}
	return resolver.SideNone
}

// The domain-side faults, as findings. The first of each pair is said
// when every failing name is the domain or one of its subdomains, the
// second when a name the domain's records point to (an include target, a
// mail server, the policy host's alias) failed.
var (
	faultRules = map[fault][2]rule{
		faultDNSSEC: {
			{id: "scan.dnssec-bogus", status: StatusFail, severity: SeverityHigh, say: msg("该域名的 DNSSEC 签名无法通过验证：进行 DNSSEC 验证的收件方（多数大型邮箱服务商都会验证）看不到它的任何记录。", "The domain's DNSSEC signatures do not validate: receivers that validate (most large mailbox providers do) see none of its records.")},
			{id: "scan.dnssec-bogus-elsewhere", status: StatusFail, severity: SeverityHigh, say: msg("这项检查依赖的某个名称的 DNSSEC 签名无法通过验证：进行验证的收件方看不到它的记录。", "The DNSSEC signatures of a name this check depends on do not validate: receivers that validate see none of its records.")},
		},
		faultNoAnswer: {
			{id: "scan.no-answer", status: StatusFail, severity: SeverityHigh, say: msg("该域名的域名服务器没有应答（拒绝查询、无响应或响应超时），收件方同样查不到这些记录。", "The domain's name servers do not answer (they refuse, stay silent or answer too late), so receivers cannot read these records either.")},
			{id: "scan.no-answer-elsewhere", status: StatusFail, severity: SeverityHigh, say: msg("这项检查依赖的某个名称的域名服务器没有应答（拒绝查询、无响应或响应超时），收件方同样查不到它。", "The name servers of a name this check depends on do not answer (they refuse, stay silent or answer too late), so receivers cannot read it either.")},
		},
		faultAlias: {
			{id: "scan.alias-broken", status: StatusFail, severity: SeverityHigh, say: msg("该域名的别名（CNAME）链循环或过长，解析器会放弃查询，收件方同样查不到这些记录。", "An alias (CNAME) chain of the domain loops or is too long: resolvers give up on it, so receivers cannot read these records either.")},
			{id: "scan.alias-broken-elsewhere", status: StatusFail, severity: SeverityHigh, say: msg("这项检查依赖的某个名称的别名（CNAME）链循环或过长，解析器会放弃查询。", "An alias (CNAME) chain of a name this check depends on loops or is too long: resolvers give up on it.")},
		},
	}
	faultDetails = msg("本服务的解析器能正常回答其他查询，因此问题出在被查询域名的 DNS 上，而不是本服务；重新扫描不会改变结果，直到问题修复。",
		"The service's resolver answers other questions normally, so the fault lies in the queried domain's DNS, not in this service; scanning again will not change the result until it is fixed.")
	// slowRule leads the verdict of a check whose lookups were still being
	// worked on when its time ran out: a warn, left out of the score.
	slowRule = rule{id: "scan.slow", status: StatusWarn, severity: SeverityMedium, undetermined: true, slow: true, say: msg(
		"该域名的域名服务器应答太慢，本次扫描没有等到结果；超时时间更短的收件方可能什么也查不到。请重新扫描。",
		"The domain's name servers answered too slowly for this scan; receivers with shorter time-outs may see nothing. Scan again.")}
	txtSlowDetails = msg(
		"查询等了 %d 秒以上仍没有应答，而本服务的解析器当时仍在工作（它能回答其他查询）。超时不等于结论：这项检查不计入得分，也不算失败；再次扫描时，解析器通常已经拿到并缓存了这些应答。",
		"The lookup waited over %d s without an answer while the service's resolver was still working on it (it answers other questions). A time-out is not a verdict: the check is left out of the score and not failed; scanned again, the resolver usually has the answers cached.")
	txtDNSSECValidated = msg("该域名的记录已签名，并通过了 DNSSEC 验证。", "The domain's records are DNSSEC-signed and validated.")
)

// faultVerdict is the verdict of a check whose lookups failed for a
// domain-side fault: the cause as a fail. The check's diagnostics are
// kept, and so are its own sentences (what the missing answer left open,
// e.g. "receivers would get a temporary error"), but not the generic
// "could not be determined" ones the cause now replaces.
func faultVerdict(f fault, own bool, v verdict) verdict {
	pair := faultRules[f]
	r := pair[1]
	if own {
		r = pair[0]
	}
	details := []LocalizedText{faultDetails.with()}
	generic := map[LocalizedText]bool{}
	for _, t := range []text{txtInconclusive, txtInconclusiveDetails, txtNotFinishedDetails} {
		generic[t.format()] = true
	}
	for _, t := range append([]LocalizedText{v.summary}, v.details...) {
		if !generic[t] {
			details = append(details, t)
		}
	}
	out := judge(r, nil, details, v.diagnostics)
	out.dnsFault = f
	return out
}

// slowVerdict is the verdict of a check whose lookups were still being
// worked on when its time ran out (took: the longest one waited): the
// slowness as a warn, left out of the score (UndeterminedSlow). The
// check's diagnostics and its own sentences are kept, as in faultVerdict.
func slowVerdict(took time.Duration, v verdict) verdict {
	details := []LocalizedText{txtSlowDetails.with(max(int(took/time.Second), 1))}
	generic := map[LocalizedText]bool{}
	for _, t := range []text{txtInconclusive, txtInconclusiveDetails, txtNotFinishedDetails} {
		generic[t.format()] = true
	}
	for _, t := range append([]LocalizedText{v.summary}, v.details...) {
		if !generic[t] {
			details = append(details, t)
		}
	}
	return judge(slowRule, nil, details, v.diagnostics)
}

// attributionRules are the domain-side fault rules and the slowness
// rule, for the rule catalogue and the developer page.
func attributionRules() []rule {
	var out []rule
	for _, f := range []fault{faultDNSSEC, faultNoAnswer, faultAlias} {
		out = append(out, faultRules[f][0], faultRules[f][1])
	}
	return append(out, slowRule)
}

// faultLog returns the resolver check id reads through: its share of the
// scan's budget, with its inconclusive answers noted. The run keeps
// every log, for reportInconclusive.
func (r *run) faultLog(id CheckID) *faultLog {
	domain := ""
	if r.domain.ASCII != "" {
		domain = resolver.CanonicalName(r.domain.ASCII)
	}
	limit := r.dnsFor(id)
	l := &faultLog{limit: limit, next: limit.Next(), domain: domain, early: r}
	r.logs = append(r.logs, l)
	return l
}

// attributed turns the verdict of a check left undetermined by its
// lookups into the finding its fault calls for, and adds the DNSSEC fact
// to the MX check's details. A fault of the service's resolver is noted
// for finish, which then fails the scan. DNSSEC is spoken of only when
// the resolver validates (r.dnssecValidating): otherwise the MX details
// say nothing of it (an AD bit passed on by a resolver that does not
// validate proves nothing), and a DNSSEC failure the resolver reported
// anyway leaves the check undetermined.
func (r *run) attributed(id CheckID, v verdict, log *faultLog) verdict {
	if v.partial && v.determination == Determined {
		// A finding that some lookups gave no conclusive answer: slowness
		// when they ran out of time, else the finding stands.
		if a := log.attribute(r.resolverWorks); a.fault == faultSlow {
			return slowVerdict(a.took, v)
		}
	}
	if v.determination != UndeterminedLookup {
		if id == CheckMX && log.validated && r.dnssecValidating {
			v.details = append(v.details, txtDNSSECValidated.with())
		}
		return v
	}
	a := log.attribute(r.resolverWorks)
	if a.fault == faultNone && r.mxLog != nil && log != r.mxLog {
		// Undetermined for want of the MX facts (mta-sts, tls-rpt): the
		// MX lookup's fault is this check's too.
		a = r.mxLog.attribute(r.resolverWorks)
	}
	if a.fault == faultDNSSEC && !r.dnssecValidating {
		return v // through a resolver that does not validate, broken signatures cannot be seen
	}
	switch a.fault {
	case faultNone:
		return v
	case faultService:
		r.serviceFault.Store(true)
		return v
	case faultSlow:
		return slowVerdict(a.took, v)
	default:
		return faultVerdict(a.fault, a.own, v)
	}
}

// reportInconclusive calls Config.OnInconclusive once for every
// inconclusive answer the checks received, with the side the verdicts
// used for it (sideOf its fault: the control question's answer included,
// so a resolver with a broken trust anchor counts its bogus answers on
// the service's side, as the scan's 500 does).
func (r *run) reportInconclusive() {
	if r.cfg.OnInconclusive == nil {
		return
	}
	for _, l := range r.logs {
		for _, rf := range l.logged() {
			r.cfg.OnInconclusive(rf.reason, sideOf(rf.fault(r.resolverWorks)))
		}
	}
}

// resolverWorks reports, once per scan, whether the service's resolver
// answers a control question any working resolver answers (the SOA of
// Config.ControlName): any conclusive answer, NXDOMAIN too, proves it
// works. It bypasses the shared cache.
func (r *run) resolverWorks() bool {
	r.probeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		defer cancel()
		r.probeOK = r.cfg.Resolver.Lookup(ctx, r.controlName(), resolver.TypeSOA).Conclusive()
	})
	return r.probeOK
}

// probeEarly starts resolverWorks in the background, once per scan.
func (r *run) probeEarly() {
	r.probeStart.Do(func() { go r.resolverWorks() })
}

// controlName is Config.ControlName, probeName when empty.
func (r *run) controlName() string {
	if r.cfg.ControlName != "" {
		return r.cfg.ControlName
	}
	return probeName
}
