package mailauth

import (
	"context"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/spf"
)

// spfLookupLimit is the constant dnsLookupLimit of the contract
// (RFC 7208 §4.6.4).
const spfLookupLimit = spf.MaxLookups

var (
	spfPass        = rule{id: "spf.pass", status: StatusPass, severity: SeverityInfo, say: msg("SPF 记录有效，并以 -all 或 ~all 结尾：未列出的服务器会得到失败或软失败结果。", "The SPF record is valid and ends in -all or ~all, so servers it does not list get a fail or soft fail.")}
	spfSyntax      = rule{id: "spf.syntax", status: StatusFail, severity: SeverityHigh, say: msg("SPF 记录有语法错误，接收方会将其视为永久错误（permerror）。", "The SPF record has a syntax error; receivers treat it as a permanent error (permerror).")}
	spfSubRecord   = rule{id: "spf.include-invalid", status: StatusFail, severity: SeverityHigh, say: msg("include 或 redirect 引用的域名没有唯一有效的 SPF 记录，接收方会将其视为永久错误。", "An include or redirect points to a domain without exactly one valid SPF record; receivers treat this as a permanent error.")}
	spfSubUnknown  = rule{id: "spf.include-inconclusive", status: StatusWarn, severity: SeverityMedium, undetermined: true, say: msg("部分 include 或 redirect 引用的记录没有查到明确结果，策略未能完整展开；接收方此时会得到临时错误（temperror）。", "Some include or redirect targets gave no conclusive answer, so the policy could not be expanded completely; receivers would get a temporary error (temperror).")}
	spfTermUnknown = rule{id: "spf.term-inconclusive", status: StatusWarn, severity: SeverityMedium, undetermined: true, say: msg("部分 a、mx 或 exists 机制的 DNS 查询没有得到明确结果，接收方此时会得到临时错误（temperror）。", "Some a, mx or exists lookups gave no conclusive answer; receivers would get a temporary error (temperror).")}
	spfRules       = map[spf.Code]rule{
		spf.CodeNoRecord:                {id: "spf.no-record", status: StatusFail, severity: SeverityHigh, say: msg("没有 SPF 记录，接收方无法判断哪些服务器可以代表该域名发信。", "There is no SPF record, so receivers cannot tell which servers may send mail for the domain.")},
		spf.CodeMultipleRecords:         {id: "spf.multiple-records", status: StatusFail, severity: SeverityHigh, say: msg("找到 %d 条 SPF 记录；一个域名只能有一条，接收方会将其视为永久错误。", "%d SPF records were found; a domain may publish only one, and receivers treat this as a permanent error.")},
		spf.CodeSyntaxVersion:           spfSyntax,
		spf.CodeSyntaxCharacter:         spfSyntax,
		spf.CodeSyntaxUnknownMechanism:  spfSyntax,
		spf.CodeSyntaxMissingDomain:     spfSyntax,
		spf.CodeSyntaxDomainSpec:        spfSyntax,
		spf.CodeSyntaxMacro:             spfSyntax,
		spf.CodeSyntaxIP4:               spfSyntax,
		spf.CodeSyntaxIP6:               spfSyntax,
		spf.CodeSyntaxCIDR:              spfSyntax,
		spf.CodeSyntaxArgument:          spfSyntax,
		spf.CodeSyntaxDuplicateModifier: spfSyntax,
		spf.CodeSyntaxModifier:          spfSyntax,
		spf.CodeIncludeNoRecord:         spfSubRecord,
		spf.CodeIncludeMultiple:         spfSubRecord,
		spf.CodeIncludeInvalid:          spfSubRecord,
		spf.CodeRedirectNoRecord:        spfSubRecord,
		spf.CodeRedirectMultiple:        spfSubRecord,
		spf.CodeRedirectInvalid:         spfSubRecord,
		spf.CodeIncludeInconclusive:     spfSubUnknown,
		spf.CodeRedirectInconclusive:    spfSubUnknown,
		spf.CodeTermInconclusive:        spfTermUnknown,
		spf.CodeLoop:                    {id: "spf.loop", status: StatusFail, severity: SeverityHigh, say: msg("include 或 redirect 形成了循环引用，接收方会将其视为永久错误。", "The includes or redirects form a loop, which receivers treat as a permanent error.")},
		spf.CodeLookupLimitExceeded:     {id: "spf.lookup-limit", status: StatusFail, severity: SeverityHigh, say: msg("评估 SPF 需要 %%d 次 DNS 查询，超过了 %d 次的上限，接收方会将其视为永久错误。", "Evaluating the SPF record takes %%d DNS lookups, more than the limit of %d, so receivers treat it as a permanent error.", spf.MaxLookups)},
		spf.CodeVoidLimitExceeded:       {id: "spf.void-limit-exceeded", status: StatusFail, severity: SeverityHigh, say: msg("有 %%d 次查询没有返回任何记录，超过了 %d 次的上限，接收方会将其视为永久错误。", "%%d lookups returned no records, more than the limit of %d, so receivers treat the record as a permanent error.", spf.MaxVoidLookups)},
		spf.CodeMXTooMany:               {id: "spf.mx-too-many", status: StatusFail, severity: SeverityHigh, say: msg("某个 mx 机制查到的 MX 记录超过 %d 条（指向同一台服务器的也分别计数），接收方会将其视为永久错误。", "An mx mechanism finds more than %d MX records (records naming the same server count separately), which receivers treat as a permanent error.", spf.MaxMXNames)},
		spf.CodeAllPass:                 {id: "spf.all-pass", status: StatusFail, severity: SeverityHigh, say: msg("记录以 +all 结尾，等于允许任何服务器代表该域名发信。", "The record ends in +all, which authorizes every server in the world to send as the domain.")},
		spf.CodeAllNeutral:              {id: "spf.all-neutral", status: StatusFail, severity: SeverityHigh, say: msg("记录以 ?all 结尾，对未列出的服务器不表态，起不到保护作用。", "The record ends in ?all, which says nothing about unlisted servers and so protects nothing.")},
		spf.CodeSafetyBound:             {id: "spf.safety-bound", status: StatusWarn, severity: SeverityMedium, say: msg("引用链过长，超出本服务的展开上限，未能全部检查。", "The include chain is longer than this service expands, so it was not checked completely.")},
		spf.CodeNoAll:                   {id: "spf.no-all", status: StatusWarn, severity: SeverityMedium, say: msg("记录没有以 all 机制结尾，未列出的服务器会得到中性结果。", "The record does not end with an all mechanism, so unlisted servers get a neutral result.")},
		spf.CodeRecordTooLong:           {id: "spf.record-too-long", status: StatusWarn, severity: SeverityMedium, say: msg("SPF 记录超过 %d 字节，可能导致部分接收方的 DNS 查询失败。", "The SPF record is longer than %d bytes, which can make DNS lookups fail at some receivers.", spf.MaxRecordSize)},
		spf.CodeRecordLong:              {id: "spf.record-long", status: StatusWarn, severity: SeverityLow, say: msg("SPF 记录超过 %d 字节，接近 DNS 响应的安全大小。", "The SPF record is longer than %d bytes, close to the safe size of a DNS answer.", spf.RecordSizeGuideline)},
		spf.CodePTRUsed:                 {id: "spf.ptr-used", status: StatusWarn, severity: SeverityLow, say: msg("记录使用了已不推荐的 ptr 机制，它慢且不可靠，部分接收方会忽略。", "The record uses the ptr mechanism, which is deprecated: slow, unreliable, and ignored by some receivers.")},
		spf.CodePTRMacro:                {id: "spf.ptr-macro", status: StatusWarn, severity: SeverityLow, say: msg("记录使用了不推荐的 %{p} 宏，它依赖反向解析，慢且不可靠。", "The record uses the %{p} macro, which depends on reverse DNS and is slow and unreliable; RFC 7208 advises against it.")},
		spf.CodeDeadTerms:               {id: "spf.dead-terms", status: StatusWarn, severity: SeverityLow, say: msg("all 之后还有内容，这些部分永远不会被评估。", "There are terms after all; they are never evaluated.")},
		spf.CodeIncludePassAll:          {id: "spf.include-pass-all", status: StatusFail, severity: SeverityHigh, say: msg("某个 include 引用的策略对任何服务器都给出通过（例如以 +all 结尾），因此该域名实际上允许任何服务器代表它发信。", "An included policy passes every server (for example, it ends in +all), so the domain in effect authorizes every server in the world to send as it.")},
		spf.CodeRangePassAll:            {id: "spf.range-pass-all", status: StatusFail, severity: SeverityHigh, say: msg("某个机制的前缀长度为 0（例如 ip4:0.0.0.0/0 或 a/0），覆盖了全部地址，等于允许任何服务器代表该域名发信。", "A mechanism with prefix length 0 (such as ip4:0.0.0.0/0 or a/0) covers every address, which authorizes every server to send as the domain.")},
		spf.CodeExistsPassAll:           {id: "spf.exists-pass-all", status: StatusFail, severity: SeverityHigh, say: msg("某个 exists 机制检查的名称无论发信服务器是谁都存在（固定的名称，或由通配符记录应答），因此对任何服务器都会匹配，等于允许任何服务器代表该域名发信。", "An exists mechanism checks a name that exists whatever the sending server (a fixed name, or one answered by a wildcard), so it matches every server and authorizes all of them to send as the domain.")},
		spf.CodeRedirectAtLimit:         {id: "spf.redirect-at-limit", status: StatusWarn, severity: SeverityMedium, say: msg("评估正好需要 %d 次 DNS 查询，记录中还有一个被忽略的 redirect；部分接收方仍会把它计入，得到 %d 次并判为永久错误。删除这个不起作用的 redirect 即可避免。", "Evaluation needs exactly %d DNS lookups and the record also has an ignored redirect; some receivers count it anyway, reach %d and return a permanent error. Removing the unused redirect avoids this.", spf.MaxLookups, spf.MaxLookups+1)},
		spf.CodeInvalidTargetName:       {id: "spf.invalid-target-name", status: StatusWarn, severity: SeverityHigh, say: msg("某个机制指向的名称不是有效的 DNS 域名（例如含有空标签，或有标签超过 63 个字符）；有的接收方视为不匹配，有的视为永久错误。", "A mechanism names something that is not a valid DNS name (an empty label, or a label longer than 63 characters); some receivers treat it as no match, others as a permanent error.")},
	}
	spfLimitAtLeast     = rule{id: "spf.lookup-limit-at-least", status: StatusFail, severity: SeverityHigh, say: msg("评估 SPF 至少需要 %%d 次 DNS 查询，超过了 %d 次的上限，接收方会将其视为永久错误。", "Evaluating the SPF record takes at least %%d DNS lookups, more than the limit of %d, so receivers treat it as a permanent error.", spf.MaxLookups)}
	spfFactNoRecord     = msg("该域名的 TXT 记录中没有以 v=spf1 开头的。", "None of the domain's TXT records starts with v=spf1.")
	spfFactCount        = msg("评估所需的 DNS 查询：%%d 次（上限 %d 次）。", "DNS lookups needed for evaluation: %%d (limit %d).", spf.MaxLookups)
	spfFactCountLower   = msg("评估所需的 DNS 查询：至少 %%d 次（上限 %d 次）。", "DNS lookups needed for evaluation: at least %%d (limit %d).", spf.MaxLookups)
	spfFactVoid         = msg("没有返回记录的查询：%%d 次（上限 %d 次）。", "Lookups that returned no records: %%d (limit %d).", spf.MaxVoidLookups)
	spfFactMacro        = msg("有 %d 处机制使用了依赖发件人信息的宏，脱离具体邮件无法展开。", "Terms with sender-dependent macros: %d; they cannot be expanded without an actual message.")
	spfFactSoftfail     = msg("未列出的服务器会得到软失败结果（~all）：接收方通常仍会接收，但可能加以标记；是否拒收取决于 DMARC 策略。", "Unlisted servers get a soft fail (~all): receivers usually accept such mail but may mark it; whether it is refused depends on the DMARC policy.")
	spfFactNearMiss     = msg("有一条 TXT 记录看起来像 SPF，但版本标签不正确，因此不会被识别。", "A TXT record looks like SPF, but its version tag is wrong, so it is not recognised.")
	spfFactTypeSPF      = msg("只找到已废弃的 SPF 类型（99）记录，接收方只读取 TXT 记录。", "Only an obsolete SPF-type (99) record exists; receivers read TXT records only.")
	spfFactRedirectSkip = msg("记录同时含有 all 和 redirect，redirect 会被忽略。", "The record has both all and redirect, so the redirect is ignored.")
)

