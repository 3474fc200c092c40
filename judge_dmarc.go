package mailauth

import (
	"context"

	"github.com/mailauth/mailauth/dmarc"
	"github.com/mailauth/mailauth/resolver"
)

var (
	dmarcPassReject     = rule{status: StatusPass, severity: SeverityInfo, say: msg("DMARC 策略为拒收（reject）：未通过认证的冒用邮件会被拒绝。", "The DMARC policy is reject: mail that fails authentication is refused.")}
	dmarcPassQuarantine = rule{status: StatusPass, severity: SeverityInfo, say: msg("DMARC 策略为隔离（quarantine）：未通过认证的邮件会被放入垃圾邮件箱。", "The DMARC policy is quarantine: mail that fails authentication goes to spam.")}
	dmarcMissing        = rule{status: StatusFail, severity: SeverityHigh, say: msg("没有找到 DMARC 策略，接收方不会拒收冒用该域名的邮件。", "No DMARC policy was found, so receivers do not refuse mail that spoofs the domain.")}
	dmarcNoPolicy       = rule{status: StatusFail, severity: SeverityHigh, say: msg("找到了 DMARC 记录，但没有有效的策略，也没有可用的汇总报告地址，接收方不会对该域名应用 DMARC。", "A DMARC record was found, but it has no valid policy and no usable aggregate-report address, so receivers apply no DMARC to the domain.")}
	dmarcNone           = rule{status: StatusWarn, severity: SeverityMedium, say: msg("DMARC 策略为 none：只收集报告，不会阻止冒用邮件。", "The DMARC policy is none: it only collects reports and does not stop spoofed mail.")}
	dmarcFallback       = rule{status: StatusWarn, severity: SeverityMedium, say: msg("策略标签缺失或无效，由于记录带有有效的汇总报告地址，接收方按 none 处理。", "The policy tag is missing or invalid; because the record has a valid aggregate-report address, receivers treat it as none.")}
	dmarcTestMode       = rule{status: StatusWarn, severity: SeverityMedium, say: msg("记录处于测试模式（t=y），接收方会把策略降低一级执行。", "The record is in test mode (t=y), so receivers apply the policy one level lower.")}
	dmarcLow            = func(zh, en string) rule { return rule{status: StatusWarn, severity: SeverityLow, say: msg(zh, en)} }
	dmarcRules          = map[dmarc.Code]rule{
		dmarc.CodeLegacyPct:            dmarcLow("记录含有 RFC 9989 已删除的 pct 标签；仍遵循旧规范的接收方可能只对部分邮件执行策略。", "The record has the pct tag, removed by RFC 9989; receivers that follow the old specification may apply the policy to only part of the mail."),
		dmarc.CodeDuplicateTag:         dmarcLow("记录中有重复的标签；严格的接收方可能忽略整条记录。", "A tag appears twice; strict receivers may ignore the whole record."),
		dmarc.CodeUppercaseVersionTag:  dmarcLow("版本标签写成了大写 V=，部分接收方不会识别。", "The version tag is written as upper-case V=, which some receivers do not recognise."),
		dmarc.CodeMalformedTag:         dmarcLow("记录中有格式错误的部分，已被忽略。", "Part of the record is malformed and is ignored."),
		dmarc.CodeInvalidADKIM:         dmarcLow("adkim 的取值无效，接收方会使用默认的宽松对齐，或忽略记录。", "The adkim value is invalid; receivers use relaxed alignment or ignore the record."),
		dmarc.CodeInvalidASPF:          dmarcLow("aspf 的取值无效，接收方会使用默认的宽松对齐，或忽略记录。", "The aspf value is invalid; receivers use relaxed alignment or ignore the record."),
		dmarc.CodeInvalidT:             dmarcLow("t 标签的取值无效，按默认值 n 处理。", "The t value is invalid and is treated as the default n."),
		dmarc.CodeInvalidPSD:           dmarcLow("psd 标签的取值无效，按默认值 u 处理。", "The psd value is invalid and is treated as the default u."),
		dmarc.CodeInvalidFO:            dmarcLow("fo 标签的取值无效，按默认值 0 处理。", "The fo value is invalid and is treated as the default 0."),
		dmarc.CodeInvalidRUA:           dmarcLow("有汇总报告地址（rua）格式无效，不会收到发往它的报告。", "An aggregate-report address (rua) is malformed, so no reports go to it."),
		dmarc.CodeInvalidRUF:           dmarcLow("有失败报告地址（ruf）格式无效。", "A failure-report address (ruf) is malformed."),
		dmarc.CodeExternalUnauthorized: dmarcLow("有汇总报告地址属于其他域名，而该域名没有发布授权记录，因此报告不会发送过去。", "An aggregate-report address belongs to another domain that has not published an authorization record, so reports will not be sent there."),
		dmarc.CodeNearerRecordIgnored:  dmarcLow("较近的父域名上有 DMARC 记录，但按 RFC 9989 的规则生效的是更上层的记录。", "A nearer parent domain has a DMARC record, but under RFC 9989 a record higher up takes effect."),
	}
	dmarcNotes = map[dmarc.Code]text{
		dmarc.CodeMultipleRecords:    msg("有名称下存在多条 DMARC 记录，这些记录全部被忽略。", "A name has several DMARC records; all of them are ignored."),
		dmarc.CodeRecordAtApex:       msg("域名本身（而非 _dmarc 子域）上有 DMARC 记录，它不起作用。", "A DMARC record is published at the domain itself instead of under _dmarc, where it has no effect."),
		dmarc.CodePSDPolicy:          msg("生效的是公共后缀运营者发布的策略。", "The policy that applies is the one published by the public-suffix operator."),
		dmarc.CodeExistenceUnknown:   msg("无法确定该域名是否存在，按存在处理（使用 sp 或 p）。", "Whether the domain exists could not be determined, so it is treated as existing (sp or p applies)."),
		dmarc.CodeSizeSuffix:         msg("报告地址带有已废弃的大小后缀（如 !10m），接收方会忽略它。", "A report address has an obsolete size suffix (such as !10m), which receivers ignore."),
		dmarc.CodeUnsupportedScheme:  msg("有报告地址使用了接收方不支持的方案。", "A report address uses a scheme receivers do not support."),
		dmarc.CodeUnknownTag:         msg("记录中有未知标签，已被忽略。", "The record has unknown tags, which are ignored."),
		dmarc.CodeTreeWalkShortcut:   msg("域名层级较深，查询时跳过了部分中间层级的记录。", "The name is deep, so policy discovery skipped some intermediate levels."),
		dmarc.CodeExternalUnverified: msg("有汇总报告地址属于其他域名，无法确认它是否授权接收报告。", "An aggregate-report address belongs to another domain whose authorization could not be confirmed."),
	}
	dmarcFactInherited = msg("策略继承自上级域名的记录。", "The policy is inherited from a parent domain's record.")
	dmarcFactNoRUA     = msg("记录没有有效的汇总报告地址（rua），因此收不到 DMARC 报告。", "The record has no valid aggregate-report address (rua), so no DMARC reports are received.")
)

