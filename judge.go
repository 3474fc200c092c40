package mailauth

// rule is one row of a check's judgement table: what a finding means for
// the check's status and severity, and the sentence that says so.
type rule struct {
	status   Status
	severity Severity
	say      text
	args     []int // integer parameters of say, set when the rule applies
}

var statusRank = map[Status]int{StatusInfo: 0, StatusPass: 1, StatusWarn: 2, StatusFail: 3}

var severityRank = map[Severity]int{SeverityInfo: 0, SeverityLow: 1, SeverityMedium: 2, SeverityHigh: 3, SeverityCritical: 4}

// worse reports whether a outranks b: a worse status first, then a higher
// severity.
func (a rule) worse(b rule) bool {
	if statusRank[a.status] != statusRank[b.status] {
		return statusRank[a.status] > statusRank[b.status]
	}
	return severityRank[a.severity] > severityRank[b.severity]
}

// judge turns the rules that apply into a verdict: the worst rule sets
// status, severity and summary; every rule's sentence goes to the
// details, worst first, then the extra fact sentences. With no rule, ok
// is the verdict.
func judge(ok rule, applied []rule, facts []LocalizedText, d Diagnostics) verdict {
	if len(applied) == 0 {
		applied = []rule{ok}
	}
	sorted := make([]rule, 0, len(applied))
	for _, r := range applied {
		i := len(sorted)
		for i > 0 && r.worse(sorted[i-1]) {
			i--
		}
		sorted = append(sorted, rule{})
		copy(sorted[i+1:], sorted[i:])
		sorted[i] = r
	}
	details := make([]LocalizedText, 0, len(sorted)+len(facts))
	seen := map[text]bool{}
	for _, r := range sorted {
		if !seen[r.say] {
			seen[r.say] = true
			details = append(details, r.say.with(r.args...))
		}
	}
	details = append(details, facts...)
	top := sorted[0]
	return verdict{status: top.status, severity: top.severity, summary: top.say.with(top.args...), details: details, diagnostics: d}
}

// rulesFor maps finding codes to their rules through a table; codes
// without a row are ignored (they carry no judgement of their own). args
// gives the integer parameters of the sentences that take some.
func rulesFor[C comparable](codes []C, table map[C]rule, args map[C][]int) []rule {
	var out []rule
	for _, c := range codes {
		if r, ok := table[c]; ok {
			r.args = args[c]
			out = append(out, r)
		}
	}
	return out
}

func intPtr(v int) *int { return &v }

func boolPtr(v bool) *bool { return &v }

func strPtr(v string) *string { return &v }