// spfRulesAtLeast is spfRules for a walk that stopped before the end of
// the tree: the lookup count is a lower bound. Made once, not per scan.
var spfRulesAtLeast = withRule(spfRules, spf.CodeLookupLimitExceeded, spfLimitAtLeast)

// spfSyntaxAt says which term of the domain's own record has the syntax
// error and what kind of error it is: position and kind, never the text.
var spfSyntaxAt = map[spf.Code]text{
	spf.CodeSyntaxCharacter:         msg("第 %d 项含有不允许的字符（例如制表符或非 ASCII 字符）。", "Term %d contains a character that is not allowed (such as a tab or a non-ASCII character)."),
	spf.CodeSyntaxUnknownMechanism:  msg("第 %d 项不是已知的机制。", "Term %d is an unknown mechanism."),
	spf.CodeSyntaxMissingDomain:     msg("第 %d 项缺少必需的域名（include、exists、redirect 等后面必须跟域名）。", "Term %d lacks the domain it requires (include, exists, redirect and the like must name one)."),
	spf.CodeSyntaxDomainSpec:        msg("第 %d 项中的域名无效：它必须以宏或有效的顶级标签结尾。", "Term %d names an invalid domain: it must end in a macro or a valid top-level label."),
	spf.CodeSyntaxMacro:             msg("第 %d 项含有无效的宏。", "Term %d has an invalid macro."),
	spf.CodeSyntaxIP4:               msg("第 %d 项是 ip4 网段，但地址无效（必须是不带前导零的完整点分四段地址）。", "Term %d, an ip4 network, has an invalid address (it must be a full dotted quad without leading zeros)."),
	spf.CodeSyntaxIP6:               msg("第 %d 项是 ip6 网段，但地址无效。", "Term %d, an ip6 network, has an invalid address."),
	spf.CodeSyntaxCIDR:              msg("第 %d 项的前缀长度无效（超出范围或带有前导零）。", "Term %d has an invalid prefix length (out of range or with a leading zero)."),
	spf.CodeSyntaxArgument:          msg("第 %d 项带有该机制不接受的参数。", "Term %d has an argument its mechanism does not take."),
	spf.CodeSyntaxDuplicateModifier: msg("第 %d 项重复了 redirect 或 exp 修饰符，它们只能出现一次。", "Term %d repeats the redirect or exp modifier, which may appear only once."),
	spf.CodeSyntaxModifier:          msg("第 %d 项的修饰符名称无效。", "Term %d has an invalid modifier name."),
}

