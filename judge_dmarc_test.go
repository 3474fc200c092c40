package mailauth

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/dmarc"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// dmarcFound is the Result of a record found at the domain itself with
// policy p and the given findings.
func dmarcFound(p dmarc.Policy, codes ...dmarc.Code) dmarc.Result {
	return dmarc.Result{
		Domain: "example.com", Outcome: resolver.Found, DirectRecordCount: new(1), Discovery: dmarc.DiscoveryFound,
		TreeWalkQueries: 1, DomainExistence: dmarc.Exists, PolicyDomain: "example.com", PolicyTag: dmarc.TagP,
		Policy: p, DKIMAlignment: dmarc.AlignmentRelaxed, SPFAlignment: dmarc.AlignmentRelaxed,
		AggregateReporting: true, Findings: codes,
	}
}

// TestJudgeDMARCPinned pins the verdict of every DMARC finding with a
// rule on a p=reject record: status and severity are written here, so a
// changed rule fails until its row changes too; the rule's sentence must
// be the summary.
func TestJudgeDMARCPinned(t *testing.T) {
	pins := map[dmarc.Code]pin{
		dmarc.CodeLegacyPct:           {StatusWarn, SeverityLow},
		dmarc.CodeDuplicateTag:        {StatusWarn, SeverityLow},
		dmarc.CodeUppercaseVersionTag: {StatusWarn, SeverityLow},
		dmarc.CodeTagNameCase:         {StatusWarn, SeverityMedium},
		dmarc.CodeMalformedTag:        {StatusWarn, SeverityLow},
		dmarc.CodeInvalidADKIM:        {StatusWarn, SeverityLow},
		dmarc.CodeInvalidASPF:         {StatusWarn, SeverityLow},
		dmarc.CodeInvalidT:            {StatusWarn, SeverityLow},
		dmarc.CodeInvalidPSD:          {StatusWarn, SeverityLow},
		dmarc.CodeInvalidFO:           {StatusWarn, SeverityLow},
		dmarc.CodeInvalidRUF:          {StatusWarn, SeverityLow},
		dmarc.CodeNearerRecordIgnored: {StatusWarn, SeverityLow},
		dmarc.CodeSubdomainPolicyNone: {StatusWarn, SeverityMedium},
		dmarc.CodeExistenceUnknown:    {StatusWarn, SeverityMedium},
		// Reports that go nowhere: the check still passes, but the
		// problem leads its summary with severity low.
		dmarc.CodeInvalidRUA:           {StatusPass, SeverityLow},
		dmarc.CodeExternalUnauthorized: {StatusPass, SeverityLow},
		dmarc.CodeURINoAddress:         {StatusPass, SeverityLow},
	}
	runRows(t, pinnedRows(t, dmarcRules, pins, func(c dmarc.Code) (verdict, []int) {
		res := dmarcFound(dmarc.PolicyReject, c)
		if c == dmarc.CodeLegacyPct {
			res.LegacyPctPresent, res.LegacyPct = true, 30
			return judgeDMARC(res), []int{30, 30}
		}
		return judgeDMARC(res), nil
	}))
}

// TestJudgeDMARCReportsNowhere: a finding that stops reports from
// arriving is not hidden in the details of a green card: the check still
// passes (the policy protects), but with severity low and the problem as
// its summary, the policy's sentence in the details.
func TestJudgeDMARCReportsNowhere(t *testing.T) {
	for _, c := range []dmarc.Code{dmarc.CodeInvalidRUA, dmarc.CodeExternalUnauthorized, dmarc.CodeURINoAddress} {
		v := judgeDMARC(dmarcFound(dmarc.PolicyReject, c))
		assert.Equal(t, StatusPass, v.status, "%s: status", c)
		assert.Equal(t, SeverityLow, v.severity, "%s: severity", c)
		assert.Equal(t, dmarcRules[c].say.format(), v.summary, "%s: summary", c)
		assert.Contains(t, joinTexts(v.details).EN, dmarcPassReject.say.en, "%s: details lack the policy", c)
	}
}

