package mailauth

import (
	"context"
	"strings"
	"sync"

	"github.com/mailauth/mailauth/resolver"
)

// Attribution of inconclusive lookups (doc/scoring.md, "Inconclusive
// lookups"). Every check reads DNS through a faultLog, which keeps the
// reasons of the answers that were inconclusive. A check whose verdict is
// undetermined because of a lookup is then judged from the attribution
// (resolver.Reason.Side), a typed fact, never from text:
//
//   - the domain's DNS (DNSSEC validation fails; its name servers refuse,
//     do not answer, are lame or slower than the deadline; a CNAME chain
//     loops or is too long): a fail finding that names the cause, scored
//     like any fail, because every receiver meets the same fault;
//   - the service's own resolver (unreachable, refusing us, filtering, or
//     failing a control question any working resolver answers): the scan
//     fails with ErrResolverUnavailable, which the service answers 500;
//   - no attributable cause (the query budget, a malformed reply, the
//     caller giving up): the check stays undetermined and leaves the score.

// fault is what a check's inconclusive lookups are attributed to: a
// domain-side DNSFault, as CheckSummary.DNSFault carries it, or the
// service's own resolver, which never reaches a summary (the scan
// fails). Larger is worse (attribute keeps the worst).
type fault = DNSFault

const (
	faultNone     = NoDNSFault       // nothing attributable
	faultDNSSEC   = DNSFaultDNSSEC   // DNSSEC validation fails
	faultNoAnswer = DNSFaultNoAnswer // name servers refuse, do not answer, are lame or too slow
	faultAlias    = DNSFaultAlias    // a CNAME chain loops or is too long
	// faultService is the service's own resolver: past every DNSFault.
	faultService = DNSFaultAlias + 1
)

// faultLog is a Resolver that notes the inconclusive answers one check
// received, and whether the domain's MX answer was DNSSEC-validated.
type faultLog struct {
	next   resolver.Resolver
	domain string // the scanned domain, canonical
	// early is called on the first inconclusive answer: it starts the
	// control question at once, so that its answer is there when the
	// check is judged (a check that waited out the scan's deadline has
	// only the grace period left).
	early func()
	// inconclusive is Config.OnInconclusive (nil: not set).
	inconclusive func(resolver.Reason)

	mu        sync.Mutex
	reasons   []lookupFault
	validated bool // the domain's MX answer carried the AD bit
}

// lookupFault is one inconclusive answer: its reason, and whether the
// name was the scanned domain or one of its subdomains.
type lookupFault struct {
	reason resolver.Reason
	own    bool
}

// Lookup implements resolver.Resolver.
func (l *faultLog) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	a := l.next.Lookup(ctx, name, qtype)
	if !a.Conclusive() && l.inconclusive != nil {
		l.inconclusive(a.Reason)
	}
	canon := resolver.CanonicalName(name)
	l.mu.Lock()
	defer l.mu.Unlock()
	if !a.Conclusive() {
		own := l.domain != "" && (canon == l.domain || strings.HasSuffix(canon, "."+l.domain))
		l.reasons = append(l.reasons, lookupFault{reason: a.Reason, own: own})
		if l.early != nil {
			l.early()
		}
	}
	if qtype == resolver.TypeMX && canon == l.domain && a.Outcome == resolver.Found && a.Authentic {
		l.validated = true
	}
	return a
}

// attribute returns the fault of the check's inconclusive lookups and
// whether every one attributed was the domain's own name. probe reports
// whether the service's resolver answers the control question; it is
// asked whenever a fault would be named, because a resolver that fails
// even the control question (a broken trust anchor: every answer bogus;
// a wrong clock; a dead upstream) says nothing about the domain.
func (l *faultLog) attribute(probe func() bool) (fault, bool) {
	l.mu.Lock()
	reasons := append([]lookupFault(nil), l.reasons...)
	l.mu.Unlock()
	worst, own := faultNone, true
	for _, rf := range reasons {
		f := faultOf(rf.reason)
		if f == faultService {
			return faultService, false
		}
		if f > worst {
			worst, own = f, rf.own
		} else if f == worst && f != faultNone {
			own = own && rf.own
		}
	}
	if worst != faultNone && !probe() {
		return faultService, false
	}
	return worst, own
}

// faultOf attributes one reason, assuming the service's resolver answers
// the control question (attribute checks). A SERVFAIL or a timeout then
// means the domain's name servers (the CD test already ruled DNSSEC out
// of a SERVFAIL; a resolver that answers other names but not this one is
// not the one failing).
func faultOf(reason resolver.Reason) fault {
	switch reason {
	case resolver.ReasonDNSSEC:
		return faultDNSSEC
	case resolver.ReasonCNAMELoop, resolver.ReasonCNAMEChain:
		return faultAlias
	case resolver.ReasonServFail, resolver.ReasonTimeout:
		return faultNoAnswer
	}
	switch reason.Side() {
	case resolver.SideDomain:
		return faultNoAnswer
	case resolver.SideService:
		return faultService
	}
	return faultNone
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

// attributionRules are the domain-side fault rules, for the rule
// catalogue and the developer page.
func attributionRules() []rule {
	var out []rule
	for _, f := range []fault{faultDNSSEC, faultNoAnswer, faultAlias} {
		out = append(out, faultRules[f][0], faultRules[f][1])
	}
	return out
}

// faultLog returns the resolver check id reads through: its share of the
// scan's budget, with its inconclusive answers noted.
func (r *run) faultLog(id CheckID) *faultLog {
	domain := ""
	if r.domain.ASCII != "" {
		domain = resolver.CanonicalName(r.domain.ASCII)
	}
	return &faultLog{next: r.dnsFor(id), domain: domain, early: r.probeEarly, inconclusive: r.cfg.OnInconclusive}
}

// attributed turns the verdict of a check left undetermined by its
// lookups into the finding its fault calls for, and adds the DNSSEC fact
// to the MX check's details. A fault of the service's resolver is noted
// for finish, which then fails the scan.
func (r *run) attributed(id CheckID, v verdict, log *faultLog) verdict {
	if v.determination != UndeterminedLookup {
		if id == CheckMX && log.validated {
			v.details = append(v.details, txtDNSSECValidated.with())
		}
		return v
	}
	f, own := log.attribute(r.resolverWorks)
	if f == faultNone && r.mxLog != nil && log != r.mxLog {
		// Undetermined for want of the MX facts (mta-sts, tls-rpt): the
		// MX lookup's fault is this check's too.
		f, own = r.mxLog.attribute(r.resolverWorks)
	}
	switch f {
	case faultNone:
		return v
	case faultService:
		r.serviceFault.Store(true)
		return v
	default:
		return faultVerdict(f, own, v)
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
