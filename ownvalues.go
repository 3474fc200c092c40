package mailauth

import "time"

// markGenerated tells the redaction guard which values of a response the
// service produced itself: the timestamp it formatted and every number it
// printed into a text (catalogue texts take integers only, see text.with,
// so each ASCII digit run in them is ours). A wire value that happens to
// coincide with one of them ("4T05" inside "2026-11-24T05:…") is then not
// mistaken for a leak, while every other part of the response stays
// guarded (redact.Set.Generated).
func (r *run) markGenerated(stamp time.Time, texts ...LocalizedText) {
	var vals []string
	if !stamp.IsZero() {
		vals = append(vals, stamp.Format(time.RFC3339Nano))
	}
	seen := map[string]bool{}
	for _, t := range texts {
		for _, s := range []string{t.ZH, t.EN} {
			for _, n := range digitRuns(s) {
				if !seen[n] {
					seen[n] = true
					vals = append(vals, n)
				}
			}
		}
	}
	r.guard.Generated(vals...)
}

// digitRuns returns the maximal runs of ASCII digits in s.
func digitRuns(s string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		digit := i < len(s) && s[i] >= '0' && s[i] <= '9'
		switch {
		case digit && start < 0:
			start = i
		case !digit && start >= 0:
			out = append(out, s[start:i])
			start = -1
		}
	}
	return out
}

// checkTexts returns the texts of checks.
func checkTexts(checks []CheckSummary) []LocalizedText {
	out := make([]LocalizedText, 0, 3*len(checks))
	for _, c := range checks {
		out = append(out, c.Title, c.Summary, c.Details)
	}
	return out
}
