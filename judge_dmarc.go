package mailauth

import (
	"context"

	"github.com/mailauth/mailauth/dmarc"
	"github.com/mailauth/mailauth/resolver"
)

var (
	dmarcPassReject     = rule{id: "dmarc.reject", status: StatusPass, severity: SeverityInfo, say: msg("DMARC 策略为拒收（reject）：未通过认证的冒用邮件会被拒绝。", "The DMARC policy is reject: mail that fails authentication is refused.")}
	dmarcPassQuarantine = rule{id: "dmarc.quarantine", status: StatusPass, severity: SeverityInfo, say: msg("DMARC 策略为隔离（quarantine）：未通过认证的邮件会被放入垃圾邮件箱。", "The DMARC policy is quarantine: mail that fails authentication is quarantined, usually into the spam folder.")}
	dmarcMissing        = rule{id: "dmarc.missing", status: StatusFail, severity: SeverityHigh, say: msg("没有找到 DMARC 策略，接收方不会拒收冒用该域名的邮件。", "No DMARC policy was found, so receivers do not refuse mail that spoofs the domain.")}
	dmarcNoPolicy       = rule{id: "dmarc.no-policy", status: StatusFail, severity: SeverityHigh, say: msg("找到了 DMARC 记录，但没有有效的策略，也没有可用的汇总报告地址，接收方不会对该域名应用 DMARC。", "A DMARC record was found, but it has no valid policy and no usable aggregate-report address, so receivers apply no DMARC to the domain.")}
	dmarcNone           = rule{id: "dmarc.none", status: StatusWarn, severity: SeverityMedium, say: msg("DMARC 策略为 none：只收集报告，不会阻止冒用邮件。", "The DMARC policy is none: it only collects reports and does not stop spoofed mail.")}
	dmarcFallback       = rule{id: "dmarc.fallback", status: StatusWarn, severity: SeverityMedium, say: msg("策略标签缺失或无效，由于记录带有有效的汇总报告地址，接收方按 none 处理。", "The policy tag is missing or invalid; because the record has a valid aggregate-report address, receivers treat it as none.")}
	dmarcTestMode       = rule{id: "dmarc.test-mode", status: StatusWarn, severity: SeverityMedium, say: msg("记录处于测试模式（t=y），接收方会把策略降低一级执行。", "The record is in test mode (t=y), so receivers apply the policy one level lower.")}
	// dmarcRules judge the findings. Those that stop reports from arriving
	// (a malformed rua, a mailbox-less mailto:, an unauthorized external
	// destination) keep a pass a pass but with severity low: they lead
	// the verdict's summary and the page lists them under "Fix first".
	dmarcRules = map[dmarc.Code]rule{
		dmarc.CodeLegacyPct:            warnLow("dmarc.legacy-pct", "记录含有 pct=%d，这是 RFC 9989 已删除的标签：仍遵循旧规范的接收方对未通过 DMARC 的邮件，每 100 封只对其中 %d 封执行策略。", "The record has pct=%d, a tag removed by RFC 9989: receivers that still follow the old specification apply the policy to only %d in 100 messages that fail DMARC."),
		dmarc.CodeDuplicateTag:         warnLow("dmarc.duplicate-tag", "记录中有重复的标签；严格的接收方可能忽略整条记录。", "A tag appears twice; strict receivers may ignore the whole record."),
		dmarc.CodeTagNameCase:          {id: "dmarc.tag-name-case", status: StatusWarn, severity: SeverityMedium, say: msg("记录中有标签名的大小写与规范不符（例如 P=reject）：DMARC 标签名区分大小写，接收方不会把它当作对应的标签，而是直接忽略。", "A tag name is written in another case (such as P=reject): DMARC tag names are case-sensitive, so receivers do not read it as that tag and ignore it.")},
		dmarc.CodeUppercaseVersionTag:  warnLow("dmarc.uppercase-version-tag", "版本标签写成了大写 V=，部分接收方不会识别。", "The version tag is written as upper-case V=, which some receivers do not recognise."),
		dmarc.CodeMalformedTag:         warnLow("dmarc.malformed-tag", "记录中部分内容格式错误，已被忽略。", "Part of the record is malformed and is ignored."),
		dmarc.CodeInvalidADKIM:         warnLow("dmarc.invalid-adkim", "adkim 的取值无效，接收方会使用默认的宽松对齐，或忽略记录。", "The adkim value is invalid; receivers use relaxed alignment or ignore the record."),
		dmarc.CodeInvalidASPF:          warnLow("dmarc.invalid-aspf", "aspf 的取值无效，接收方会使用默认的宽松对齐，或忽略记录。", "The aspf value is invalid; receivers use relaxed alignment or ignore the record."),
		dmarc.CodeInvalidT:             warnLow("dmarc.invalid-t", "t 标签的取值无效，按默认值 n 处理。", "The t value is invalid and is treated as the default n."),
		dmarc.CodeInvalidPSD:           warnLow("dmarc.invalid-psd", "psd 标签的取值无效，按默认值 u 处理。", "The psd value is invalid and is treated as the default u."),
		dmarc.CodeInvalidFO:            warnLow("dmarc.invalid-fo", "fo 标签的取值无效，按默认值 0 处理。", "The fo value is invalid and is treated as the default 0."),
		dmarc.CodeInvalidRUF:           warnLow("dmarc.invalid-ruf", "有失败报告地址（ruf）格式无效。", "A failure-report address (ruf) is malformed."),
		dmarc.CodeNearerRecordIgnored:  warnLow("dmarc.nearer-record-ignored", "较近的上级域名有 DMARC 记录，但按 RFC 9989 的规则，生效的是更上层的记录。", "A nearer parent domain has a DMARC record, but under RFC 9989 a record higher up takes effect."),
		dmarc.CodeSubdomainPolicyNone:  {id: "dmarc.subdomain-policy-none", status: StatusWarn, severity: SeverityMedium, say: msg("该域名自身的策略是拒收或隔离，但 sp=none 让它的子域名不受保护：冒用任何子域名发出的邮件都不会被拦截。", "The domain's own policy is reject or quarantine, but sp=none leaves its subdomains unprotected: mail spoofing any subdomain is not stopped.")},
		dmarc.CodeInvalidRUA:           {id: "dmarc.invalid-rua", status: StatusPass, severity: SeverityLow, say: msg("部分汇总报告地址（rua）格式无效，不会收到发往它们的报告。", "Some aggregate-report addresses (rua) are malformed, so no reports go to them.")},
		dmarc.CodeExternalUnauthorized: {id: "dmarc.external-unauthorized", status: StatusPass, severity: SeverityLow, say: msg("部分汇总报告地址属于其他域名，而该域名没有发布授权记录，因此报告不会发送过去。", "Some aggregate-report addresses belong to another domain that has not published an authorization record, so reports will not be sent there.")},
		dmarc.CodeURINoAddress:         {id: "dmarc.uri-no-address", status: StatusPass, severity: SeverityLow, say: msg("有报告地址只写了 mailto:，没有邮箱：它是合法的 URI（因此缺少有效策略时仍可按 none 处理），但报告无处可发。请在 mailto: 后面写上接收报告的邮箱。", "A report address is just mailto: with no mailbox: it is a valid URI (so it still supplies the none fallback when the policy is missing or invalid), but reports cannot go anywhere. Put the mailbox that receives reports after mailto:.")},
		dmarc.CodeExistenceUnknown:     {id: "dmarc.existence-unknown", status: StatusWarn, severity: SeverityMedium, undetermined: true, say: msg("无法确定该域名是否存在，而上级记录对存在与不存在的子域名规定了不同的策略；此处按存在处理（sp 或 p），实际生效的策略可能不同。", "Whether the domain exists could not be determined, and the parent record sets different policies for existing and non-existent subdomains; it is treated as existing (sp or p), so the policy that really applies may differ.")},
	}
	dmarcNotes = map[dmarc.Code]text{
		dmarc.CodeMultipleRecords:    msg("查询到的某个名称下有多条 DMARC 记录，这些记录全部被忽略。", "A queried name has several DMARC records; all of them are ignored."),
		dmarc.CodeMissingSeparator:   msg("有一条 TXT 记录以 v=DMARC1 开头，但其后的标签之间缺少分号分隔，因此它不是有效的 DMARC 记录，接收方会忽略它。请在 v=DMARC1 和每个标签之后加上分号。", "A TXT record begins with v=DMARC1, but the tags after it are not separated by semicolons, so it is not a valid DMARC record and receivers ignore it. Put a semicolon after v=DMARC1 and after each tag."),
		dmarc.CodeIgnoredRecord:      msg("有 TXT 记录提到了 DMARC，但没有以 v=DMARC1 开头，因此被忽略。", "A TXT record mentions DMARC but does not start with v=DMARC1, so it is ignored."),
		dmarc.CodeInvalidSP:          msg("sp 标签的取值无效，整条记录按缺少有效策略处理。", "The sp value is invalid, so the whole record is treated as having no valid policy."),
		dmarc.CodeInvalidNP:          msg("np 标签的取值无效，整条记录按缺少有效策略处理。", "The np value is invalid, so the whole record is treated as having no valid policy."),
		dmarc.CodeMissingP:           msg("记录缺少策略标签 p=。", "The record has no policy tag p=."),
		dmarc.CodeInvalidP:           msg("策略标签 p= 的取值无效。", "The policy tag p= has an invalid value."),
		dmarc.CodeRecordAtApex:       msg("域名本身（而非 _dmarc 子域）上有 DMARC 记录，它不起作用。", "A DMARC record is published at the domain itself instead of under _dmarc, where it has no effect."),
		dmarc.CodePSDPolicy:          msg("生效的是公共后缀运营者发布的策略。", "The policy that applies is the one published by the public-suffix operator."),
		dmarc.CodeSizeSuffix:         msg("报告地址带有已废弃的大小后缀（如 !10m），接收方会忽略它。", "A report address has an obsolete size suffix (such as !10m), which receivers ignore."),
		dmarc.CodeUnsupportedScheme:  msg("部分报告地址使用了接收方不支持的协议方案。", "Some report addresses use a scheme receivers do not support."),
		dmarc.CodeLegacyPctFull:      msg("记录含有 RFC 9989 已删除的 pct 标签，其值为 100（或无效，按 100 处理），即旧规范的默认值：对全部邮件执行策略，因此没有影响。", "The record has the pct tag, removed by RFC 9989, with the value 100 (or an invalid value, read as 100): the old default, the whole mail stream, so it changes nothing."),
		dmarc.CodeUnknownTag:         msg("记录中有未知标签，已被忽略。", "The record has unknown tags, which are ignored."),
		dmarc.CodeNameTooLong:        msg("该域名太长：“_dmarc.”加上域名超过了 DNS 名称 %d 个字符的上限，这个名称不可能存在，因此该域名自己无法发布 DMARC 记录；查找从它的上级域名继续，策略只能来自上级域名。", "The domain is too long for a record of its own: \"_dmarc.\" followed by the domain exceeds the %d-character limit of a DNS name, so that name cannot exist; discovery went on with the parent domains, and a policy can come only from one of them.", MaxDomainLen),
		dmarc.CodeTreeWalkShortcut:   msg("域名层级较深，查询时跳过了部分中间层级的记录。", "The name is deep, so policy discovery skipped some intermediate levels."),
		dmarc.CodeExternalUnverified: msg("部分汇总报告地址属于其他域名，无法确认对方是否授权接收报告。", "Some aggregate-report addresses belong to another domain whose authorization could not be confirmed."),
	}
	dmarcOwnDiscarded  = rule{id: "dmarc.own-discarded", status: StatusWarn, severity: SeverityMedium, say: msg("该域名自己的 _dmarc 名称下有多条 DMARC 记录，全部被忽略，生效的是上级域名的策略。", "The domain's own _dmarc name has several DMARC records, which are all ignored, so a parent domain's policy applies instead.")}
	dmarcFactDirect    = msg("策略记录发布在该域名自己的 _dmarc 名称下。", "The policy record is published at the domain's own _dmarc name.")
	dmarcFactRUA       = msg("记录请求发送汇总报告（rua）。", "The record asks for aggregate reports (rua).")
	dmarcFactWalk      = msg("在该域名及其上级域名的 _dmarc 名称下都没有找到 DMARC 记录（共查询了 %d 个名称）。", "No DMARC record was found at _dmarc of the domain or of its parent domains (%d names queried).")
	dmarcFactInherited = msg("策略继承自上级域名的记录。", "The policy is inherited from a parent domain's record.")
	dmarcFactBadTag    = msg("记录中第一个有问题的是第 %d 个标签（从 v=DMARC1 之后算起）。", "The first tag with a problem is tag %d, counting from the one after v=DMARC1.")
	dmarcFactNoRUA     = msg("记录没有有效的汇总报告地址（rua），因此收不到 DMARC 报告。", "The record has no valid aggregate-report address (rua), so no DMARC reports are received.")
)