var (
	spfFactTermsNumbered  = msg("项的序号从 v=spf1 之后的第一项算起。", "Terms are numbered from the first one after v=spf1.")
	spfFactIncludeCost    = msg("开销最大的是第 %[1]d 个 include（共 %[2]d 个）：它占了全部 %[4]d 次查询中的 %[3]d 次。", "The costliest is include number %d (of %d): it takes %d of the %d lookups.")
	spfFactIncludeProblem = msg("问题出在第 %d 个 include（共 %d 个）所引用的策略中。", "The problem lies behind include number %d (of %d).")
)

// spfPrecise returns the sentences that locate a problem in the domain's
// own record: the bad term by position, the include behind an error, and
// the costliest include of a policy over the lookup limit.
func spfPrecise(res spf.Result, has map[spf.Code]bool) []LocalizedText {
	var out []LocalizedText
	if res.SyntaxTerm > 0 {
		for _, c := range res.Findings {
			if t, ok := spfSyntaxAt[c]; ok {
				out = append(out, t.with(res.SyntaxTerm), spfFactTermsNumbered.with())
				break
			}
		}
	}
	n := len(res.Includes)
	for i, inc := range res.Includes {
		if inc.Problem != "" {
			out = append(out, spfFactIncludeProblem.with(i+1, n))
			break
		}
	}
	if has[spf.CodeLookupLimitExceeded] && n > 0 {
		top := 0
		for i, inc := range res.Includes {
			if inc.Lookups > res.Includes[top].Lookups {
				top = i
			}
		}
		if res.Includes[top].Lookups > 1 {
			out = append(out, spfFactIncludeCost.with(top+1, n, res.Includes[top].Lookups, valueOf(res.LookupCount)))
		}
	}
	return out
}

