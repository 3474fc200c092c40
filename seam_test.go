package mailauth

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver/dnstest"
)

// seamZone is a domain with every check's records, and TXT records
// holding extra.
func seamZone(extra []string) string {
	var b strings.Builder
	b.WriteString("$ORIGIN seam.example.com.\n@ MX 10 mx\nmx A 8.8.8.8\n@ TXT \"v=spf1 mx -all\"\n")
	b.WriteString("_dmarc TXT \"v=DMARC1; p=none\"\n_mta-sts TXT \"v=STSv1; id=1\"\n_smtp._tls TXT \"v=TLSRPTv1; rua=mailto:r@seam.example.com\"\n")
	for _, x := range extra {
		for _, name := range []string{"@", "_dmarc", "_mta-sts", "_smtp._tls"} {
			fmt.Fprintf(&b, "%s TXT \"%s\"\n", name, x)
		}
	}
	return b.String()
}

// seamTokens returns values equal to the seams of the texts: in Chinese
// the runes around each full stop that ends a sentence inside a text, in
// English the words around ". " (recorded whole, as a TXT text is).
func seamTokens(texts []LocalizedText) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] && len(s) >= 4 {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, t := range texts {
		zh := []rune(t.ZH)
		for i, r := range zh {
			if r != '。' || i+1 >= len(zh) {
				continue
			}
			add(string(zh[i : i+2]))
			if i > 0 {
				add(string(zh[i-1 : i+2]))
			}
		}
		words := strings.Fields(t.EN)
		for i := 0; i+1 < len(words); i++ {
			if strings.HasSuffix(words[i], ".") {
				add(words[i] + " " + words[i+1])
			}
		}
	}
	return out
}

// TestSeamTokensAreNotLeaks: TXT records equal to the seams where the
// service joins two sentences, in Chinese ("。记 。其", seen in a soak) and in
// English, neither withhold the result nor replace a check's texts nor
// raise the leak alarm.
func TestSeamTokensAreNotLeaks(t *testing.T) {
	scan := func(extra []string) (ScanSummary, int) {
		leaks := 0
		s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, seamZone(extra))),
			Now: func() time.Time { return fixedNow }, OnLeak: func(_ string, n int) { leaks += n }})
		sum, err := s.Scan(context.Background(), ScanRequest{Domain: "seam.example.com"})
		require.NoError(t, err, "the result was withheld")
		return sum, leaks
	}
	plain, _ := scan(nil)
	texts := append(checkTexts(plain.Checks), plain.Summary)
	tokens := append(seamTokens(texts), "。记 。其", "。其中", "pass. Of these")
	require.NotEmpty(t, seamTokens(texts), "the plain scan joins no sentences: the test proves nothing")
	var zhSeams, enSeams int
	for _, tok := range tokens {
		if utf8.RuneCountInString(tok) != len(tok) {
			zhSeams++
		} else {
			enSeams++
		}
	}
	require.Positive(t, zhSeams)
	require.Positive(t, enSeams)

	sum, leaks := scan(tokens)
	assert.Zero(t, leaks, "leak alarms for seam tokens")
	for _, c := range sum.Checks {
		assert.NotEqual(t, txtInternal.format(), c.Summary, "check %s replaced by the guard", c.ID)
	}
}

// TestOverallSeamNotWithheld: the overall summary joins two sentences
// ("…通过。其中…", "…pass. Of these…"); a recorded wire value equal to its
// seam does not withhold the result.
func TestOverallSeamNotWithheld(t *testing.T) {
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ A 8.8.8.8\n"))})
	r := s.newRun()
	r.guard.AddText("。其中")
	r.guard.AddText("通过。其")
	r.guard.AddText("pass. Of these")
	r.guard.AddText("pass. Of")
	sum := ScanSummary{Domain: "x.example.com", ScannedAt: fixedNow, Summary: overallSummary(GradeB, StatusCounts{Pass: 3, Warn: 2}, 1, 0)}
	r.markGenerated(fixedNow, sum.Summary)
	assert.NoError(t, r.verifyOnly(sum))
}

// TestSeamsStillGuarded: a real wire value across a seam-like place that
// is not one of the service's sentences is still caught.
func TestSeamsStillGuarded(t *testing.T) {
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ A 8.8.8.8\n"))})
	r := s.newRun()
	r.guard.AddText("。kanari-seam.example.net")
	sum := ScanSummary{Domain: "x.example.com", ScannedAt: fixedNow, Summary: LocalizedText{ZH: "好。kanari-seam.example.net", EN: "x"}}
	assert.Error(t, r.verifyOnly(sum))
}

// checkTexts returns the texts of checks.
func checkTexts(checks []CheckSummary) []LocalizedText {
	out := make([]LocalizedText, 0, 3*len(checks))
	for _, c := range checks {
		out = append(out, c.Title, c.Summary, c.Details)
	}
	return out
}
