package mailauth

import (
	"context"

	"github.com/mailauth/mailauth/mtasts"
)

var (
	stsPass         = rule{status: StatusPass, severity: SeverityInfo, say: msg("MTA-STS 处于强制模式，策略有效，且覆盖了所有收件服务器。", "MTA-STS is in enforce mode with a valid policy that covers every mail server.")}
	stsMissing      = rule{status: StatusFail, severity: SeverityLow, say: msg("没有发布 MTA-STS，发件方无法确认投递到该域名时必须使用加密连接。", "MTA-STS is not published, so senders cannot know that delivery to the domain must be encrypted.")}
	stsNoMail       = rule{status: StatusInfo, severity: SeverityInfo, say: msg("该域名不接收邮件（空 MX），无需 MTA-STS。", "The domain accepts no mail (null MX), so MTA-STS is not needed.")}
	stsBadAnnounce  = rule{status: StatusFail, severity: SeverityMedium, say: msg("_mta-sts 记录无效或不唯一，发件方会认为该域名没有 MTA-STS。", "The _mta-sts record is invalid or not unique, so senders treat the domain as having no MTA-STS.")}
	stsUnreachable  = rule{status: StatusFail, severity: SeverityMedium, say: msg("已声明 MTA-STS，但无法通过 HTTPS 获取策略文件，发件方会当作没有策略。", "MTA-STS is announced, but the policy file cannot be fetched over HTTPS, so senders act as if there were no policy.")}
	stsFetchUnknown = rule{status: StatusWarn, severity: SeverityMedium, say: msg("无法确定：策略主机的 DNS 查询或 HTTPS 获取超时或没有明确结果。", "Could not be determined: the policy host's DNS or the HTTPS fetch timed out or gave no conclusive answer.")}
	stsInvalid      = rule{status: StatusFail, severity: SeverityMedium, say: msg("获取到了策略文件，但它不是有效的 MTA-STS 策略，发件方会忽略它。", "The policy file was fetched but is not a valid MTA-STS policy, so senders ignore it.")}
	stsTesting      = rule{status: StatusWarn, severity: SeverityLow, say: msg("MTA-STS 处于测试模式（testing）：加密失败只会被报告，邮件仍会投递。", "MTA-STS is in testing mode: failures are only reported and mail is still delivered.")}
	stsModeNone     = rule{status: StatusWarn, severity: SeverityLow, say: msg("MTA-STS 策略模式为 none，表示策略已撤销，不提供保护。", "The MTA-STS policy mode is none: the policy is withdrawn and protects nothing.")}
	stsUncovered    = rule{status: StatusFail, severity: SeverityHigh, say: msg("不在策略 mx 列表中的收件服务器：%d 台；强制模式下，遵守 MTA-STS 的发件方不会向它们投递。", "Mail servers not covered by the policy's mx patterns: %d; in enforce mode, compliant senders will not deliver to them.")}
	stsUncoveredTry = rule{status: StatusWarn, severity: SeverityLow, say: msg("不在策略 mx 列表中的收件服务器：%d 台；切换到强制模式前需要修正。", "Mail servers not covered by the policy's mx patterns: %d; this must be fixed before switching to enforce mode.")}
	stsRules        = map[mtasts.Code]rule{
		mtasts.PolicyMediaType:            {status: StatusWarn, severity: SeverityLow, say: msg("策略文件的类型不是 text/plain，部分发件方会拒绝使用它。", "The policy file is not served as text/plain, which some senders reject.")},
		mtasts.PolicyMaxAgeZero:           {status: StatusWarn, severity: SeverityLow, say: msg("max_age 为 0，发件方不会缓存策略，保护作用有限。", "max_age is 0, so senders do not cache the policy and protection is limited.")},
		mtasts.PolicyDuplicateField:       {status: StatusWarn, severity: SeverityLow, say: msg("策略文件中有重复字段，只有第一个生效。", "The policy file repeats a field; only the first one counts.")},
		mtasts.AnnouncementDuplicateField: {status: StatusWarn, severity: SeverityLow, say: msg("_mta-sts 记录中有重复字段。", "The _mta-sts record repeats a field.")},
	}
	stsNotes = map[mtasts.Code]text{
		mtasts.PolicyMixedLineEndings:  msg("策略文件混用了不同的换行符。", "The policy file mixes line endings."),
		mtasts.PolicyRedirect:          msg("策略地址返回了重定向；按规范发件方不会跟随重定向。", "The policy URL answered with a redirect, which senders must not follow."),
		mtasts.PolicyHostNonPublic:     msg("策略主机解析到非公网地址，本服务不会连接这类地址。", "The policy host resolves to a non-public address, which this service never connects to."),
		mtasts.PolicyTooLarge:          msg("策略文件超过 64 KiB 的上限。", "The policy file exceeds the 64 KiB limit."),
		mtasts.PolicyHostNotFound:      msg("策略主机名不存在或没有地址。", "The policy host name does not exist or has no address."),
		mtasts.PolicyCertNameMismatch:  msg("策略主机的证书与主机名不匹配。", "The policy host's certificate does not match its name."),
		mtasts.PolicyCertExpired:       msg("策略主机的证书已过期或尚未生效。", "The policy host's certificate has expired or is not yet valid."),
		mtasts.PolicyCertUntrusted:     msg("策略主机的证书不是由受信任的证书颁发机构签发的。", "The policy host's certificate is not issued by a trusted certificate authority."),
		mtasts.PolicyStatusClientError: msg("策略地址返回了客户端错误状态码（4xx）。", "The policy URL answered with a client error status (4xx)."),
		mtasts.PolicyStatusServerError: msg("策略地址返回了服务器错误状态码（5xx）。", "The policy URL answered with a server error status (5xx)."),
	}
	stsFactMaxAge = msg("策略缓存时间（max_age）：%d 秒。", "Policy cache lifetime (max_age): %d s.")
)