// spfIgnored are the SPF findings without a rule or note, and why.
var spfIgnored = map[spf.Code]string{
	spf.CodeTXTInconclusive:   "the verdict is inconclusive before any finding is judged",
	spf.CodeVoidLookup:        "counted in Result.VoidLookups and said in the details; over the limit it is CodeVoidLimitExceeded",
	spf.CodeMacroUnexpandable: "counted in Result.MacroTerms and said in the details",
}

// spfNotes are findings that add a sentence without changing the verdict.
var spfNotes = map[spf.Code]text{
	spf.CodeNearMiss:        spfFactNearMiss,
	spf.CodeTypeSPFOnly:     spfFactTypeSPF,
	spf.CodeRedirectIgnored: spfFactRedirectSkip,
	spf.CodeUnknownModifier: msg("记录中有未知的修饰符，接收方会忽略它；这往往是拼写错误。", "The record has an unknown modifier, which receivers ignore; this is often a typo."),
}

// checkSPF looks up and expands the domain's SPF policy, judges it, and,
// when a sending IP was given, says whether the policy authorizes it.
func (r *run) checkSPF(ctx context.Context, dns resolver.Resolver) verdict {
	v := *judgeAt(judgeSPF, onHeap(spf.Check, ctx, dns, r.domain.ASCII))
	v.details = append(v.details, r.spfSendingIP(ctx, dns)...)
	return v
}

