package mailauth

import (
	"maps"
	"regexp"
	"slices"
)

// The scoring and judgement tables, read-only, for documentation: the
// /developers/api/ page is rendered from these, so what it says is what
// the code does.

// ScoreWeight is the weight of one check in the score.
type ScoreWeight struct {
	Check  CheckID
	Title  LocalizedText
	Weight int
}

// ScoreWeights returns the weight of every check, in [CheckOrder]. A pass
// earns the whole weight, a warn half of it, a fail nothing; an info check
// counts in neither the points nor the total.
func ScoreWeights() []ScoreWeight {
	out := make([]ScoreWeight, 0, len(checkTable))
	for _, c := range checkTable {
		out = append(out, ScoreWeight{Check: c.id, Title: c.title.with(), Weight: c.weight})
	}
	return out
}

// GradeFloor is the lowest score that earns a grade.
type GradeFloor struct {
	Grade    Grade
	MinScore int
}

// GradeFloors returns the grades, best first, each with its lowest score.
func GradeFloors() []GradeFloor {
	out := make([]GradeFloor, 0, len(gradeFloors))
	for _, f := range gradeFloors {
		out = append(out, GradeFloor{Grade: f.grade, MinScore: f.min})
	}
	return out
}

// StatusRule is one verdict a check can reach: its id, its status, its
// severity and the sentence that states it (a count in the sentence is
// written N).
type StatusRule struct {
	// ID names the finding for good, whatever its sentence says: the
	// check's id (scan for the rules shared by every check), a dot and
	// the finding in kebab case, such as spf.lookup-limit-exceeded. It is
	// a valid URL fragment and HTML id; the help pages anchor each
	// finding by it.
	ID string
	// Check is the check the rule belongs to; empty for the rules that
	// apply to every check (a lookup that could not be concluded).
	Check    CheckID
	Status   Status
	Severity Severity
	Text     LocalizedText
}

// StatusRules returns every verdict of the judgement tables: first the
// rules shared by all checks, then each check's rules in [CheckOrder],
// worst first. When a check has several findings, the worst one sets the
// check's status, severity and summary; the others go to its details.
func StatusRules() []StatusRule {
	var out []StatusRule
	for _, r := range sortRules(sharedRules()) {
		out = append(out, docRule("", r))
	}
	for _, c := range checkTable {
		seen := map[string]bool{}
		for _, r := range sortRules(append(c.rules(), tooLongRules(c.id)...)) {
			if !seen[r.id] {
				seen[r.id] = true
				out = append(out, docRule(c.id, r))
			}
		}
	}
	return out
}

// sharedRules are the verdicts any check can reach.
func sharedRules() []rule {
	return append([]rule{
		{id: "scan.inconclusive", status: StatusWarn, severity: SeverityMedium, say: txtInconclusive, undetermined: true},
		{id: "scan.timed-out", status: StatusWarn, severity: SeverityMedium, say: txtTimedOut, undetermined: true},
		{id: "scan.internal-error", status: StatusWarn, severity: SeverityMedium, say: txtInternal, undetermined: true},
	}, attributionRules()...)
}

// notEvaluated is the info rule of a check that lacks its input.
func notEvaluated(id string, say text) rule {
	return rule{id: id, status: StatusInfo, severity: SeverityInfo, say: say}
}

// tableRules returns the rules of a finding table in a stable order.
func tableRules[C comparable](table map[C]rule) []rule {
	out := slices.Collect(maps.Values(table))
	slices.SortStableFunc(out, func(a, b rule) int {
		switch {
		case a.say.en < b.say.en:
			return -1
		case a.say.en > b.say.en:
			return 1
		}
		return 0
	})
	return out
}

// countVerb matches the integer parameters of a catalogue text.
var countVerb = regexp.MustCompile(`%(\[\d+\])?d`)

// docRule renders a rule for documentation, its counts written N.
func docRule(id CheckID, r rule) StatusRule {
	return StatusRule{
		ID:       r.id,
		Check:    id,
		Status:   r.status,
		Severity: r.severity,
		Text:     LocalizedText{ZH: countVerb.ReplaceAllString(r.say.zh, "N"), EN: countVerb.ReplaceAllString(r.say.en, "N")},
	}
}

// CheckTitle returns the bilingual title of a check, or an empty text for
// an unknown id.
func CheckTitle(id CheckID) LocalizedText {
	t, ok := titles[id]
	if !ok {
		return LocalizedText{}
	}
	return t.with()
}
