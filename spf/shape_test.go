package spf

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// refShape computes the shape of rec from Parse's Record, term by parsed
// term (the first all, the ranges before it, the terms that cause
// lookups): the reference shapeOf is checked against.
func refShape(rec Record) shape {
	var sh shape
	all, at := rec.All()
	sh.all, sh.hasAll = all, at >= 0
	for i, t := range rec.Terms {
		switch {
		case t.Kind == KindRedirect:
			sh.redirect = true
		case t.Kind == KindModifier:
			sh.modifier = true
		case sh.hasAll && i > at && t.IsMechanism():
			sh.dead = true
		}
	}
	for i, t := range rec.Terms {
		if at >= 0 && i > at {
			break
		}
		if (t.Kind == KindIP4 || t.Kind == KindIP6) && t.Qualifier == QualifierPass && t.Net.Bits() == 0 {
			sh.rangeAll = true
			break
		}
	}
	var redirect *Term
	for i, t := range rec.Terms {
		switch {
		case t.Kind == KindRedirect:
			redirect = &rec.Terms[i]
		case (!sh.hasAll || i < at) && t.CausesLookup() && t.Kind != KindModifier:
			sh.steps = append(sh.steps, step{term: t})
		}
	}
	if redirect != nil && !sh.hasAll {
		sh.steps = append(sh.steps, step{term: *redirect})
	}
	return sh
}

// checkShape requires shapeOf(s) to fail exactly as Parse(s) does and
// otherwise to equal refShape of Parse's record.
func checkShape(t *testing.T, s string) {
	t.Helper()
	rec, perr := Parse(s)
	sh, err := shapeOf(s)
	if perr != nil {
		require.Equal(t, perr, err, "shapeOf(%q) error", s)
		return
	}
	require.NoError(t, err, "shapeOf(%q)", s)
	require.Equal(t, refShape(rec), sh, "shapeOf(%q)", s)
}

var shapeSeeds = []string{
	"v=spf1", "v=spf1 ", "v=spf1 -all", "V=SPF1 MX -ALL", bench20,
	"v=spf1 a/24//64 mx:example.net/28 -all", "v=spf1 a:%{d}/0//0 mx//128",
	"v=spf1 ip4:0.0.0.0/0 -all", "v=spf1 -all ip4:0.0.0.0/0", "v=spf1 ?ip6:::/0 +ip6:::/0",
	"v=spf1 include:a.example -all include:b.example a mx ptr exists:c.example",
	"v=spf1 include:a.example redirect=b.example", "v=spf1 redirect=b.example ~all",
	"v=spf1 foo=bar -all exp=x.example", "v=spf1 -all -all", "v=spf1 +all redirect=x.example foo=%{d}",
	"v=spf1 redirect=a.example redirect=b.example", "v=spf1 -all garbage!", "v=spf1 ip4:1.2.3.4/33",
	"v=spf1 exp=a.example exp=b.example", "v=spf10", "spf1", "",
}

// TestShapeMatchesParse checks shapeOf against the walk's former reading
// of a parsed record on the seeds.
func TestShapeMatchesParse(t *testing.T) {
	for _, s := range shapeSeeds {
		checkShape(t, s)
	}
}

// FuzzShape checks shapeOf against the walk's former reading of a parsed
// record (refShape of Parse) on any string: the same error, or the same
// facts and steps.
func FuzzShape(f *testing.F) {
	for _, s := range shapeSeeds {
		f.Add(s)
	}
	f.Fuzz(checkShape)
}
