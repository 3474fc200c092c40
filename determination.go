package mailauth

import "github.com/mailauth/mailauth/internal/report"

// The API's JSON has no field for "could not be determined" (the
// contract fixes CheckSummary's fields), so a client that reads the JSON
// restores CheckSummary.Determination from the summary sentence. The
// sentences form a closed set taken from the rules marked undetermined,
// and no other rule says any of them (TestUndeterminedSentencesAreOwn), so
// the reading is exact. The scanner itself never reads texts: it carries
// the rule's mark.

// UndeterminedSummaries returns the summary sentences of every rule that
// leaves a check undetermined, in both languages. The web page and the
// command line's -server mode read a check as undetermined when its
// summary is one of them.
func UndeterminedSummaries() []LocalizedText {
	var out []LocalizedText
	for _, r := range allRules() {
		if r.undetermined {
			out = append(out, r.say.format())
		}
	}
	return out
}

// NXDomainSummary returns the MX check's summary for a domain that does
// not exist in the DNS (NXDOMAIN), in both languages. The web page reads
// a scan as "the domain does not exist" when the mx check says it.
func NXDomainSummary() LocalizedText { return mxNXDomain.say.format() }

// RestoreDetermination sets the Determination of every check of a
// result decoded from the API's JSON, from its summary sentence.
func RestoreDetermination(checks []CheckSummary) {
	for i := range checks {
		checks[i].Determination = determinationOf(checks[i].Summary)
	}
}

// determinationOf is the determination a summary sentence stands for.
func determinationOf(summary LocalizedText) Determination {
	switch summary {
	case txtTimedOut.format():
		return report.UndeterminedTimeout
	case txtInternal.format():
		return report.UndeterminedInternal
	case slowRule.say.format():
		return report.UndeterminedSlow
	}
	for _, t := range UndeterminedSummaries() {
		if t == summary {
			return report.UndeterminedLookup
		}
	}
	return report.Determined
}

// allRules lists the shared rules and every check's table.
func allRules() []rule {
	out := sharedRules()
	for _, c := range checkTable {
		out = append(out, c.rules()...)
	}
	return out
}
