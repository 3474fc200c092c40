package mailauth

// One cause, told once: when several checks fail for the same
// domain-side DNS fault (CheckSummary.DNSFault: the name servers do not
// answer, DNSSEC validation fails, a CNAME chain loops), the overall
// summary names that cause first, with the number of checks it fails.
// The page's headline and its fix-first list do the same from the checks'
// summaries (FaultSummaries); the grade stays what the checks earn.

// txtOneCause is the sentence that opens the overall summary, by fault.
var txtOneCause = map[DNSFault]text{
	DNSFaultNoAnswer: msg("同一个原因导致 %d 项检查失败：该域名的域名服务器没有应答（拒绝查询、无响应或响应超时），收件方同样查不到它的记录。",
		"One cause fails %d checks: the domain's name servers do not answer (they refuse, stay silent or answer too late), so receivers cannot read its records either."),
	DNSFaultDNSSEC: msg("同一个原因导致 %d 项检查失败：该域名的 DNSSEC 签名无法通过验证，进行验证的收件方看不到它的任何记录。",
		"One cause fails %d checks: the domain's DNSSEC signatures do not validate, so receivers that validate see none of its records."),
	DNSFaultAlias: msg("同一个原因导致 %d 项检查失败：该域名的别名（CNAME）链循环或过长，解析器会放弃查询，收件方同样查不到这些记录。",
		"One cause fails %d checks: an alias (CNAME) chain of the domain loops or is too long, so resolvers give up on it and receivers cannot read these records either."),
}

// OneCause returns the domain-side DNS fault that the failing checks of
// a scan share and how many checks it fails: at least two checks failed
// for a fault, and all of those for the same one. Otherwise it returns
// NoDNSFault and 0.
func OneCause(checks []CheckSummary) (DNSFault, int) {
	cause, n := NoDNSFault, 0
	for _, c := range checks {
		if c.Status != StatusFail || c.DNSFault == NoDNSFault {
			continue
		}
		if cause != NoDNSFault && c.DNSFault != cause {
			return NoDNSFault, 0 // two causes: each check tells its own
		}
		cause, n = c.DNSFault, n+1
	}
	if n < 2 {
		return NoDNSFault, 0
	}
	return cause, n
}

// oneCauseFirst puts the shared cause before the overall summary.
func oneCauseFirst(summary LocalizedText, checks []CheckSummary) LocalizedText {
	f, n := OneCause(checks)
	t, ok := txtOneCause[f]
	if !ok {
		return summary
	}
	return joinTexts([]LocalizedText{t.with(n), summary})
}

// FaultSummaries returns, by fault, the summaries a check failed for that
// domain-side DNS fault carries (the domain's own name, then a name its
// records point to): the page groups the checks by them, since the
// contract has no field for the fault.
func FaultSummaries() map[DNSFault][]LocalizedText {
	out := map[DNSFault][]LocalizedText{}
	for f, pair := range faultRules {
		out[f] = []LocalizedText{pair[0].say.format(), pair[1].say.format()}
	}
	return out
}