// judgeSPF is the verdict on the facts of an SPF check; it does no I/O.
func judgeSPF(res spf.Result) verdict {
	d := &SPFDiagnostics{SPFRecordCount: valueOf(res.RecordCount), DNSLookupCount: res.LookupCount,
		DNSLookupLimit: res.LookupLimit, LookupComplete: res.LookupComplete}
	if res.RecordCount == nil {
		d.SPFRecordCount = 0 // the contract has no null here; the status says it is unknown
		return inconclusiveVerdict(d)
	}
	args := map[spf.Code][]int{
		spf.CodeMultipleRecords:     {*res.RecordCount},
		spf.CodeLookupLimitExceeded: {valueOf(res.LookupCount)},
		spf.CodeVoidLimitExceeded:   {res.VoidLookups},
	}
	table := spfRules
	if !res.LookupComplete {
		table = spfRulesAtLeast
	}
	return judge(spfPass, rulesFor(res.Findings, table, args), spfFacts(res), d)
}

func spfFacts(res spf.Result) []LocalizedText {
	var out []LocalizedText
	has := codeSet(res.Findings)
	if has[spf.CodeNoRecord] {
		out = append(out, spfFactNoRecord.with())
	}
	out = append(out, spfPrecise(res, has)...)
	out = append(out, spfExplain(res, has)...)
	if res.LookupCount != nil && !has[spf.CodeLookupLimitExceeded] {
		if res.LookupComplete {
			out = append(out, spfFactCount.with(*res.LookupCount))
		} else {
			out = append(out, spfFactCountLower.with(*res.LookupCount))
		}
	}
	if res.VoidLookups > 0 && !has[spf.CodeVoidLimitExceeded] {
		out = append(out, spfFactVoid.with(res.VoidLookups))
	}
	if res.MacroTerms > 0 {
		out = append(out, spfFactMacro.with(res.MacroTerms))
	}
	if res.EffectiveAll == spf.QualifierSoftFail && res.Error == "" && !passesEveryone(has) {
		out = append(out, spfFactSoftfail.with())
	}
	return append(out, notes(res.Findings, spfNotes)...)
}

// passesEveryone reports whether the findings say some mechanism passes
// every client, so no client ever reaches the all at the end.
func passesEveryone(has map[spf.Code]bool) bool {
	return has[spf.CodeIncludePassAll] || has[spf.CodeRangePassAll] || has[spf.CodeExistsPassAll]
}

// notes returns the sentences of the findings that have one, in the
// order of the findings (which the packages keep deterministic).
func notes[C comparable](codes []C, table map[C]text) []LocalizedText {
	var out []LocalizedText
	for _, c := range codes {
		if t, ok := table[c]; ok {
			out = append(out, t.with())
		}
	}
	return out
}

// codeSet turns a finding list into a set.
func codeSet[C comparable](codes []C) map[C]bool {
	m := make(map[C]bool, len(codes))
	for _, c := range codes {
		m[c] = true
	}
	return m
}

// spfCheckRules lists the check's rules for the developer page: its named
// verdicts and the values of its finding table.
func spfCheckRules() []rule {
	return append([]rule{spfPass, spfLimitAtLeast}, tableRules(spfRules)...)
}
