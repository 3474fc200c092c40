package mailauth

import (
	"context"

	"github.com/mailauth/mailauth/mx"
)

var (
	mxPass         = rule{status: StatusPass, severity: SeverityInfo, say: msg("找到 MX 记录，收件服务器都能解析到公网地址。", "MX records were found and every mail server resolves to a public address.")}
	mxNull         = rule{status: StatusInfo, severity: SeverityInfo, say: msg("该域名发布了空 MX 记录（RFC 7505），声明不接收邮件。", "The domain publishes a null MX record (RFC 7505): it accepts no mail.")}
	mxImplicit     = rule{status: StatusWarn, severity: SeverityMedium, say: msg("没有 MX 记录，发件方会把邮件投递到域名本身的地址；建议明确发布 MX 记录。", "There is no MX record, so senders deliver to the domain's own address; an explicit MX record is recommended.")}
	mxNone         = rule{status: StatusFail, severity: SeverityCritical, say: msg("既没有 MX 记录，域名也没有地址，该域名无法接收邮件。", "There is no MX record and the domain has no address, so it cannot receive mail.")}
	mxNXDomain     = rule{status: StatusFail, severity: SeverityCritical, say: msg("该域名在 DNS 中不存在。", "The domain does not exist in the DNS.")}
	mxNoneUsable   = rule{status: StatusFail, severity: SeverityCritical, say: msg("没有一台收件服务器可用（名称不存在、没有地址或只有非公网地址），该域名无法接收邮件。", "None of the mail servers is usable (missing names, no address, or only non-public addresses), so the domain cannot receive mail.")}
	mxSomeUnusable = rule{status: StatusWarn, severity: SeverityMedium, say: msg("不可用的收件服务器：%[2]d 台，共 %[1]d 台（名称不存在、没有地址或只有非公网地址）。", "Unusable mail servers: %[2]d of %[1]d (missing names, no address, or only non-public addresses).")}
	mxRules        = map[mx.Code]rule{
		mx.CodeNullMXMixed:          {status: StatusFail, severity: SeverityHigh, say: msg("空 MX 记录与其他 MX 记录同时存在，这是无效的组合。", "A null MX record is published together with other MX records, which is invalid.")},
		mx.CodeNullMXInvalid:        {status: StatusWarn, severity: SeverityMedium, say: msg("空 MX 记录的形式不规范（应为唯一一条优先级为 0 的记录）。", "The null MX record is not in the standard form (exactly one record with preference 0).")},
		mx.CodeExchangeAlias:        {status: StatusWarn, severity: SeverityLow, say: msg("有收件服务器的名称是别名（CNAME），这是 RFC 2181 禁止的，部分发件方会拒绝投递。", "A mail server name is an alias (CNAME), which RFC 2181 forbids; some senders refuse to deliver to it.")},
		mx.CodeExchangeIPLiteral:    {status: StatusWarn, severity: SeverityMedium, say: msg("有 MX 记录直接写了 IP 地址而不是主机名，这是无效的。", "An MX record names an IP address instead of a host name, which is invalid.")},
		mx.CodeExchangeNotHostname:  {status: StatusWarn, severity: SeverityLow, say: msg("有收件服务器的名称不是合法的主机名。", "A mail server name is not a valid host name.")},
		mx.CodeExchangeIPv6Only:     {status: StatusWarn, severity: SeverityLow, say: msg("有收件服务器只有 IPv6 地址，只支持 IPv4 的发件方无法投递。", "A mail server has only IPv6 addresses, so IPv4-only senders cannot deliver to it.")},
		mx.CodeExchangeDuplicated:   {status: StatusWarn, severity: SeverityLow, say: msg("同一台收件服务器在 MX 记录中出现了多次。", "The same mail server appears in more than one MX record.")},
		mx.CodeExchangeInconclusive: {status: StatusWarn, severity: SeverityMedium, say: msg("部分收件服务器的地址查询没有得到明确结果。", "Address lookups for some mail servers gave no conclusive answer.")},
		mx.CodeTooManyExchanges:     {status: StatusWarn, severity: SeverityLow, say: msg("MX 记录超过 10 条，只检查了前 10 台服务器。", "There are more than 10 MX records; only the first 10 servers were checked.")},
	}
	mxFactCount = msg("收件服务器：%d 台，其中可用 %d 台。", "Mail servers: %d, of which usable: %d.")
)

func (r *run) checkMX(ctx context.Context) verdict {
	defer r.mxOnce.Do(func() { close(r.mxDone) }) // also if mx.Check panics
	res := mx.Check(ctx, r.dns, r.domain.ASCII)
	r.mxSet, r.nullMX = res.Exchanges, res.Kind == mx.KindNull
	r.mxOnce.Do(func() { close(r.mxDone) })
	switch res.Kind {
	case mx.KindInconclusive:
		return inconclusiveVerdict(nil)
	case mx.KindNXDomain:
		return judge(mxNXDomain, nil, nil, nil)
	case mx.KindNone:
		return judge(mxNone, nil, nil, nil)
	case mx.KindNull:
		return judge(mxNull, rulesFor(res.Findings, mxRules, nil), nil, nil)
	case mx.KindImplicit:
		return judge(mxImplicit, nil, nil, nil)
	}
	c := res.Counts
	applied := rulesFor(res.Findings, mxRules, nil)
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