// TestJudgeDMARCPct: pct is judged by its value. pct=100, the form
// providers' wizards write, is a details note under a pass; pct below 100
// is the warning, with the number in both languages.
func TestJudgeDMARCPct(t *testing.T) {
	full := dmarcFound(dmarc.PolicyQuarantine, dmarc.CodeLegacyPctFull)
	full.LegacyPctPresent, full.LegacyPct = true, 100
	v := judgeDMARC(full)
	assert.Equal(t, StatusPass, v.status, "pct=100: %s %q, want pass", v.status, v.summary.EN)
	assert.Equal(t, dmarcPassQuarantine.say.format(), v.summary, "pct=100: summary")
	d := joinTexts(v.details)
	assert.Contains(t, d.EN, dmarcNotes[dmarc.CodeLegacyPctFull].en, "pct=100: details %q lack the note", d.EN)
	assert.Contains(t, d.ZH, dmarcNotes[dmarc.CodeLegacyPctFull].zh, "pct=100: details %q lack the note", d.ZH)
	for _, pct := range []int{0, 50, 99} {
		part := dmarcFound(dmarc.PolicyQuarantine, dmarc.CodeLegacyPct)
		part.LegacyPctPresent, part.LegacyPct = true, pct
		v := judgeDMARC(part)
		assert.Equal(t, StatusWarn, v.status, "pct=%d: %s %q, want warn", pct, v.status, v.summary.EN)
		assert.Equal(t, SeverityLow, v.severity, "pct=%d: severity", pct)
		assert.Contains(t, v.summary.EN, fmt.Sprintf("pct=%d", pct), "pct=%d: summary %q lacks the number", pct, v.summary.EN)
		assert.Contains(t, v.summary.EN, fmt.Sprintf(" %d in 100 ", pct), "pct=%d: summary %q lacks the share", pct, v.summary.EN)
		assert.Contains(t, v.summary.ZH, fmt.Sprintf("pct=%d", pct), "pct=%d: summary %q lacks the number", pct, v.summary.ZH)
		assert.Contains(t, v.summary.ZH, fmt.Sprintf("只对其中 %d 封", pct), "pct=%d: summary %q lacks the share", pct, v.summary.ZH)
	}
}

// TestJudgeDMARCTagCase: "v=DMARC1; P=reject" has no p tag (tag names
// are case-sensitive): without a rua it is a record receivers apply no
// DMARC for (fail), with one it falls back to none (warn); either way the
// details name the case.
func TestJudgeDMARCTagCase(t *testing.T) {
	noRUA := dmarcFound("", dmarc.CodeMissingP, dmarc.CodeTagNameCase)
	noRUA.AggregateReporting = false
	withRUA := dmarcFound(dmarc.PolicyNone, dmarc.CodeMissingP, dmarc.CodeTagNameCase)
	withRUA.UsesNoneFallback = true
	caseText := dmarcRules[dmarc.CodeTagNameCase].say
	for _, tc := range []struct {
		name    string
		res     dmarc.Result
		status  Status
		summary text
	}{
		{"no rua", noRUA, StatusFail, dmarcNoPolicy.say},
		{"rua", withRUA, StatusWarn, dmarcFallback.say},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judgeDMARC(tc.res)
			require.Equal(t, tc.status, v.status, "verdict %s %q, want %s %q", v.status, v.summary.EN, tc.status, tc.summary.en)
			require.Equal(t, tc.summary.format(), v.summary, "verdict %s %q, want %s %q", v.status, v.summary.EN, tc.status, tc.summary.en)
			d := joinTexts(v.details)
			require.Contains(t, d.EN, caseText.en, "details %q do not name the case", d.EN)
			require.Contains(t, d.ZH, caseText.zh, "details %q do not name the case", d.EN)
		})
	}
}

// TestJudgeDMARCEmptyMailto: "v=DMARC1; rua=mailto:" has a valid rua URI
// (RFC 6068 allows "mailto:" alone), so the none fallback applies (warn),
// and the details say it names no mailbox.
func TestJudgeDMARCEmptyMailto(t *testing.T) {
	res := dmarcFound(dmarc.PolicyNone, dmarc.CodeMissingP, dmarc.CodeURINoAddress)
	res.UsesNoneFallback = true
	v := judgeDMARC(res)
	require.Equal(t, StatusWarn, v.status, "verdict %s %q, want the none fallback", v.status, v.summary.EN)
	require.Equal(t, dmarcFallback.say.format(), v.summary, "verdict %s %q, want the none fallback", v.status, v.summary.EN)
	note := dmarcRules[dmarc.CodeURINoAddress].say
	d := joinTexts(v.details)
	require.Contains(t, d.EN, note.en, "details %q do not say the address names no mailbox", d.EN)
	require.Contains(t, d.ZH, note.zh, "details %q do not say the address names no mailbox", d.EN)
}

