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
	var seen map[string]bool // made at the first digit run
	add := func(s string) {
		for n, at := nextDigitRun(s, 0); n != ""; n, at = nextDigitRun(s, at) {
			if seen == nil {
				seen = make(map[string]bool)
			}
			if !seen[n] {
				seen[n] = true
				vals = append(vals, n)
			}
		}
	}
	for _, t := range texts {
		add(t.ZH)
		add(t.EN)
	}
	r.guard.Generated(vals...)
}

// nextDigitRun returns the first maximal run of ASCII digits in s at or
// after from, and the index just past it; "" when there is none.
func nextDigitRun(s string, from int) (run string, next int) {
	i := from
	for i < len(s) && s[i]-'0' > 9 { // bytes below '0' wrap past 9
		i++
	}
	start := i
	for i < len(s) && s[i]-'0' <= 9 {
		i++
	}
	return s[start:i], i
}

// checkTexts returns the texts of checks.
func checkTexts(checks []CheckSummary) []LocalizedText {
	out := make([]LocalizedText, 0, 3*len(checks))
	for _, c := range checks {
		out = append(out, c.Title, c.Summary, c.Details)
	}
	return out
}
