package mailauth

import (
	"context"

	"github.com/mailauth/mailauth/caa"
	"github.com/mailauth/mailauth/resolver"
)

var (
	caaPass          = rule{id: "caa.pass", status: StatusPass, severity: SeverityInfo, say: msg("CAA 记录限定了可以为该域名签发证书的证书颁发机构。", "CAA records limit which certificate authorities may issue certificates for the domain.")}
	caaNone          = rule{id: "caa.none", status: StatusInfo, severity: SeverityInfo, say: msg("没有 CAA 记录：任何公开信任的证书颁发机构都可以为该域名签发证书。", "There are no CAA records: any publicly trusted certificate authority may issue certificates for the domain.")}
	caaNoRestrict    = rule{id: "caa.no-restrict", status: StatusInfo, severity: SeverityInfo, say: msg("CAA 记录中没有 issue 或 issuewild 属性，因此不限制证书签发。", "The CAA records have no issue or issuewild property, so they do not restrict issuance.")}
	caaWildOnly      = rule{id: "caa.wild-only", status: StatusInfo, severity: SeverityInfo, say: msg("CAA 记录只限制通配符证书（issuewild），普通证书仍可由任何证书颁发机构签发。", "The CAA records restrict only wildcard certificates (issuewild); any certificate authority may still issue ordinary certificates.")}
	caaCritical      = rule{id: "caa.critical", status: StatusFail, severity: SeverityHigh, say: msg("CAA 记录含有标记为关键（critical）的未知属性，任何证书颁发机构都必须拒绝签发。", "A CAA property marked critical has an unknown tag, so every certificate authority must refuse to issue.")}
	caaForbidAll     = rule{id: "caa.forbid-all", status: StatusWarn, severity: SeverityMedium, say: msg("CAA 记录不允许任何证书颁发机构为该域名签发证书。", "The CAA records allow no certificate authority to issue certificates for the domain.")}
	caaMTASTSForbid  = rule{id: "caa.mta-sts-forbid-all", status: StatusWarn, severity: SeverityMedium, say: msg("适用于 MTA-STS 策略主机的 CAA 记录不允许任何证书颁发机构签发证书，该主机将无法获得或续期证书。", "The CAA records that apply to the MTA-STS policy host allow no certificate authority to issue, so that host cannot obtain or renew a certificate.")}
	caaMTASTSUnknown = rule{id: "caa.mta-sts-inconclusive", status: StatusWarn, severity: SeverityMedium, undetermined: true, say: msg("MTA-STS 策略主机的 CAA 查询没有得到明确结果，证书颁发机构可能拒绝为它签发证书。", "The CAA lookup for the MTA-STS policy host gave no conclusive answer, so certificate authorities may refuse to issue for it.")}
	caaRules         = map[caa.Code]rule{
		caa.CodeInvalidTag:         warnLow("caa.invalid-tag", "部分 CAA 属性的标签不合法，已被忽略。", "Some CAA properties have an invalid tag and are ignored."),
		caa.CodeReservedFlags:      warnLow("caa.reserved-flags", "部分 CAA 属性设置了保留的标志位。", "Some CAA properties set reserved flag bits."),
		caa.CodeIssueMalformed:     warnLow("caa.issue-malformed", "部分 issue 属性的值格式错误，它们不授权任何证书颁发机构。", "Some issue properties are malformed, so they authorize no certificate authority."),
		caa.CodeIssueWildMalformed: warnLow("caa.issue-wild-malformed", "部分 issuewild 属性的值格式错误，它们不授权任何证书颁发机构。", "Some issuewild properties are malformed, so they authorize no certificate authority."),
		caa.CodeIssueMailMalformed: warnLow("caa.issue-mail-malformed", "部分 issuemail 属性的值格式错误。", "Some issuemail properties are malformed."),
		caa.CodeIssuerTrailingDot:  warnLow("caa.issuer-trailing-dot", "部分证书颁发机构的域名以点结尾，不符合 CAA 语法，各机构的处理方式不一。", "Some issuer names end with a dot, which the CAA grammar does not allow; certificate authorities handle this differently."),
		caa.CodeIssuerCase:         warnLow("caa.issuer-case", "部分证书颁发机构的域名含有大写字母；有些证书颁发机构会与自己的小写名称逐字比较，因此拒绝签发。", "Some issuer names contain upper-case letters; some certificate authorities compare the name exactly with their own lower-case form and refuse to issue."),
		caa.CodeCriticalOptional:   {id: "caa.critical-optional", status: StatusWarn, severity: SeverityMedium, say: msg("部分标记为关键（critical）的 CAA 属性使用了证书颁发机构不必实现的标签（例如 contactemail 或 contactphone），不实现该标签的证书颁发机构必须拒绝签发。", "A CAA property marked critical has a tag that certificate authorities are not required to implement (such as contactemail or contactphone); an authority that does not implement it must refuse to issue.")},
		caa.CodeIodefInvalid:       warnLow("caa.iodef-invalid", "iodef 报告地址无效。", "The iodef reporting address is invalid."),
	}
	caaNotes = map[caa.Code]text{
		caa.CodeUnknownTag: msg("CAA 记录中有未知的非关键属性，已被忽略。", "The CAA records have unknown non-critical properties, which are ignored."),
	}
	caaFactIssuers   = msg("获得授权的证书颁发机构共 %d 个。", "Authorized certificate authorities: %d.")
	caaFactNone      = msg("该域名及其上级域名都没有 CAA 记录。", "Neither the domain nor its parent domains have CAA records.")
	caaFactInherited = msg("这些 CAA 记录继承自上级域名。", "These CAA records are inherited from a parent domain.")
	caaInconclusive  = msg("证书颁发机构在 CAA 查询失败时可能拒绝签发。", "Certificate authorities may refuse to issue while CAA lookups fail.")
)