// TestJudgeDMARCNotes: every note is said in the details without changing
// the verdict of a p=reject record (pass), and a note is never the summary.
func TestJudgeDMARCNotes(t *testing.T) {
	for code, note := range dmarcNotes {
		t.Run(string(code), func(t *testing.T) {
			v := judgeDMARC(dmarcFound(dmarc.PolicyReject, code))
			require.Equal(t, StatusPass, v.status, "verdict %s %q, want pass: a note does not judge", v.status, v.summary.EN)
			require.Equal(t, dmarcPassReject.say.format(), v.summary, "verdict %s %q, want pass: a note does not judge", v.status, v.summary.EN)
			d := joinTexts(v.details)
			require.Contains(t, d.EN, note.en, "details %q lack the note %q", d.EN, note.en)
			require.Contains(t, d.ZH, note.zh, "details %q lack the note %q", d.EN, note.en)
		})
	}
}

// TestJudgeDMARCPrecise: a record that forgot the ";" after v=DMARC1 is
// named as such, not as a record without the version; sp=none under
// p=reject warns.
func TestJudgeDMARCPrecise(t *testing.T) {
	notFound := dmarc.Result{Domain: "example.com", Outcome: resolver.Found, DirectRecordCount: new(0), Discovery: dmarc.DiscoveryNotFound,
		TreeWalkQueries: 2, DomainExistence: dmarc.Exists, Findings: []dmarc.Code{dmarc.CodeMissingSeparator}}
	v := judgeDMARC(notFound)
	d := joinTexts(v.details)
	require.Equal(t, StatusFail, v.status, "missing separator: %s, details %q", v.status, d.EN)
	require.Contains(t, d.EN, dmarcNotes[dmarc.CodeMissingSeparator].en, "missing separator: %s, details %q", v.status, d.EN)
	require.NotContains(t, d.EN, dmarcNotes[dmarc.CodeIgnoredRecord].en, "missing separator reported as a record without the version: %q", d.EN)
	bad := dmarcFound(dmarc.PolicyReject, dmarc.CodeInvalidADKIM)
	bad.BadTag = 3
	v = judgeDMARC(bad)
	want := dmarcFactBadTag.format(3)
	require.Contains(t, joinTexts(v.details).EN, want.EN, "details %q do not name tag 3", joinTexts(v.details).EN)
	require.Contains(t, joinTexts(v.details).ZH, want.ZH, "details %q do not name tag 3", joinTexts(v.details).EN)
	v = judgeDMARC(dmarcFound(dmarc.PolicyReject, dmarc.CodeSubdomainPolicyNone))
	require.Equal(t, StatusWarn, v.status, "sp=none under p=reject: %s %q, want a warning", v.status, v.summary.EN)
	require.Equal(t, dmarcRules[dmarc.CodeSubdomainPolicyNone].say.format(), v.summary, "sp=none under p=reject: %s %q, want a warning", v.status, v.summary.EN)
	d = joinTexts(v.details)
	require.Contains(t, d.EN, dmarcPassReject.say.en, "details %q lack the applied policy", d.EN)
}

// TestDMARCNameTooLong: for a domain so long that "_dmarc." + domain is
// not a DNS name, the own name holds no record (it cannot exist) and the
// walk goes on with the parent domains: a parent's policy applies and the
// verdict is determined, its details saying why the own name was skipped.
// Without a parent record, DMARC is determined missing.
func TestDMARCNameTooLong(t *testing.T) {
	label := strings.Repeat("a", 62)
	org := strings.Repeat("b", 57) + ".com"
	domain := label + "." + label + "." + label + "." + org // 250 characters
	require.Len(t, domain, 250)
	for _, tc := range []struct {
		name   string
		zone   string
		status Status
	}{
		{"parent record", "_dmarc." + org + ". TXT \"v=DMARC1; p=reject\"\n", StatusPass},
		{"no record", "", StatusFail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN com.\n"+domain+". A 8.8.8.8\n"+tc.zone))
			s := New(Config{Resolver: r})
			sum, err := s.Scan(context.Background(), ScanRequest{Domain: domain})
			require.NoError(t, err)
			c := checkOf(t, sum, CheckDMARC)
			assert.False(t, c.Undetermined(), "DMARC is determined: %q", c.Summary.EN)
			assert.Equal(t, tc.status, c.Status, "DMARC %s %q", c.Status, c.Summary.EN)
			assert.Contains(t, c.Details.EN, dmarcNotes[dmarc.CodeNameTooLong].en)
			assert.Contains(t, c.Details.ZH, dmarcNotes[dmarc.CodeNameTooLong].zh)
			for _, q := range r.Queries() {
				assert.LessOrEqual(t, len(q.Name), MaxDomainLen, "asked %s, a name that cannot exist", q.Name)
			}
		})
	}
}