// dmarcIgnored are the DMARC findings without a rule or note, and why.
var dmarcIgnored = map[dmarc.Code]string{
	dmarc.CodeFOWithoutRUF: "fo only shapes failure reports; without ruf it has no effect",
	dmarc.CodeTestMode:     "judged from Result.TestMode by dmarcTestMode, which knows the policy it weakens",
	dmarc.CodeLegacyRF:     "a removed tag receivers ignore; it changes nothing",
	dmarc.CodeLegacyRI:     "a removed tag receivers ignore; it changes nothing",
}

func (r *run) checkDMARC(ctx context.Context, dns resolver.Resolver) verdict {
	return *judgeAt(judgeDMARC, onHeap(dmarc.Check, ctx, dns, r.domain.ASCII))
}

// judgeDMARC is the verdict on the facts of a DMARC check; it does no I/O.
func judgeDMARC(res dmarc.Result) verdict {
	d := dmarcDiagnostics(res)
	switch res.Discovery {
	case dmarc.DiscoveryInconclusive:
		return inconclusiveVerdict(d)
	case dmarc.DiscoveryNotFound:
		facts := append([]LocalizedText{dmarcFactWalk.with(res.TreeWalkQueries)}, notes(res.Findings, dmarcNotes)...)
		return judge(dmarcMissing, nil, facts, d)
	}
	findings := rulesFor(res.Findings, dmarcRules, map[dmarc.Code][]int{dmarc.CodeLegacyPct: {res.LegacyPct, res.LegacyPct}})
	if res.TestMode && res.Policy != dmarc.PolicyNone && res.Policy != "" {
		findings = append(findings, dmarcTestMode)
	}
	if valueOf(res.DirectRecordCount) > 1 {
		findings = append(findings, dmarcOwnDiscarded)
	}
	return judgeState(dmarcMain(res), findings, dmarcFacts(res), d)
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
	} else {
		out = append(out, dmarcFactDirect.with())
	}
	if res.BadTag > 0 {
		out = append(out, dmarcFactBadTag.with(res.BadTag))
	}
	if res.AggregateReporting {
		out = append(out, dmarcFactRUA.with())
	}
	if !res.AggregateReporting && res.Policy != "" && !codeSet(res.Findings)[dmarc.CodeInvalidRUA] {
		out = append(out, dmarcFactNoRUA.with())
	}
	return append(out, notes(res.Findings, dmarcNotes)...)
}

