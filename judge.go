package mailauth

import "sort"

// rule is one row of a check's judgement table: what a finding means for
// the check's status and severity, and the sentence that says so.
type rule struct {
	// id names the finding for good: the check's id, a dot and what the
	// finding says in kebab case (spf.lookup-limit-exceeded). Help texts,
	// the help pages' anchors and the developer page key by it; it never
	// changes when the sentence is reworded.
	id       string
	status   Status
	severity Severity
	say      text
	args     []int // integer parameters of say, set when the rule applies
	// undetermined marks a rule that says the check could not be
	// determined: a lookup (or the fetch) that decides its status gave no
	// conclusive answer. A verdict led by such a rule is undetermined
	// (CheckSummary.Determination), whatever its text.
	undetermined bool
	// slow marks the undetermined rule of slowness (slowRule): its
	// verdict is UndeterminedSlow.
	slow bool
	// partial marks a determined finding that says some of the check's
	// lookups gave no conclusive answer (the others did). A verdict led
	// by it rests on those lookups: when they ran out of time, the check
	// is slowness instead (attributed), never a warn built on a time-out.
	partial bool
}

// determination is what a verdict led by a says of the check's
// conclusion.
func (a rule) determination() Determination {
	if a.slow {
		return UndeterminedSlow
	}
	if a.undetermined {
		return UndeterminedLookup
	}
	return Determined
}

// warnLow is the rule of a finding that warns with low severity, the
// commonest row of the judgement tables.
func warnLow(id, zh, en string) rule {
	return rule{id: id, status: StatusWarn, severity: SeverityLow, say: msg(zh, en)}
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

// judge is the verdict of a check whose findings say it all: with no
// finding, ok is the verdict; otherwise the worst finding leads.
func judge(ok rule, applied []rule, facts []LocalizedText, d Diagnostics) verdict {
	if len(applied) == 0 {
		return judgeState(ok, nil, facts, d)
	}
	sorted := sortRules(applied)
	return judgeState(sorted[0], sorted[1:], facts, d)
}

// judgeState is the verdict of a check with a state sentence that always
// holds (the applied DMARC policy, the MTA-STS mode): it opens the
// details. The worst of the state and the findings sets status, severity
// and summary; the details hold the other sentences (state first, then
// findings worst first, then facts), never repeating the summary.
func judgeState(state rule, findings []rule, facts []LocalizedText, d Diagnostics) verdict {
	sorted := sortRules(findings)
	top := state
	if len(sorted) > 0 && sorted[0].worse(state) {
		top = sorted[0]
	}
	details := make([]LocalizedText, 0, 1+len(sorted)+len(facts))
	seen := map[text]bool{top.say: true} // the summary is not repeated
	for _, r := range append([]rule{state}, sorted...) {
		if !seen[r.say] {
			seen[r.say] = true
			details = append(details, r.say.with(r.args...))
		}
	}
	details = append(details, facts...)
	return verdict{status: top.status, severity: top.severity, summary: top.say.with(top.args...), details: details, diagnostics: d,
		determination: top.determination(), partial: top.partial}
}

// sortRules returns rules worst first; equal rules keep their order.
func sortRules(rules []rule) []rule {
	out := append([]rule(nil), rules...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].worse(out[j]) })
	return out
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

// valueOf is the value of an optional fact, the zero value when it is
// unknown (nil).
func valueOf[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

func boolPtr(v bool) *bool { return &v }

func strPtr(v string) *string { return &v }

// withRule returns a copy of table with code's rule replaced.
func withRule[C comparable](table map[C]rule, code C, r rule) map[C]rule {
	out := make(map[C]rule, len(table))
	for k, v := range table {
		out[k] = v
	}
	out[code] = r
	return out
}
