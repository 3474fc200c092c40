package mailauth

import (
	"context"

	"github.com/mailauth/mailauth/mx"
	"github.com/mailauth/mailauth/resolver"
)

var (
	mxPass         = rule{id: "mx.pass", status: StatusPass, severity: SeverityInfo, say: msg("找到 MX 记录，收件服务器都能解析到公网地址。", "MX records were found and every mail server resolves to a public address.")}
	mxNull         = rule{id: "mx.null", status: StatusInfo, severity: SeverityInfo, say: msg("该域名发布了空 MX 记录（RFC 7505），声明不接收邮件。", "The domain publishes a null MX record (RFC 7505): it accepts no mail.")}
	mxImplicit     = rule{id: "mx.implicit", status: StatusWarn, severity: SeverityMedium, say: msg("没有 MX 记录，发件方会退而把邮件投递到域名本身的地址（隐式 MX）。", "There is no MX record, so senders fall back to delivering to the domain's own address (implicit MX).")}
	mxNone         = rule{id: "mx.none", status: StatusFail, severity: SeverityCritical, say: msg("既没有 MX 记录，域名本身也没有 A/AAAA 地址记录，该域名无法接收邮件。", "There is no MX record and the domain has no A or AAAA record, so it cannot receive mail.")}
	mxNXDomain     = rule{id: "mx.nxdomain", status: StatusFail, severity: SeverityCritical, say: msg("该域名在 DNS 中不存在。", "The domain does not exist in the DNS.")}
	mxNoneUsable   = rule{id: "mx.none-usable", status: StatusFail, severity: SeverityCritical, say: msg("没有一台收件服务器可用（名称不存在、没有地址或只有非公网地址），该域名无法接收邮件。", "None of the mail servers is usable (missing names, no address, or only non-public addresses), so the domain cannot receive mail.")}
	mxSomeUnusable = rule{id: "mx.some-unusable", status: StatusWarn, severity: SeverityMedium, say: msg("已检查的 %d 台收件服务器中有 %d 台不可用（名称不存在、没有地址或只有非公网地址）。", "Unusable mail servers: %[2]d of %[1]d (missing names, no address, or only non-public addresses).")}
	mxRules        = map[mx.Code]rule{
		mx.CodeNullMXMixed:          {id: "mx.null-mx-mixed", status: StatusFail, severity: SeverityHigh, say: msg("空 MX 记录与其他 MX 记录同时存在，这是无效的组合。", "A null MX record is published together with other MX records, which is invalid.")},
		mx.CodeNullMXInvalid:        {id: "mx.null-mx-invalid", status: StatusWarn, severity: SeverityMedium, say: msg("空 MX 记录的形式不规范（应为唯一一条优先级为 0 的记录）。", "The null MX record is not in the standard form (exactly one record with preference 0).")},
		mx.CodeExchangeAlias:        {id: "mx.exchange-alias", status: StatusWarn, severity: SeverityLow, say: msg("部分收件服务器的主机名是别名（CNAME），这是 RFC 2181 禁止的，部分发件方会拒绝投递。", "A mail server name is an alias (CNAME), which RFC 2181 forbids; some senders refuse to deliver to it.")},
		mx.CodeExchangeIPLiteral:    {id: "mx.exchange-ip-literal", status: StatusWarn, severity: SeverityMedium, say: msg("部分 MX 记录直接写了 IP 地址而不是主机名，这是无效的。", "An MX record names an IP address instead of a host name, which is invalid.")},
		mx.CodeExchangeNotHostname:  {id: "mx.exchange-not-hostname", status: StatusWarn, severity: SeverityLow, say: msg("部分收件服务器的名称不是合法的主机名。", "A mail server name is not a valid host name.")},
		mx.CodeExchangeIPv6Only:     {id: "mx.exchange-ipv6-only", status: StatusWarn, severity: SeverityLow, say: msg("部分收件服务器只有 IPv6 地址，只支持 IPv4 的发件方无法投递。", "A mail server has only IPv6 addresses, so IPv4-only senders cannot deliver to it.")},
		mx.CodeExchangeDuplicated:   {id: "mx.exchange-duplicated", status: StatusWarn, severity: SeverityLow, say: msg("同一台收件服务器在 MX 记录中出现了多次。", "The same mail server appears in more than one MX record.")},
		mx.CodeExchangeInconclusive: {id: "mx.exchange-inconclusive", status: StatusWarn, severity: SeverityMedium, partial: true, say: msg("有 %d 台收件服务器的地址查询没有得到明确结果。", "Mail servers whose address lookups gave no conclusive answer: %d.")},
		mx.CodeTooManyExchanges:     {id: "mx.too-many-exchanges", status: StatusWarn, severity: SeverityLow, say: msg("收件服务器超过 %d 台，只检查了优先级最高的 %d 台。", "There are more than %d distinct mail servers; only the %d with the lowest preference values were checked.", mx.MaxExchanges, mx.MaxExchanges)},
	}
	mxFactNull     = msg("即使不收邮件，SPF 和 DMARC 仍然重要：它们能阻止他人冒用该域名发信。", "Even without receiving mail, SPF and DMARC still matter: they stop others from sending mail in the domain's name.")
	mxFactImplicit = msg("域名本身的地址记录充当收件服务器；可用：%d 台。", "The domain's own address records stand in as its mail server; usable: %d.")
	mxFactCount    = msg("收件服务器共 %d 台，其中可用 %d 台。", "Mail servers: %d; usable: %d.")
)

