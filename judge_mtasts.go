package mailauth

import (
	"context"
	"time"

	"github.com/mailauth/mailauth/mtasts"
	"github.com/mailauth/mailauth/resolver"
)

var (
	stsEnforce      = rule{id: "mta-sts.enforce", status: StatusPass, severity: SeverityInfo, say: msg("MTA-STS 处于强制模式（enforce），策略有效。", "MTA-STS is in enforce mode with a valid policy.")}
	stsMissing      = rule{id: "mta-sts.missing", status: StatusFail, severity: SeverityLow, say: msg("没有发布 MTA-STS，发件方无法得知投递到该域名时必须使用加密连接。", "MTA-STS is not published, so senders cannot know that delivery to the domain must be encrypted.")}
	stsNoMail       = rule{id: "mta-sts.no-mail", status: StatusInfo, severity: SeverityInfo, say: msg("该域名不接收邮件（空 MX），无需 MTA-STS。", "The domain accepts no mail (null MX), so MTA-STS is not needed.")}
	stsBadAnnounce  = rule{id: "mta-sts.announcement-invalid", status: StatusFail, severity: SeverityMedium, say: msg("_mta-sts 记录无效或不唯一，发件方会认为该域名没有 MTA-STS。", "The _mta-sts record is invalid or not unique, so senders treat the domain as having no MTA-STS.")}
	stsUnreachable  = rule{id: "mta-sts.unreachable", status: StatusFail, severity: SeverityMedium, say: msg("已声明 MTA-STS，但无法通过 HTTPS 获取策略文件，发件方会当作没有策略。", "MTA-STS is announced, but the policy file cannot be fetched over HTTPS, so senders act as if there were no policy.")}
	stsFetchUnknown = rule{id: "mta-sts.fetch-inconclusive", status: StatusWarn, severity: SeverityMedium, undetermined: true, say: msg("无法确定：策略主机的 DNS 查询或 HTTPS 获取超时，或没有得到明确结果。", "Could not be determined: the policy host's DNS lookup or the HTTPS fetch timed out or gave no conclusive answer.")}
	stsInvalid      = rule{id: "mta-sts.invalid", status: StatusFail, severity: SeverityMedium, say: msg("获取到了策略文件，但它不是有效的 MTA-STS 策略，发件方会忽略它。", "The policy file was fetched but is not a valid MTA-STS policy, so senders ignore it.")}
	stsTesting      = rule{id: "mta-sts.testing", status: StatusWarn, severity: SeverityLow, say: msg("MTA-STS 处于测试模式（testing）：加密失败只会被报告，邮件仍会投递。", "MTA-STS is in testing mode: failures are only reported and mail is still delivered.")}
	stsModeNone     = rule{id: "mta-sts.mode-none", status: StatusFail, severity: SeverityLow, say: msg("MTA-STS 策略模式为 none，表示策略已撤销，不提供保护。", "The MTA-STS policy mode is none: the policy is withdrawn and protects nothing.")}
	stsUncovered    = rule{id: "mta-sts.uncovered", status: StatusFail, severity: SeverityHigh, say: msg("不在策略 mx 列表中的收件服务器共 %d 台；在强制模式下，遵守 MTA-STS 的发件方不会向它们投递。", "Mail servers not covered by the policy's mx patterns: %d; in enforce mode, compliant senders will not deliver to them.")}
	stsUncoveredTry = rule{id: "mta-sts.uncovered-testing", status: StatusWarn, severity: SeverityLow, say: msg("不在策略 mx 列表中的收件服务器共 %d 台；测试模式下只会产生失败报告，强制模式下遵守 MTA-STS 的发件方不会向它们投递。", "Mail servers not covered by the policy's mx patterns: %d; in testing mode this only produces failure reports, but in enforce mode compliant senders would not deliver to them.")}
	stsMXUnknown    = rule{id: "mta-sts.mx-inconclusive", status: StatusWarn, severity: SeverityMedium, undetermined: true, say: msg("MX 记录没有查到明确结果，无法核对策略是否覆盖了所有收件服务器。", "The MX lookup gave no conclusive answer, so whether the policy covers every mail server could not be checked.")}
	stsRules        = map[mtasts.Code]rule{
		mtasts.CodePolicyMediaType:            {id: "mta-sts.policy-media-type", status: StatusWarn, severity: SeverityLow, say: msg("策略文件的类型不是 text/plain，部分发件方会拒绝使用它。", "The policy file is not served as text/plain, which some senders reject.")},
		mtasts.CodePolicyMaxAgeZero:           {id: "mta-sts.policy-max-age-zero", status: StatusWarn, severity: SeverityLow, say: msg("max_age 为 0，发件方不会缓存策略，保护作用有限。", "max_age is 0, so senders do not cache the policy and protection is limited.")},
		mtasts.CodePolicyDuplicateField:       {id: "mta-sts.policy-duplicate-field", status: StatusWarn, severity: SeverityLow, say: msg("策略文件中有重复字段，只有第一个生效。", "The policy file repeats a field; only the first one counts.")},
		mtasts.CodeAnnouncementDuplicateField: {id: "mta-sts.announcement-duplicate-field", status: StatusWarn, severity: SeverityLow, say: msg("_mta-sts 记录中有重复字段。", "The _mta-sts record repeats a field.")},
	}
	// stsNotes say why a fetch or a policy failed.
	stsNotes = map[mtasts.Code]text{
		mtasts.CodeAnnouncementMultiple:      msg("_mta-sts 下有多条 v=STSv1 记录，只能有一条。", "There are several v=STSv1 records at _mta-sts; only one is allowed."),
		mtasts.CodeAnnouncementSyntax:        msg("_mta-sts 记录不符合 RFC 8461 的语法。", "The _mta-sts record does not follow the RFC 8461 grammar."),
		mtasts.CodeAnnouncementMissingID:     msg("_mta-sts 记录缺少 id 字段。", "The _mta-sts record has no id field."),
		mtasts.CodeAnnouncementBadID:         msg("_mta-sts 记录的 id 必须是 1 到 %d 个字母或数字。", "The _mta-sts record's id is not 1 to %d letters and digits.", mtasts.MaxIDLength),
		mtasts.CodePolicyHostNotFound:        msg("策略主机名不存在或没有地址。", "The policy host name does not exist or has no address."),
		mtasts.CodePolicyHostDNSInconclusive: msg("策略主机的地址查询没有得到明确结果。", "The policy host's address lookup gave no conclusive answer."),
		mtasts.CodePolicyHostNonPublic:       msg("策略主机解析到非公网地址，本服务不会连接这类地址。", "The policy host resolves to a non-public address, which this service never connects to."),
		mtasts.CodePolicyConnectFailed:       msg("无法与策略主机建立 TCP 连接。", "No TCP connection to the policy host could be made."),
		mtasts.CodePolicyFetchTimeout:        msg("获取策略文件超时。", "Fetching the policy file timed out."),
		mtasts.CodePolicyCertNameMismatch:    msg("策略主机的证书与主机名不匹配。", "The policy host's certificate does not match its name."),
		mtasts.CodePolicyCertExpired:         msg("策略主机的证书已过期或尚未生效。", "The policy host's certificate has expired or is not yet valid."),
		mtasts.CodePolicyCertUntrusted:       msg("策略主机的证书不是由受信任的证书颁发机构签发的。", "The policy host's certificate is not issued by a trusted certificate authority."),
		mtasts.CodePolicyCertInvalid:         msg("策略主机的证书无效。", "The policy host's certificate is invalid."),
		mtasts.CodePolicyTLSFailed:           msg("与策略主机的 TLS 握手失败。", "The TLS handshake with the policy host failed."),
		mtasts.CodePolicyHTTPFailed:          msg("策略主机的 HTTP 响应无法读取。", "The policy host's HTTP response could not be read."),
		mtasts.CodePolicyRedirect:            msg("策略地址返回了重定向；按规范，发件方不会跟随重定向。", "The policy URL answered with a redirect, which senders must not follow."),
		mtasts.CodePolicyStatusClientError:   msg("策略地址返回了客户端错误状态码（4xx）。", "The policy URL answered with a client error status (4xx)."),
		mtasts.CodePolicyStatusServerError:   msg("策略地址返回了服务器错误状态码（5xx）。", "The policy URL answered with a server error status (5xx)."),
		mtasts.CodePolicyStatusUnexpected:    msg("策略地址返回了非 200 的状态码。", "The policy URL answered with a status other than 200."),
		mtasts.CodePolicyTooLarge:            msg("策略文件超过 %d KiB 的上限。", "The policy file exceeds the %d KiB limit.", mtasts.MaxPolicySize>>10),
		mtasts.CodePolicySyntax:              msg("策略文件中有不符合“键: 值”格式的行。", "The policy file has lines that are not in key: value form."),
		mtasts.CodePolicyVersionMissing:      msg("策略文件缺少 version 字段。", "The policy file has no version field."),
		mtasts.CodePolicyVersionInvalid:      msg("策略文件的 version 不是 STSv1。", "The policy file's version is not STSv1."),
		mtasts.CodePolicyModeMissing:         msg("策略文件缺少 mode 字段。", "The policy file has no mode field."),
		mtasts.CodePolicyModeInvalid:         msg("策略文件的 mode 不是 enforce、testing 或 none。", "The policy file's mode is not enforce, testing or none."),
		mtasts.CodePolicyMaxAgeMissing:       msg("策略文件缺少 max_age 字段。", "The policy file has no max_age field."),
		mtasts.CodePolicyMaxAgeInvalid:       msg("策略文件的 max_age 不是有效的秒数。", "The policy file's max_age is not a valid number of seconds."),
		mtasts.CodePolicyMaxAgeTooLarge:      msg("策略文件的 max_age 超过了一年（%d 秒）的上限。", "The policy file's max_age exceeds the limit of one year (%d seconds).", mtasts.MaxMaxAge),
		mtasts.CodePolicyMXMissing:           msg("策略处于强制或测试模式，却没有列出任何 mx。", "The policy is in enforce or testing mode but lists no mx."),
		mtasts.CodePolicyMXInvalid:           msg("策略文件中有无效的 mx 模式。", "The policy file has an invalid mx pattern."),
		mtasts.CodePolicyMixedLineEndings:    msg("策略文件混用了不同的换行符。", "The policy file mixes line endings."),
	}
	stsFactMaxAge   = msg("策略缓存时间（max_age）为 %d 秒。", "Policy cache lifetime (max_age): %d seconds.")
	stsFactCovered  = msg("策略的 mx 列表覆盖了全部收件服务器（共 %d 台）。", "The policy's mx patterns cover every mail server (%d in all).")
	stsFactNoRecord = msg("该域名的 _mta-sts 名称下没有以 v=STSv1 开头的 TXT 记录。", "There is no TXT record starting with v=STSv1 at the domain's _mta-sts name.")
	stsFactMXMaybe  = msg("无法确定该域名是否接收邮件（MX 查询没有得到明确结果）。", "Whether the domain accepts mail could not be determined (the MX lookup gave no conclusive answer).")
)

