package mailauth

import (
	"context"
	"net/netip"

	"github.com/mailauth/mailauth/ptr"
	"github.com/mailauth/mailauth/resolver"
)

var (
	ptrPass         = rule{id: "ptr.pass", status: StatusPass, severity: SeverityInfo, say: msg("发件 IP 有反向解析名称，且该名称的正向解析指回同一 IP（正向确认通过）。", "The sending IP has a reverse DNS name that resolves back to the same IP (forward-confirmed).")}
	ptrNoPTR        = rule{id: "ptr.no-ptr", status: StatusFail, severity: SeverityHigh, say: msg("发件 IP 没有反向解析（PTR）记录，许多接收方会拒收或降低其邮件评分。", "The sending IP has no reverse DNS (PTR) record; many receivers reject or down-rank its mail.")}
	ptrMismatch     = rule{id: "ptr.mismatch", status: StatusFail, severity: SeverityHigh, say: msg("反向解析得到的名称无法正向解析回该 IP，正向确认失败。", "The reverse DNS names do not resolve back to the IP, so forward confirmation fails.")}
	ptrNoUsableName = rule{id: "ptr.no-usable-name", status: StatusFail, severity: SeverityHigh, say: msg("反向解析名称都不是可用的主机名，无法进行正向确认。", "None of the reverse DNS names is a usable host name, so forward confirmation is impossible.")}
	ptrUnknown      = rule{id: "ptr.inconclusive", status: StatusWarn, severity: SeverityMedium, undetermined: true, say: msg("部分正向查询没有得到明确结果，无法确认反向解析。", "Some forward lookups gave no conclusive answer, so the reverse DNS could not be confirmed.")}
	ptrRules        = map[ptr.Code]rule{
		ptr.CodeLocalhostName: {id: "ptr.localhost-name", status: StatusWarn, severity: SeverityMedium, say: msg("反向解析指向 localhost，这不是一个可用的发件主机名。", "The reverse DNS name is localhost, which is not a usable sender host name.")},
		ptr.CodeInvalidName:   {id: "ptr.invalid-name", status: StatusWarn, severity: SeverityLow, say: msg("部分反向解析名称不是合法的主机名。", "A reverse DNS name is not a valid host name.")},
		ptr.CodeTooManyNames:  {id: "ptr.too-many-names", status: StatusWarn, severity: SeverityLow, say: msg("该 IP 的反向解析名称超过 %d 个，只对其中 %d 个做了正向查询。", "The IP has more than %d reverse DNS names; only %d were looked up forward.", ptr.MaxForward, ptr.MaxForward)},
		ptr.CodeGenericName:   {id: "ptr.generic-name", status: StatusWarn, severity: SeverityLow, say: msg("反向解析名称看起来是接入网的通用名称（包含 IP 数字），部分接收方会将其视为家用或动态地址。", "The reverse DNS name looks generic (it embeds the IP's digits); some receivers treat such names as residential or dynamic.")},
	}
	ptrFactNames = msg("反向解析名称共 %d 个，其中 %d 个做了正向查询。", "Reverse DNS names found: %d; looked up forward: %d.")
)

// ptrBaseDiagnostics returns the PTR diagnostics that depend only on the
// address: its version and the forward record type.
func ptrBaseDiagnostics(ip netip.Addr) *PTRDiagnostics {
	d := &PTRDiagnostics{IPVersion: 4, ForwardRecordType: ForwardA}
	if ip.Unmap().Is6() {
		d.IPVersion, d.ForwardRecordType = 6, ForwardAAAA
	}
	return d
}

func (r *run) checkPTR(ctx context.Context, dns resolver.Resolver) verdict {
	if !r.ip.IsValid() {
		return infoVerdict(txtPTRNotEvaluated, txtPTRNotEvaluatedDetails)
	}
	return judgePTR(r.ip, ptr.Check(ctx, dns, r.ip))
}

// ptrIgnored are the PTR findings without a rule of their own, and why.
var ptrIgnored = map[ptr.Code]string{
	ptr.CodeNoPTR:               "judged by the state rule ptrNoPTR",
	ptr.CodeForwardInconclusive: "judged by the state rule ptrUnknown (Result.Confirmed is Unknown)",
}

// judgePTR is the verdict on the facts of the PTR check of ip; it does no
// I/O.
func judgePTR(ip netip.Addr, res ptr.Result) verdict {
	d := ptrDiagnostics(ip, res)
	if res.Outcome == resolver.Inconclusive {
		return inconclusiveVerdict(d)
	}
	facts := []LocalizedText{ptrFactNames.with(valueOf(res.NameCount), res.ForwardQueries)}
	if codeSet(res.Findings)[ptr.CodeNoPTR] {
		return judge(ptrNoPTR, nil, []LocalizedText{ptrFactNoPTR.with()}, d)
	}
	main := ptrPass
	switch {
	case res.Confirmed == ptr.NotConfirmed && res.ForwardQueries == 0:
		main = ptrNoUsableName
	case res.Confirmed == ptr.NotConfirmed:
		main = ptrMismatch
	case res.Confirmed == ptr.Unknown:
		main = ptrUnknown
	}
	return judgeState(main, rulesFor(res.Findings, ptrRules, nil), facts, d)
}

func ptrDiagnostics(ip netip.Addr, res ptr.Result) *PTRDiagnostics {
	d := ptrBaseDiagnostics(ip)
	d.ForwardQueryCount = res.ForwardQueries
	d.ForwardQueriesCompleted = res.ForwardCompleted
	d.PTRRecordCount, d.ForwardAddressCount = res.NameCount, res.ForwardAddresses
	switch res.Confirmed {
	case ptr.Confirmed:
		d.ForwardConfirmed = boolPtr(true)
	case ptr.NotConfirmed:
		d.ForwardConfirmed = boolPtr(false)
	}
	return d
}

// ptrCheckRules lists the check's rules for the developer page: its named
// verdicts and the values of its finding table.
func ptrCheckRules() []rule {
	return append([]rule{notEvaluated("ptr.not-evaluated", txtPTRNotEvaluated), ptrPass, ptrNoPTR, ptrMismatch, ptrNoUsableName, ptrUnknown},
		tableRules(ptrRules)...)
}