func (r *run) checkCAA(ctx context.Context, dns resolver.Resolver) verdict {
	return *judgeAt(judgeCAA, onHeap(caa.Check, ctx, dns, r.domain.ASCII))
}

// caaIgnored are the CAA findings without a rule of their own, and why.
var caaIgnored = map[caa.Code]string{
	caa.CodeCriticalUnknown: "judged by the state rule caaCritical (Set.CriticalUnknown)",
	caa.CodeClimbTruncated:  "the search is then inconclusive: judged by the inconclusive verdict",
}

// judgeCAA is the verdict on the facts of a CAA check; it does no I/O.
func judgeCAA(res caa.Result) verdict {
	set := res.Domain
	if set.Outcome == resolver.Inconclusive {
		return inconclusiveVerdict(nil, caaInconclusive.with())
	}
	state := caaState(set)
	findings := append(rulesFor(set.Findings, caaRules, nil), caaMTASTSRules(set, res.MTASTS)...)
	facts := []LocalizedText{caaFactNone.with()}
	if set.Outcome == resolver.Found {
		facts = append(caaExplain(set), notes(set.Findings, caaNotes)...)
		if set.IssuerCount > 0 {
			facts = append(facts, caaFactIssuers.with(set.IssuerCount))
		}
		if set.Inherited {
			facts = append(facts, caaFactInherited.with())
		}
	}
	return judgeState(state, findings, facts, nil)
}

// caaState is the rule for the domain's relevant set (RFC 8659 §3).
func caaState(set caa.Set) rule {
	switch {
	case set.Outcome != resolver.Found:
		return caaNone
	case set.CriticalUnknown:
		return caaCritical
	case !set.CanIssue:
		return caaForbidAll // issue ";" or only malformed issue values
	case set.IssuerCount > 0:
		return caaPass
	case set.Restricts:
		return caaWildOnly
	}
	return caaNoRestrict
}

// caaMTASTSRules judges the set that governs mta-sts.<domain>, whose
// certificate MTA-STS needs, when it says more than the domain's set.
func caaMTASTSRules(domain, sts caa.Set) []rule {
	switch {
	case sts.Outcome == resolver.Inconclusive:
		return []rule{caaMTASTSUnknown}
	case sts.Outcome != resolver.Found:
		return nil
	case sts.CriticalUnknown && !domain.CriticalUnknown:
		return []rule{caaMTASTSForbid}
	case !sts.CanIssue && (domain.CanIssue || domain.Outcome != resolver.Found):
		return []rule{caaMTASTSForbid}
	}
	return nil
}

// caaCheckRules lists the check's rules for the developer page: its named
// verdicts and the values of its finding table.
func caaCheckRules() []rule {
	return append([]rule{caaPass, caaNone, caaNoRestrict, caaWildOnly, caaCritical, caaForbidAll,
		caaMTASTSForbid, caaMTASTSUnknown}, tableRules(caaRules)...)
}
