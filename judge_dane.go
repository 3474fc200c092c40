package mailauth

import (
	"context"
	"slices"
	"sync"

	"github.com/mailauth/mailauth/dane"
	"github.com/mailauth/mailauth/mx"
	"github.com/mailauth/mailauth/resolver"
)

// DANE for SMTP (RFC 7672) is read by the MX check, which looks up the
// TLSA records of the exchanges it found, and weighed by the MTA-STS
// check, whose question it answers too: do senders know that delivery to
// the domain must be encrypted and authenticated? The MX details state
// the DANE facts; the MTA-STS verdict counts usable DANE as enforced TLS
// and carries the DANE findings (doc/scoring.md, "DANE").

var (
	// stsDANEOnly: no MTA-STS, usable DANE. A pass: DANE is the
	// stronger of the two mechanisms (no trust on first use), and the
	// demanding references (internet.nl) grade mail transport by it.
	stsDANEOnly = rule{id: "mta-sts.dane-only", status: StatusPass, severity: SeverityInfo, say: msg(
		"没有发布 MTA-STS，但所有收件服务器都有可用的 DANE（经 DNSSEC 验证的 TLSA 记录）：支持 DANE 的发件方会强制使用经过认证的 TLS 投递。再发布 MTA-STS，可以让不验证 DNSSEC 的发件方也强制加密。",
		"MTA-STS is not published, but every mail server has usable DANE (DNSSEC-validated TLSA records): DANE-aware senders enforce authenticated TLS when delivering. MTA-STS would add the senders that do not validate DNSSEC.")}
	// stsDANETesting: MTA-STS in testing mode or withdrawn (mode none),
	// usable DANE.
	stsDANETesting = rule{id: "mta-sts.dane-testing", status: StatusPass, severity: SeverityInfo, say: msg(
		"所有收件服务器都有可用的 DANE，支持 DANE 的发件方会强制使用经过认证的 TLS；MTA-STS 没有处于强制模式（enforce），不验证 DNSSEC 的发件方仍可能以未加密方式投递。",
		"Every mail server has usable DANE, which DANE-aware senders enforce with authenticated TLS; MTA-STS is not in enforce mode, so senders that do not validate DNSSEC may still deliver without encryption.")}

	daneRules = map[dane.Code]rule{
		dane.CodeBogus:      {id: "mta-sts.dane-bogus", status: StatusFail, severity: SeverityHigh, say: msg("有收件服务器的 TLSA 记录无法通过 DNSSEC 验证：支持 DANE 的发件方会暂缓向它投递邮件。", "The TLSA records of a mail server fail DNSSEC validation: DANE-aware senders defer mail to that server.")},
		dane.CodeMXUnsigned: {id: "mta-sts.dane-mx-unsigned", status: StatusWarn, severity: SeverityLow, say: msg("收件服务器发布了 TLSA 记录，但该域名的 MX 记录没有经过 DNSSEC 验证，发件方无法依靠 DANE：伪造 MX 记录的攻击者可以把邮件引向别的服务器。", "The mail servers publish TLSA records, but the domain's MX records are not DNSSEC-validated, so senders cannot rely on DANE: an attacker who forges the MX records can lead them to other servers.")},
		dane.CodeUnsigned:   {id: "mta-sts.dane-unsigned", status: StatusWarn, severity: SeverityLow, say: msg("有收件服务器的 TLSA 记录所在的区域没有 DNSSEC 签名，发件方会忽略这些记录。", "The TLSA records of a mail server are in a zone that is not DNSSEC-signed, so senders ignore them.")},
		dane.CodePKIXOnly:   {id: "mta-sts.dane-pkix-only", status: StatusWarn, severity: SeverityLow, say: msg("有收件服务器的 TLSA 记录只使用 PKIX 用法（0 或 1），SMTP 发件方把它们视为不可用（RFC 7672）；应发布 DANE-EE（3）或 DANE-TA（2）记录。", "The TLSA records of a mail server use only the PKIX usages (0 or 1), which SMTP senders treat as unusable (RFC 7672); publish DANE-EE (3) or DANE-TA (2) records.")},
		dane.CodeParameters: {id: "mta-sts.dane-parameters", status: StatusWarn, severity: SeverityLow, say: msg("有 TLSA 记录的用法、选择器或匹配类型未知，或关联数据的长度与匹配类型不符，发件方无法使用它。", "A TLSA record has an unknown usage, selector or matching type, or association data whose length does not fit its matching type, so senders cannot use it.")},
		dane.CodePartial:    {id: "mta-sts.dane-partial", status: StatusWarn, severity: SeverityLow, say: msg("在 %[2]d 台收件服务器中，有 %[1]d 台没有 TLSA 记录，投递到这些服务器的邮件不受 DANE 保护。", "Mail servers without TLSA records: %d of %d; mail delivered to them is not protected by DANE.")},
	}

	daneFactBoth         = msg("DANE 同样可用：支持 DANE 的发件方通过经 DNSSEC 验证的 TLSA 记录认证收件服务器，其他发件方依靠 MTA-STS。", "DANE is usable too: DANE-aware senders authenticate the mail servers through DNSSEC-validated TLSA records, the others rely on MTA-STS.")
	daneFactUnverifiable = msg("收件服务器发布了 TLSA 记录，但本服务无法核验它们的签名，因此这里不判断 DANE 是否可用。", "The mail servers publish TLSA records, but this service cannot verify their signatures, so whether DANE is usable is not judged here.")
	daneFactInconclusive = msg("TLSA 查询没有得到明确结果的收件服务器：%d 台。", "Mail servers whose TLSA lookup gave no conclusive answer: %d.")
	mxFactDANE           = msg("DANE：%[2]d 台收件服务器中有 %[1]d 台发布了经 DNSSEC 验证、发件方可以使用的 TLSA 记录。", "DANE: %d of %d mail servers publish DNSSEC-validated TLSA records that senders can use.")
	mxFactDANEUnverified = msg("DANE：%[2]d 台收件服务器中有 %[1]d 台发布了 TLSA 记录，本服务无法核验它们的签名。", "DANE: %d of %d mail servers publish TLSA records, whose signatures this service cannot verify.")
)