func dmarcDiagnostics(res dmarc.Result) *DMARCDiagnostics {
	d := &DMARCDiagnostics{
		TreeWalkQueries:    res.TreeWalkQueries,
		ConflictingRecords: res.ConflictingRecords,
		DomainExistence:    new(DomainExistence(res.DomainExistence)),
	}
	d.DirectRecordCount = res.DirectRecordCount
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
		d.Policy = optEnum(DMARCPolicy(res.Policy))
		if d.Policy != nil {
			d.PolicyTag = optEnum(DMARCPolicyTag(res.PolicyTag)) // the tag that supplied the applied policy
		}
		d.DKIMAlignment = optEnum(DMARCAlignment(res.DKIMAlignment))
		d.SPFAlignment = optEnum(DMARCAlignment(res.SPFAlignment))
	}
	if d.TreeWalkQueries < 1 {
		d.TreeWalkQueries = 1
	}
	return d
}

// optEnum is nil for "" (unknown) and a pointer otherwise.
func optEnum[E ~string](s E) *E {
	if s == "" {
		return nil
	}
	return &s
}

// dmarcCheckRules lists the check's rules for the developer page: its named
// verdicts and the values of its finding table.
func dmarcCheckRules() []rule {
	return append([]rule{dmarcPassReject, dmarcPassQuarantine, dmarcMissing, dmarcNoPolicy, dmarcNone,
		dmarcFallback, dmarcTestMode, dmarcOwnDiscarded}, tableRules(dmarcRules)...)
}
