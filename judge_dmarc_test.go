package mailauth

import (
	"context"
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
	}
	runRows(t, pinnedRows(t, dmarcRules, pins, func(c dmarc.Code) (verdict, []int) {
		return judgeDMARC(dmarcFound(dmarc.PolicyReject, c)), nil
	}))
}

// TestJudgeDMARCNotes: every note is said in the details without changing
// the verdict of a p=reject record (pass), and a note is never the summary.
func TestJudgeDMARCNotes(t *testing.T) {
	for code, note := range dmarcNotes {
		t.Run(string(code), func(t *testing.T) {
			v := judgeDMARC(dmarcFound(dmarc.PolicyReject, code))
			if v.status != StatusPass || v.summary != dmarcPassReject.say.format() {
				t.Fatalf("verdict %s %q, want pass: a note does not judge", v.status, v.summary.EN)
			}
			if d := joinTexts(v.details); !strings.Contains(d.EN, note.en) || !strings.Contains(d.ZH, note.zh) {
				t.Fatalf("details %q lack the note %q", d.EN, note.en)
			}
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
	if v.status != StatusFail || !strings.Contains(d.EN, dmarcNotes[dmarc.CodeMissingSeparator].en) {
		t.Fatalf("missing separator: %s, details %q", v.status, d.EN)
	}
	if strings.Contains(d.EN, dmarcNotes[dmarc.CodeIgnoredRecord].en) {
		t.Fatalf("missing separator reported as a record without the version: %q", d.EN)
	}
	bad := dmarcFound(dmarc.PolicyReject, dmarc.CodeInvalidADKIM)
	bad.BadTag = 3
	v = judgeDMARC(bad)
	if want := dmarcFactBadTag.format(3); !strings.Contains(joinTexts(v.details).EN, want.EN) || !strings.Contains(joinTexts(v.details).ZH, want.ZH) {
		t.Fatalf("details %q do not name tag 3", joinTexts(v.details).EN)
	}
	v = judgeDMARC(dmarcFound(dmarc.PolicyReject, dmarc.CodeSubdomainPolicyNone))
	if v.status != StatusWarn || v.summary != dmarcRules[dmarc.CodeSubdomainPolicyNone].say.format() {
		t.Fatalf("sp=none under p=reject: %s %q, want a warning", v.status, v.summary.EN)
	}
	if d := joinTexts(v.details); !strings.Contains(d.EN, dmarcPassReject.say.en) {
		t.Fatalf("details %q lack the applied policy", d.EN)
	}
}

// TestDMARCNameTooLong: for a domain so long that "_dmarc." + domain is
// not a DNS name, DMARC is not determined and the text says why, instead
// of blaming the domain's servers.
func TestDMARCNameTooLong(t *testing.T) {
	label := strings.Repeat("a", 62)
	domain := label + "." + label + "." + label + "." + strings.Repeat("b", 57) + ".com" // 250 characters
	require.Len(t, domain, 250)
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN com.\n"+domain+". A 8.8.8.8\n"))})
	sum, err := s.Scan(context.Background(), ScanRequest{Domain: domain})
	require.NoError(t, err)
	for _, c := range sum.Checks {
		if c.ID != CheckDMARC {
			continue
		}
		assert.True(t, c.Undetermined(), "DMARC is not determined")
		assert.Equal(t, dmarcTooLongDetails.format(), c.Details)
		assert.NotContains(t, c.Details.EN, "authoritative servers")
		return
	}
	t.Fatal("no DMARC check")
}