// daneIgnored are the DANE findings without a rule of their own, and why.
var daneIgnored = map[dane.Code]string{
	dane.CodeInconclusive: "a fact (daneFactInconclusive): an unanswered TLSA lookup says nothing about the domain",
}

// daneFacts is what the MX check tells the MTA-STS check about DANE.
type daneFacts struct {
	checked bool // TLSA records were looked up
	// validating: the service's resolver validates DNSSEC, so the AD bit
	// of its answers means something (run.dnssecValidating).
	validating bool
	res        dane.Result
	hosts      []string // the exchanges asked about (earlyDANE); never serialised
}

// usable reports whether DANE-aware senders enforce authenticated TLS to
// every mail server, as far as this service can verify.
func (f daneFacts) usable() bool { return f.checked && f.validating && f.res.Usable() }

// earlyDANE is the DANE lookups checkMX begins before mx.Check has
// its MX answer, so that DANE adds no round trip to the MX check's path:
// the TLSA sets of the exchanges the answer names, or of the domain
// itself when there is no MX record (an implicit MX), begun when the
// answer comes (see watching), on the goroutine that hands it on,
// before mx.Check begins the exchanges' address lookups. No goroutine
// waits on them: finishMX waits for them. They read through the MX
// check's budget but not its fault log: an unanswered TLSA lookup is a
// DANE fact, not a fault of the MX records.
type earlyDANE struct {
	r      *run
	ctx    context.Context
	dns    resolver.Resolver // the MX check's, unlogged
	domain string            // canonical

	once     sync.Once // begins the TLSA lookups (begin)
	facts    daneFacts // without res until wait
	lookups  *dane.Lookups
	panicked any // what begin panicked with; raised again in wait
}

// beginDANEEarly returns the early DANE lookups of a scan's MX check
// (see earlyDANE), none begun yet. Not inlined (see finishMX).
//
//go:noinline
func (r *run) beginDANEEarly(ctx context.Context, dns resolver.Resolver) *earlyDANE {
	if log, ok := dns.(*faultLog); ok {
		dns = log.unlogged()
	}
	return &earlyDANE{r: r, ctx: ctx, dns: dns, domain: resolver.CanonicalName(r.domain.ASCII)}
}

// seen takes mx.Check's MX answer a and begins, once, the TLSA lookups
// of the exchanges it names; none when it names none or is neither
// Found nor NoData. It runs on the goroutine that hands the answer on,
// where a panic would end the process: a panic is kept and raised again
// in wait, on the MX check's goroutine.
func (e *earlyDANE) seen(a resolver.Answer) {
	e.once.Do(func() {
		defer func() {
			if p := recover(); p != nil {
				e.panicked = p
			}
		}()
		e.begin(a)
	})
}