func (r *run) mtastsOptions() mtasts.Options {
	return mtasts.Options{
		Port:          r.cfg.HTTPSPort,
		RootCAs:       r.cfg.RootCAs,
		AllowLoopback: r.cfg.AllowLoopbackTargets,
		Timeout:       r.cfg.FetchTimeout,
		Observe:       func(v string) { r.guard.AddText(v) },
		Sessions:      r.sessions,
	}
}

func (r *run) checkMTASTS(ctx context.Context, dns resolver.Resolver) verdict {
	res := r.mtastsCheck(ctx, dns)
	resolver.PathFrom(ctx).Step(time.Now()) // the policy fetch waited on the host's addresses
	return r.judgeMTASTSWithMX(ctx, res)
}

// judgeMTASTSWithMX waits for the MX facts and judges res with them. Not
// inlined (see mtastsCheck): its arguments are large.
//
//go:noinline
func (r *run) judgeMTASTSWithMX(ctx context.Context, res *mtasts.Result) verdict {
	return judgeMTASTS(*res, r.waitMX(ctx))
}

// mtastsCheck is mtasts.Check with the scan's options, its result on the
// heap. It is not inlined, so that checkMTASTS's frame, under which the
// check's lookups wait, holds neither the options nor the result. It is
// not onHeap: it builds the options, in its own frame, and a function
// that did so for onHeap would return the result into onHeap's frame
// after holding it in its own, one result more (424 bytes more of
// frames under every lookup of the check, by go build -gcflags=-S).
//
//go:noinline
func (r *run) mtastsCheck(ctx context.Context, dns resolver.Resolver) *mtasts.Result {
	opts := r.mtastsOptions()
	opts.Progress = fetchProgress(ctx)
	if begun := r.stsBegun.Load(); begun != nil {
		opts.Begun = *begun
	}
	res := mtasts.Check(ctx, dns, r.domain.ASCII, opts)
	return &res
}

