package mailauth

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth/caa"
	"github.com/mailauth/mailauth/dkim"
	"github.com/mailauth/mailauth/dmarc"
	"github.com/mailauth/mailauth/mtasts"
	"github.com/mailauth/mailauth/mx"
	"github.com/mailauth/mailauth/ptr"
	"github.com/mailauth/mailauth/spf"
	"github.com/mailauth/mailauth/tlsrpt"
)

// judgedCodes checks one protocol package: every code it can report has
// exactly one of a judgement rule, a note, or an explicit "ignored
// because" entry, and every table entry is a code the package reports.
func judgedCodes[C ~string](t *testing.T, name string, codes []C, rules map[C]rule, notes map[C]text, ignored map[C]string) {
	t.Helper()
	known := map[C]bool{}
	for _, c := range codes {
		known[c] = true
		_, r := rules[c]
		_, n := notes[c]
		why, i := ignored[c]
		assert.True(t, r || n || i, "%s finding %q has no judgement rule, no note and no ignored-because entry", name, c)
		assert.False(t, r && n || r && i || n && i, "%s finding %q is in more than one of rules, notes and ignored", name, c)
		if i {
			assert.NotEmpty(t, why, "%s finding %q is ignored without a reason", name, c)
		}
	}
	for c := range rules {
		assert.True(t, known[c], "%s rule for %q, which Codes() does not list", name, c)
	}
	for c := range notes {
		assert.True(t, known[c], "%s note for %q, which Codes() does not list", name, c)
	}
	for c := range ignored {
		assert.True(t, known[c], "%s ignores %q, which Codes() does not list", name, c)
	}
}

// TestEveryCodeJudged: a finding code added to a protocol package fails
// this test until the root decides what it means.
func TestEveryCodeJudged(t *testing.T) {
	judgedCodes(t, "spf", spf.Codes(), spfRules, spfNotes, spfIgnored)
	judgedCodes(t, "dmarc", dmarc.Codes(), dmarcRules, dmarcNotes, dmarcIgnored)
	judgedCodes(t, "dkim", dkim.Codes(), dkimRules, nil, nil)
	judgedCodes(t, "mx", mx.Codes(), mxRules, nil, mxIgnored)
	judgedCodes(t, "mta-sts", mtasts.Codes(), stsRules, stsNotes, nil)
	judgedCodes(t, "tls-rpt", tlsrpt.Codes(), rptRules, rptNotes, nil)
	judgedCodes(t, "ptr", ptr.Codes(), ptrRules, nil, ptrIgnored)
	judgedCodes(t, "caa", caa.Codes(), caaRules, caaNotes, caaIgnored)
}