// begin begins the TLSA lookups of the exchanges a names (see seen).
func (e *earlyDANE) begin(a resolver.Answer) {
	hosts := mx.AddressNames(e.domain, a) // the mail servers a sender connects to, as checkDANE asks
	if len(hosts) == 0 {
		return
	}
	validated := a.Outcome == resolver.Found && a.Authentic
	e.facts = daneFacts{checked: true, validating: e.r.dnssecValidating, hosts: hosts}
	e.lookups = dane.Begin(e.ctx, e.dns, hosts, validated)
}

// wait returns the early DANE facts once the TLSA lookups are in; none
// when mx.Check had no MX answer (checkDANE then asks, if it can).
func (e *earlyDANE) wait() daneFacts {
	e.once.Do(func() {}) // nothing begins now; and what seen did is seen
	if e.panicked != nil {
		panic(e.panicked)
	}
	if e.lookups != nil {
		e.facts.res = e.lookups.Wait()
	}
	return e.facts
}

// watching returns dns as mx.Check reads it in checkMX: its answer to
// the domain's MX question begins the early TLSA lookups (seen) before
// it is handed to mx.Check.
func (e *earlyDANE) watching(dns resolver.Resolver) resolver.Resolver {
	return mxWatch{next: dns, e: e}
}

// mxWatch is the resolver mx.Check reads through (see watching). It is
// a Starter, over any Resolver (resolver.Start).
type mxWatch struct {
	next resolver.Resolver
	e    *earlyDANE
}

// Lookup implements resolver.Resolver.
func (w mxWatch) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	return resolver.Begin(ctx, w, name, qtype).Wait()
}

// Start implements resolver.Starter.
func (w mxWatch) Start(ctx context.Context, name string, qtype resolver.Type, done func(resolver.Answer)) {
	if qtype != resolver.TypeMX || resolver.CanonicalName(name) != w.e.domain {
		resolver.Start(ctx, w.next, name, qtype, done)
		return
	}
	resolver.Start(ctx, w.next, name, qtype, func(a resolver.Answer) {
		w.e.seen(a)
		done(a)
	})
}

// checkDANE returns the DANE facts of the exchanges mx found: the early
// lookups' when they were of the same exchanges, else (the two MX answers
// differed) new lookups; none when the domain has no exchange.
func (r *run) checkDANE(ctx context.Context, dns resolver.Resolver, res mx.Result, early daneFacts) daneFacts {
	hosts := res.Exchanges
	if res.Kind == mx.KindExplicit {
		hosts = mx.Resolved(hosts) // IP literals left out: no sender connects to one, and "_25._tcp.192.0.2.1" would be asked of the root
	}
	if res.Kind != mx.KindExplicit && res.Kind != mx.KindImplicit || len(hosts) == 0 {
		return daneFacts{}
	}
	if early.checked && slices.Equal(early.hosts, hosts) && early.res.MXValidated == res.Validated {
		early.hosts = nil
		return early
	}
	if log, ok := dns.(*faultLog); ok {
		dns = log.unlogged()
	}
	return daneFacts{checked: true, validating: r.dnssecValidating, res: dane.Check(ctx, dns, hosts, res.Validated)}
}

// mxDANEFacts are the MX check's sentences about DANE: none when no mail
// server publishes TLSA records.
func mxDANEFacts(f daneFacts) []LocalizedText {
	if !f.checked || !f.res.Published() {
		return nil
	}
	if !f.validating {
		return []LocalizedText{mxFactDANEUnverified.with(f.res.Counts.Published, f.res.Hosts)}
	}
	return []LocalizedText{mxFactDANE.with(f.res.Counts.Usable, f.res.Hosts)}
}

// daneFindings are the DANE rules and facts the MTA-STS verdict carries.
// Without a validating resolver nothing about validation can be said,
// only that DANE could not be verified.
func daneFindings(f daneFacts) ([]rule, []LocalizedText) {
	if !f.checked {
		return nil, nil
	}
	var facts []LocalizedText
	if n := f.res.Counts.Inconclusive; n > 0 {
		facts = append(facts, daneFactInconclusive.with(n))
	}
	if !f.validating {
		if f.res.Published() {
			facts = append(facts, daneFactUnverifiable.with())
		}
		return nil, facts
	}
	c := f.res.Counts
	applied := rulesFor(f.res.Findings, daneRules, map[dane.Code][]int{dane.CodePartial: {c.Absent, f.res.Hosts}})
	return applied, facts
}

// daneCheckRules lists the DANE rules the MTA-STS check may apply, for
// the developer page.
func daneCheckRules() []rule {
	return append([]rule{stsDANEOnly, stsDANETesting}, tableRules(daneRules)...)
}
