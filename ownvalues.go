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
	var g generatedValues
	if !stamp.IsZero() {
		g.vals = append(g.vals, stamp.Format(time.RFC3339Nano))
	}
	for _, t := range texts {
		g.addDigits(t)
	}
	r.guard.Generated(g.vals...)
}

// markChecksGenerated is markGenerated (with no timestamp) for the
// title, summary and details of each check, read in place.
func (r *run) markChecksGenerated(checks []CheckSummary) {
	var g generatedValues
	for _, c := range checks {
		g.addDigits(c.Title)
		g.addDigits(c.Summary)
		g.addDigits(c.Details)
	}
	r.guard.Generated(g.vals...)
}

// generatedValues collects the distinct values markGenerated passes to
// the guard.
type generatedValues struct {
	vals []string
	seen map[string]bool // made at the first digit run
}

// addDigits adds the digit runs of both languages of t.
func (g *generatedValues) addDigits(t LocalizedText) {
	for _, s := range [...]string{t.ZH, t.EN} {
		for n, at := nextDigitRun(s, 0); n != ""; n, at = nextDigitRun(s, at) {
			if g.seen == nil {
				g.seen = make(map[string]bool)
			}
			if !g.seen[n] {
				g.seen[n] = true
				g.vals = append(g.vals, n)
			}
		}
	}
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
