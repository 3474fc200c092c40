package mailauth

import (
	"context"

	"github.com/mailauth/mailauth/caa"
	"github.com/mailauth/mailauth/resolver"
)

var (
	caaPass         = rule{status: StatusPass, severity: SeverityInfo, say: msg("CAA 记录限定了可以为该域名签发证书的证书颁发机构。", "CAA records limit which certificate authorities may issue certificates for the domain.")}
	caaNone         = rule{status: StatusInfo, severity: SeverityInfo, say: msg("没有 CAA 记录：任何公开信任的证书颁发机构都可以为该域名签发证书。", "There are no CAA records: any publicly trusted certificate authority may issue for the domain.")}
	caaNoRestrict   = rule{status: StatusInfo, severity: SeverityInfo, say: msg("CAA 记录中没有 issue 或 issuewild 属性，因此不限制证书签发。", "The CAA records have no issue or issuewild property, so they do not restrict issuance.")}
	caaCritical     = rule{status: StatusFail, severity: SeverityHigh, say: msg("CAA 记录含有标记为关键（critical）的未知属性，任何证书颁发机构都必须拒绝签发。", "A CAA property marked critical has an unknown tag, so every certificate authority must refuse to issue.")}
	caaForbidAll    = rule{status: StatusWarn, severity: SeverityMedium, say: msg("CAA 记录不允许任何证书颁发机构签发证书，MTA-STS 策略主机将无法获得或续期证书。", "The CAA records allow no certificate authority to issue, so the MTA-STS policy host cannot obtain or renew a certificate.")}
	caaMTASTSForbid = rule{status: StatusWarn, severity: SeverityMedium, say: msg("适用于 MTA-STS 策略主机的 CAA 记录不允许任何证书颁发机构签发证书，其证书将无法续期。", "The CAA records that apply to the MTA-STS policy host allow no certificate authority to issue, so its certificate cannot be renewed.")}
	caaLow          = func(zh, en string) rule { return rule{status: StatusWarn, severity: SeverityLow, say: msg(zh, en)} }
	caaRules        = map[caa.Code]rule{
		caa.CodeInvalidTag:         caaLow("有 CAA 属性的标签不合法，已被忽略。", "A CAA property has an invalid tag and is ignored."),
		caa.CodeReservedFlags:      caaLow("有 CAA 属性设置了保留的标志位。", "A CAA property sets reserved flag bits."),
		caa.CodeIssueMalformed:     caaLow("有 issue 属性的值格式错误，它不授权任何证书颁发机构。", "An issue property is malformed, so it authorizes no certificate authority."),
		caa.CodeIssueWildMalformed: caaLow("有 issuewild 属性的值格式错误，它不授权任何证书颁发机构。", "An issuewild property is malformed, so it authorizes no certificate authority."),
		caa.CodeIssueMailMalformed: caaLow("有 issuemail 属性的值格式错误。", "An issuemail property is malformed."),
		caa.CodeIssuerTrailingDot:  caaLow("有证书颁发机构的域名以点结尾，不符合 CAA 语法，各机构的处理方式不一。", "An issuer name ends with a dot, which the CAA grammar does not allow; certificate authorities handle it differently."),
		caa.CodeIodefInvalid:       caaLow("iodef 报告地址无效。", "The iodef reporting address is invalid."),
	}
	caaNotes = map[caa.Code]text{
		caa.CodeUnknownTag: msg("CAA 记录中有未知的非关键属性，已被忽略。", "The CAA records have unknown non-critical properties, which are ignored."),
	}
	caaFactIssuers   = msg("获得授权的证书颁发机构：%d 个。", "Authorized certificate authorities: %d.")
	caaFactInherited = msg("这些 CAA 记录继承自上级域名。", "These CAA records are inherited from a parent domain.")
	caaInconclusive  = msg("证书颁发机构在 CAA 查询失败时可能拒绝签发。", "Certificate authorities may refuse to issue while CAA lookups fail.")
)

func (r *run) checkCAA(ctx context.Context) verdict {
	res := caa.Check(ctx, r.dns, r.domain.ASCII)
	set := res.Domain
	if set.Outcome == resolver.Inconclusive {
		return inconclusiveVerdict(nil, caaInconclusive.with())
	}
	if set.Outcome != resolver.Found {
		return judge(caaNone, nil, nil, nil)
	}
	applied := rulesFor(set.Findings, caaRules, nil)
	switch {
	case set.CriticalUnknown:
		applied = append(applied, caaCritical)
	case set.Restricts && !set.CanIssue:
		applied = append(applied, caaForbidAll)
	case res.MTASTS.Outcome == resolver.Found && !res.MTASTS.CanIssue && !res.MTASTS.CriticalUnknown:
		applied = append(applied, caaMTASTSForbid)
	case res.MTASTS.CriticalUnknown:
		applied = append(applied, caaCritical)
	}
	ok := caaPass
	if !set.Restricts {
		ok = caaNoRestrict
	}
	facts := notes(set.Findings, caaNotes)
	if set.Restricts && set.IssuerCount > 0 {
		facts = append(facts, caaFactIssuers.with(set.IssuerCount))
	}
	if set.Inherited {
		facts = append(facts, caaFactInherited.with())
	}
	return judge(ok, applied, facts, nil)
}