func (r *run) checkMX(ctx context.Context, dns resolver.Resolver) verdict {
	defer r.mxOnce.Do(func() { close(r.mxDone) }) // also if mx.Check panics
	early := r.mxEarly                            // begun by firstMX
	if early == nil {
		early = r.beginDANEEarly(ctx, dns)
	}
	res := onHeap(mx.Check, ctx, early.watching(dns), r.domain.ASCII)
	return r.finishMX(ctx, dns, res, early)
}

// finishMX waits for the early DANE lookups, completes the DANE check
// with the MX answer res, notes the MX facts for the checks that wait on
// them and judges. It is not inlined, and mx.Check's result is on the
// heap (onHeap), so that checkMX's frame, under which the MX lookups
// wait, stays small.
//
//go:noinline
func (r *run) finishMX(ctx context.Context, dns resolver.Resolver, res *mx.Result, early *earlyDANE) verdict {
	tlsa := r.checkDANE(ctx, dns, *res, early.wait())
	r.mx = mxFacts{
		known:  res.Kind != mx.KindInconclusive,
		hosts:  res.Exchanges,
		nullMX: res.Kind == mx.KindNull,
		dane:   tlsa,

		nxdomain: res.Kind == mx.KindNXDomain,
	}
	r.mxOnce.Do(func() { close(r.mxDone) })
	v := judgeMX(*res)
	v.details = append(v.details, mxDANEFacts(tlsa)...)
	return v
}

// mxIgnored are the MX findings without a rule of their own, and why.
var mxIgnored = map[mx.Code]string{
	mx.CodeExchangeNXDomain:  "counted in Result.Counts and judged with the other unusable servers (mxSomeUnusable, mxNoneUsable)",
	mx.CodeExchangeNoAddress: "counted in Result.Counts and judged with the other unusable servers (mxSomeUnusable, mxNoneUsable)",
	mx.CodeExchangeNotPublic: "counted in Result.Counts and judged with the other unusable servers (mxSomeUnusable, mxNoneUsable)",
	mx.CodeNoUsableExchange:  "judged by the state rule mxNoneUsable",
}

// judgeMX is the verdict on the facts of an MX check; it does no I/O.
func judgeMX(res mx.Result) verdict {
	switch res.Kind {
	case mx.KindInconclusive:
		return inconclusiveVerdict(nil)
	case mx.KindNXDomain:
		return judge(mxNXDomain, nil, []LocalizedText{mxFactNXDomain.with()}, nil)
	case mx.KindNone:
		return judge(mxNone, nil, []LocalizedText{mxFactNone.with()}, nil)
	case mx.KindNull:
		return judgeState(mxNull, rulesFor(res.Findings, mxRules, nil), []LocalizedText{mxFactNull.with()}, nil)
	}
	c := res.Counts
	applied := rulesFor(res.Findings, mxRules, map[mx.Code][]int{mx.CodeExchangeInconclusive: {c.Inconclusive}})
	if res.Kind == mx.KindImplicit {
		// The domain's own addresses stand in for an exchange (RFC 5321 §5.1).
		if codeSet(res.Findings)[mx.CodeNoUsableExchange] || c.Usable == 0 && c.Inconclusive == 0 {
			applied = append(applied, mxNoneUsable)
		}
		return judgeState(mxImplicit, applied, []LocalizedText{mxFactImplicit.with(c.Usable)}, nil)
	}
	unusable := c.NXDomain + c.NoAddress + c.NotPublic + c.IPLiteral
	if codeSet(res.Findings)[mx.CodeNoUsableExchange] {
		applied = append(applied, mxNoneUsable)
	} else if unusable > 0 {
		some := mxSomeUnusable
		some.args = []int{c.Checked, unusable}
		applied = append(applied, some)
	}
	return judge(mxPass, applied, []LocalizedText{mxFactCount.with(c.Distinct, c.Usable)}, nil)
}

// mxCheckRules lists the check's rules for the developer page: its named
// verdicts and the values of its finding table.
func mxCheckRules() []rule {
	return append([]rule{mxPass, mxNull, mxImplicit, mxNone, mxNXDomain, mxNoneUsable, mxSomeUnusable}, tableRules(mxRules)...)
}
