package mailauth

import (
	"context"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/tlsrpt"
)

var (
	rptPass    = rule{id: "tls-rpt.pass", status: StatusPass, severity: SeverityInfo, say: msg("已配置 TLS 报告（TLS-RPT），发件方会报告加密投递失败的情况。", "TLS reporting (TLS-RPT) is configured, so senders report failed encrypted deliveries.")}
	rptMissing = rule{id: "tls-rpt.missing", status: StatusFail, severity: SeverityLow, say: msg("没有 TLS-RPT 记录，加密投递失败时不会收到报告。", "There is no TLS-RPT record, so no reports arrive when encrypted delivery fails.")}
	rptNoMail  = rule{id: "tls-rpt.no-mail", status: StatusInfo, severity: SeverityInfo, say: msg("该域名不接收邮件（空 MX），无需 TLS 报告。", "The domain accepts no mail (null MX), so TLS reporting is not needed.")}
	rptInvalid = rule{id: "tls-rpt.invalid", status: StatusFail, severity: SeverityLow, say: msg("TLS-RPT 记录无效或没有可用的报告地址，发件方不会发送报告。", "The TLS-RPT record is invalid or has no usable report address, so senders send no reports.")}
	rptRules   = map[tlsrpt.Code]rule{
		tlsrpt.CodeMultipleRecords:         {id: "tls-rpt.multiple-records", status: StatusFail, severity: SeverityLow, say: msg("找到 %d 条 TLS-RPT 记录；只能有一条，发件方会视为未配置。", "%d TLS-RPT records were found; only one is allowed, so senders treat reporting as not configured.")},
		tlsrpt.CodeSomeInvalidDestinations: {id: "tls-rpt.some-invalid-destinations", status: StatusWarn, severity: SeverityLow, say: msg("部分报告地址无效（只支持 mailto: 和 https:），不会收到发往它们的报告。", "Some report addresses are invalid (only mailto: and https: work), so no reports reach them.")},
		tlsrpt.CodeDuplicateRUA:            {id: "tls-rpt.duplicate-rua", status: StatusWarn, severity: SeverityLow, say: msg("记录中有多个 rua 字段，部分发件方只会读取第一个。", "The record has more than one rua field; some senders read only the first.")},
	}
	rptNotes = map[tlsrpt.Code]text{
		tlsrpt.CodeSyntaxError:          msg("TLS-RPT 记录不符合 RFC 8460 的语法。", "The TLS-RPT record does not follow the RFC 8460 grammar."),
		tlsrpt.CodeMissingRUA:           msg("TLS-RPT 记录缺少 rua 字段。", "The TLS-RPT record has no rua field."),
		tlsrpt.CodeNoValidDestinations:  msg("rua 中没有一个有效的报告地址。", "The rua field has no valid report destination."),
		tlsrpt.CodeHTTPNotAllowed:       msg("部分报告地址使用 http:，TLS-RPT 只接受 https: 和 mailto:。", "Some report destinations use http:, but TLS-RPT accepts only https: and mailto:."),
		tlsrpt.CodeInvalidScheme:        msg("部分报告地址缺少协议方案或使用了不支持的方案。", "Some report destinations have no scheme or an unsupported one."),
		tlsrpt.CodeInvalidMailto:        msg("部分 mailto: 报告地址不是有效的邮箱地址。", "Some mailto: destinations are not valid mailbox addresses."),
		tlsrpt.CodeInvalidHTTPS:         msg("部分 https: 报告地址不是有效的网址。", "Some https: destinations are not valid URLs."),
		tlsrpt.CodeDuplicateDestination: msg("同一个报告地址重复出现，只计一次。", "A report destination is listed twice and counts once."),
	}
	rptFactNoRecord = msg("该域名的 _smtp._tls 名称下没有以 v=TLSRPTv1 开头的 TXT 记录。", "There is no TXT record starting with v=TLSRPTv1 at the domain's _smtp._tls name.")
	rptFactDest     = msg("有效的报告地址共 %d 个（邮件 %d 个，HTTPS %d 个）。", "Valid report destinations: %d (mail: %d, HTTPS: %d).")
)

func (r *run) checkTLSRPT(ctx context.Context, dns resolver.Resolver) verdict {
	res := tlsrpt.Check(ctx, dns, r.domain.ASCII)
	return judgeTLSRPT(res, func() mxFacts { return r.waitMX(ctx) })
}

// beginTLSRPT is checkTLSRPT without a goroutine (checkSpec.begin): the
// _smtp._tls TXT question is started, and its answer judged where it
// comes; with no record there, the judge waits for the MX facts, on a
// goroutine of its own.
func (r *run) beginTLSRPT(ctx context.Context, dns resolver.Resolver, done func(func() verdict, bool)) {
	resolver.Start(ctx, dns, tlsrpt.Name(r.domain.ASCII), resolver.TypeTXT, func(a resolver.Answer) {
		done(func() verdict {
			return judgeTLSRPT(tlsrpt.Evaluate(a), func() mxFacts { return r.waitMX(ctx) })
		}, tlsrpt.HasNone(a))
	})
}

// judgeTLSRPT is the verdict on the facts of a TLS-RPT check; it does no
// I/O. mxs gives the MX facts, asked only when there is no record (to
// tell a domain that accepts no mail).
func judgeTLSRPT(res tlsrpt.Result, mxs func() mxFacts) verdict {
	d := tlsrptDiagnostics(res)
	if res.RecordCount == nil {
		return inconclusiveVerdict(d)
	}
	if *res.RecordCount == 0 {
		return absentVerdict(rptMissing, rptNoMail, rptFactNoRecord, mxs(), d)
	}
	args := map[tlsrpt.Code][]int{tlsrpt.CodeMultipleRecords: {*res.RecordCount}}
	applied := rulesFor(res.Findings, rptRules, args)
	if !*res.Configured && *res.RecordCount == 1 {
		applied = append(applied, rptInvalid)
	}
	facts := append(tlsrptExplain(res), notes(res.Findings, rptNotes)...)
	if *res.Configured {
		facts = append(facts, rptFactDest.with(*res.DestinationCount, *res.MailtoDestinationCount, *res.HTTPSDestinationCount))
	}
	return judge(rptPass, applied, facts, d)
}

func tlsrptDiagnostics(res tlsrpt.Result) *TLSRPTDiagnostics {
	return &TLSRPTDiagnostics{
		RecordCount:            res.RecordCount,
		Configured:             res.Configured,
		DestinationCount:       res.DestinationCount,
		MailtoDestinationCount: res.MailtoDestinationCount,
		HTTPSDestinationCount:  res.HTTPSDestinationCount,
	}
}

// tlsrptCheckRules lists the check's rules for the developer page: its named
// verdicts and the values of its finding table.
func tlsrptCheckRules() []rule {
	return append([]rule{rptPass, rptMissing, rptNoMail, rptInvalid}, tableRules(rptRules)...)
}