func (r *run) mtastsOptions() mtasts.Options {
	return mtasts.Options{
		Port:          r.cfg.HTTPSPort,
		RootCAs:       r.cfg.RootCAs,
		AllowLoopback: r.cfg.AllowLoopbackTargets,
		Timeout:       r.cfg.FetchTimeout,
		Observe:       func(v string) { r.guard.AddText(v) },
	}
}

func (r *run) checkMTASTS(ctx context.Context) verdict {
	res := mtasts.Check(ctx, r.dns, r.domain.ASCII, r.mtastsOptions())
	d := mtastsDiagnostics(res)
	mxSet, nullMX := r.waitMX(ctx)
	switch res.FetchState {
	case mtasts.NotAnnounced:
		if nullMX {
			return judge(stsNoMail, nil, nil, d)
		}
		return judge(stsMissing, nil, nil, d)
	case mtasts.Inconclusive:
		if res.AnnouncementRecordCount < 0 {
			return inconclusiveVerdict(d)
		}
		return judge(stsFetchUnknown, nil, nil, d)
	case mtasts.NotAttempted:
		return judge(stsBadAnnounce, nil, nil, d)
	case mtasts.Unreachable:
		return judge(stsUnreachable, nil, notes(res.Findings, stsNotes), d)
	}
	if !res.PolicyValid {
		return judge(stsInvalid, nil, notes(res.Findings, stsNotes), d)
	}
	applied := rulesFor(res.Findings, stsRules, nil)
	switch res.PolicyMode {
	case mtasts.ModeTesting:
		applied = append(applied, stsTesting)
	case mtasts.ModeNone:
		applied = append(applied, stsModeNone)
	}
	if cov := mtasts.Covers(res.Policy, mxSet); len(mxSet) > 0 && cov.Uncovered > 0 && res.PolicyMode != mtasts.ModeNone {
		rl := stsUncoveredTry
		if res.PolicyMode == mtasts.ModeEnforce {
			rl = stsUncovered
		}
		rl.args = []int{cov.Uncovered}
		applied = append(applied, rl)
	}
	facts := notes(res.Findings, stsNotes)
	if res.MaxAge >= 0 {
		facts = append(facts, stsFactMaxAge.with(int(res.MaxAge)))
	}
	return judge(stsPass, applied, facts, d)
}

// waitMX waits for the mx check and returns its exchange set, and whether
// the domain publishes a null MX. It gives up when ctx ends.
func (r *run) waitMX(ctx context.Context) ([]string, bool) {
	select {
	case <-r.mxDone:
		return r.mxSet, r.nullMX
	case <-ctx.Done():
		return nil, false
	}
}

func mtastsDiagnostics(res mtasts.Result) *MtaStsDiagnostics {
	d := &MtaStsDiagnostics{PolicyFetchState: string(res.FetchState)}
	if res.AnnouncementRecordCount >= 0 {
		d.AnnouncementRecordCount = intPtr(res.AnnouncementRecordCount)
		d.AnnouncementValid = boolPtr(res.AnnouncementValid)
	}
	if res.FetchState != mtasts.Fetched {
		return d
	}
	d.PolicyValid = boolPtr(res.PolicyValid)
	d.PolicyMode = optStr(string(res.PolicyMode))
	if res.MaxAge >= 0 {
		m := res.MaxAge
		d.MaxAge = &m
	}
	if res.MXPatternCount >= 0 {
		d.MXPatternCount = intPtr(res.MXPatternCount)
	}
	return d
}