// judgeMTASTS is the verdict on the facts of an MTA-STS check and the MX
// facts its coverage is checked against; it does no I/O.
func judgeMTASTS(res mtasts.Result, mxs mxFacts) verdict {
	d := mtastsDiagnostics(res)
	why := notes(res.Findings, stsNotes)
	dnApplied, dnFacts := daneFindings(mxs.dane)
	switch res.FetchState {
	case mtasts.NotAnnounced:
		if mxs.dane.usable() {
			return judgeState(stsDANEOnly, dnApplied, append([]LocalizedText{stsFactNoRecord.with()}, dnFacts...), d)
		}
		v := absentVerdict(stsMissing, stsNoMail, stsFactNoRecord, mxs, d)
		if len(dnApplied)+len(dnFacts) > 0 {
			v = judgeState(stsMissing, dnApplied, append([]LocalizedText{stsFactNoRecord.with()}, dnFacts...), d)
		}
		return v
	case mtasts.Inconclusive:
		if res.AnnouncementRecordCount == nil {
			return inconclusiveVerdict(d)
		}
		return judge(stsFetchUnknown, nil, why, d)
	case mtasts.NotAttempted:
		return judgeState(stsBadAnnounce, dnApplied, append(why, dnFacts...), d)
	case mtasts.Unreachable:
		return judgeState(stsUnreachable, dnApplied, append(why, dnFacts...), d)
	}
	if res.PolicyValid == nil || !*res.PolicyValid {
		return judgeState(stsInvalid, dnApplied, append(why, dnFacts...), d)
	}
	state := stsEnforce
	switch res.PolicyMode {
	case mtasts.ModeTesting:
		state = stsTesting
	case mtasts.ModeNone:
		state = stsModeNone
	}
	findings, facts := stsCoverage(res, mxs)
	findings = append(findings, rulesFor(res.Findings, stsRules, nil)...)
	if mxs.dane.usable() {
		// DANE-aware senders enforce TLS whatever the policy's mode
		// (RFC 8461 §2: MTA-STS never overrides DANE).
		if res.PolicyMode == mtasts.ModeEnforce {
			facts = append(facts, daneFactBoth.with())
		} else {
			facts = append(facts, state.say.with()) // the mode, as a fact
			state = stsDANETesting
		}
	}
	findings = append(findings, dnApplied...)
	facts = append(facts, dnFacts...)
	facts = append(facts, why...)
	if res.MaxAge != nil {
		facts = append(facts, stsFactMaxAge.with(int(*res.MaxAge)))
	}
	return judgeState(state, findings, facts, d)
}