func (r *run) checkDMARC(ctx context.Context) verdict {
	res := dmarc.Check(ctx, r.dns, r.domain.ASCII)
	d := dmarcDiagnostics(res)
	switch res.Discovery {
	case dmarc.DiscoveryInconclusive:
		return inconclusiveVerdict(d)
	case dmarc.DiscoveryNotFound:
		return judge(dmarcMissing, nil, notes(res.Findings, dmarcNotes), d)
	}
	main := dmarcMain(res)
	applied := append([]rule{main}, rulesFor(res.Findings, dmarcRules, nil)...)
	if res.TestMode && res.Policy != dmarc.PolicyNone && res.Policy != "" {
		applied = append(applied, dmarcTestMode)
	}
	return judge(main, applied, dmarcFacts(res), d)
}

// dmarcMain is the rule for the applied policy.
func dmarcMain(res dmarc.Result) rule {
	switch {
	case res.Policy == "":
		return dmarcNoPolicy
	case res.UsesNoneFallback:
		return dmarcFallback
	case res.Policy == dmarc.PolicyReject:
		return dmarcPassReject
	case res.Policy == dmarc.PolicyQuarantine:
		return dmarcPassQuarantine
	}
	return dmarcNone
}

func dmarcFacts(res dmarc.Result) []LocalizedText {
	var out []LocalizedText
	if res.Inherited {
		out = append(out, dmarcFactInherited.with())
	}
	if !res.AggregateReporting {
		out = append(out, dmarcFactNoRUA.with())
	}
	return append(out, notes(res.Findings, dmarcNotes)...)
}

func dmarcDiagnostics(res dmarc.Result) *DmarcDiagnostics {
	d := &DmarcDiagnostics{
		TreeWalkQueries:    res.TreeWalkQueries,
		ConflictingRecords: res.ConflictingRecords,
		DomainExistence:    strPtr(string(res.DomainExistence)),
	}
	if res.Outcome != resolver.Inconclusive {
		d.DirectRecordCount = intPtr(res.DirectRecordCount)
	}
	switch res.Discovery {
	case dmarc.DiscoveryNotFound:
		d.PolicyFound = boolPtr(false)
	case dmarc.DiscoveryFound:
		d.PolicyFound = boolPtr(true)
		d.PolicyDomain = strPtr(res.PolicyDomain)
		d.Inherited = boolPtr(res.Inherited)
		d.UsesNoneFallback = boolPtr(res.UsesNoneFallback)
		d.TestMode = boolPtr(res.TestMode)
		d.AggregateReporting = boolPtr(res.AggregateReporting)
		d.LegacyPctPresent = boolPtr(res.LegacyPctPresent)
		d.PolicyTag = optStr(string(res.PolicyTag))
		d.Policy = optStr(string(res.Policy))
		d.DKIMAlignment = optStr(string(res.DKIMAlignment))
		d.SPFAlignment = optStr(string(res.SPFAlignment))
	}
	if d.TreeWalkQueries < 1 {
		d.TreeWalkQueries = 1
	}
	return d
}

// optStr is nil for "" (unknown) and a pointer otherwise.
func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