// stsCoverage judges whether the policy's mx patterns cover the domain's
// MX hosts (RFC 8461 §4.1), with the MX set the mx check found.
func stsCoverage(res mtasts.Result, mxs mxFacts) ([]rule, []LocalizedText) {
	if !mxs.known {
		return []rule{stsMXUnknown}, nil
	}
	if len(mxs.hosts) == 0 || res.PolicyMode == mtasts.ModeNone {
		return nil, nil
	}
	cov := mtasts.Covers(res.Policy, mxs.hosts)
	if cov.Uncovered == 0 {
		return nil, []LocalizedText{stsFactCovered.with(cov.Covered)}
	}
	rl := stsUncoveredTry
	if res.PolicyMode == mtasts.ModeEnforce {
		rl = stsUncovered
	}
	rl.args = []int{cov.Uncovered}
	return []rule{rl}, nil
}

// mxFacts is what the mx check tells the others.
type mxFacts struct {
	known  bool     // the MX lookup was conclusive
	hosts  []string // the exchanges (or the domain, for an implicit MX); never serialised
	nullMX bool     // the domain publishes a null MX (RFC 7505)
	// dane: the TLSA records of the exchanges (RFC 7672)
	dane daneFacts
	// nxdomain: the domain itself does not exist (the overall summary
	// says so first, see nxdomainFirst)
	nxdomain bool
}

// waitMX waits for the mx check. When ctx ends first, or the MX lookup
// was inconclusive, the facts are unknown.
func (r *run) waitMX(ctx context.Context) mxFacts {
	select {
	case <-r.mxDone:
		resolver.PathFrom(ctx).Join(r.paths[CheckMX])
		return r.mx
	default:
	}
	select {
	case <-r.mxDone:
		resolver.PathFrom(ctx).Join(r.paths[CheckMX])
		return r.mx
	case <-ctx.Done():
		return mxFacts{}
	}
}

// absentVerdict is the verdict when a record that only matters to a
// domain that receives mail is absent: missing, or not needed for a null
// MX; when the MX lookup was inconclusive, missing with that said.
func absentVerdict(missing, notNeeded rule, where text, mxs mxFacts, d Diagnostics) verdict {
	facts := []LocalizedText{where.with()}
	switch {
	case mxs.known && mxs.nullMX:
		return judge(notNeeded, nil, facts, d)
	case !mxs.known:
		facts = append(facts, stsFactMXMaybe.with())
	}
	return judge(missing, nil, facts, d)
}

func mtastsDiagnostics(res mtasts.Result) *MTASTSDiagnostics {
	d := &MTASTSDiagnostics{PolicyFetchState: MTASTSFetchState(res.FetchState)}
	d.AnnouncementRecordCount, d.AnnouncementValid = res.AnnouncementRecordCount, res.AnnouncementValid
	if res.FetchState != mtasts.Fetched {
		return d
	}
	d.PolicyValid = res.PolicyValid
	d.PolicyMode = optEnum(MTASTSMode(res.PolicyMode))
	d.MaxAge, d.MXPatternCount = res.MaxAge, res.MXPatternCount
	return d
}

// mtastsCheckRules lists the check's rules for the developer page: its named
// verdicts and the values of its finding table.
func mtastsCheckRules() []rule {
	return append([]rule{stsEnforce, stsMissing, stsNoMail, stsBadAnnounce, stsUnreachable, stsFetchUnknown,
		stsInvalid, stsTesting, stsModeNone, stsUncovered, stsUncoveredTry, stsMXUnknown}, append(tableRules(stsRules), daneCheckRules()...)...)
}
