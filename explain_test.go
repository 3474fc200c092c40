package mailauth

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/caa"
	"github.com/mailauth/mailauth/dkim"
	"github.com/mailauth/mailauth/dmarc"
	"github.com/mailauth/mailauth/mtasts"
	"github.com/mailauth/mailauth/mx"
	"github.com/mailauth/mailauth/ptr"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/spf"
	"github.com/mailauth/mailauth/tlsrpt"
)

// explained fails t when a verdict has no details: its card would say
// only "No further details.".
func explained(t *testing.T, name string, v verdict) {
	t.Helper()
	if !assert.NotEmpty(t, v.details, "%s: %q has no details", name, v.summary.EN) {
		return
	}
	d := joinTexts(v.details)
	noDetails := txtNoDetails.format()
	assert.NotEqual(t, noDetails.EN, d.EN, name)
	assert.NotContains(t, d.EN, noDetails.EN, name)
	assert.NotEmpty(t, strings.TrimSpace(d.ZH), name)
}

// TestEveryFindingExplained judges every finding of every judgement table
// on the sparsest facts the protocol packages report with it (no key
// type, no lookup count where the record does not parse, no issuers) and
// every named state, and fails when a verdict has no details. The checks
// and their codes are the rows of checkTable: a check without sparse
// facts in findingExplainers fails here.
func TestEveryFindingExplained(t *testing.T) {
	for _, c := range checkTable {
		t.Run(string(c.id), func(t *testing.T) {
			e, ok := findingExplainers[c.id]
			require.True(t, ok, "check %s has no entry in findingExplainers: the sparsest facts of each of its findings", c.id)
			require.NotNil(t, e.finding, "check %s: findingExplainers has no finding function", c.id)
			for code := range c.codes.rules {
				explained(t, code, e.finding(code))
			}
			if e.states != nil {
				e.states(t)
			}
		})
	}
}

// findingExplainer judges the sparsest facts of one check.
type findingExplainer struct {
	// finding is the verdict on the sparsest facts that report code (a
	// code of the check's finding table).
	finding func(code string) verdict
	// states judges the check's named states; nil when it has none beyond
	// its findings.
	states func(t *testing.T)
}

// findingExplainers has one entry for each check of checkTable.
var findingExplainers = map[CheckID]findingExplainer{
	CheckSPF: {
		finding: func(code string) verdict { return judgeSPF(sparseSPF(spf.Code(code))) },
		states: func(t *testing.T) {
			over := spfValid(14, spf.QualifierFail, spf.CodeLookupLimitExceeded)
			over.Includes = make([]spf.Include, 12)
			for i := range over.Includes {
				over.Includes[i].Lookups = 1
			}
			explained(t, "12 one-lookup includes", judgeSPF(over))
		},
	},
	CheckDKIM: {
		finding: func(c string) verdict {
			code := dkim.Code(c)
			res := dkim.Result{Outcome: resolver.Found, RecordCount: new(1), PublicKeyPresent: new(false), Revoked: new(false),
				Usable: new(false), Findings: []dkim.Code{code}}
			switch code {
			case dkim.CodeNoRecord, dkim.CodeDanglingCNAME:
				res.Outcome, res.RecordCount = resolver.NXDomain, new(0)
			case dkim.CodeMultipleRecords:
				res.RecordCount = new(2)
			case dkim.CodeTestMode, dkim.CodePKCS1Key:
				res.KeyType, res.KeyBits = dkim.KeyTypeRSA, 2048 // findings of a decoded key
			case dkim.CodeWeakKey:
				res.KeyType, res.KeyBits = dkim.KeyTypeRSA, 1024
			case dkim.CodeLargeKey:
				res.KeyType, res.KeyBits = dkim.KeyTypeRSA, 8192
			}
			return judgeDKIM(res)
		},
	},
	CheckMX: {
		finding: func(code string) verdict {
			return judgeMX(mxExplicit(mx.Counts{Distinct: 1, Checked: 1, Usable: 1}, mx.Code(code)))
		},
		states: func(t *testing.T) {
			for _, kind := range []mx.Kind{mx.KindNXDomain, mx.KindNone, mx.KindNull, mx.KindInconclusive} {
				explained(t, string(kind), judgeMX(mx.Result{Kind: kind}))
			}
		},
	},
	CheckTLSRPT: {
		finding: func(c string) verdict {
			code := tlsrpt.Code(c)
			noMX := func() mxFacts { return mxFacts{known: true} }
			res := tlsrpt.Result{Outcome: resolver.Found, RecordCount: new(1), RecordValid: new(true), Configured: new(true),
				DestinationCount: new(1), MailtoDestinationCount: new(1), HTTPSDestinationCount: new(0), Findings: []tlsrpt.Code{code}}
			if code == tlsrpt.CodeMultipleRecords {
				res = tlsrpt.Result{Outcome: resolver.Found, RecordCount: new(2), RecordValid: new(false), Configured: new(false),
					DestinationCount: new(0), MailtoDestinationCount: new(0), HTTPSDestinationCount: new(0), Findings: []tlsrpt.Code{code}}
			}
			return judgeTLSRPT(res, noMX)
		},
	},
	CheckCAA: {
		finding: func(code string) verdict {
			return judgeCAA(caa.Result{Domain: caaFound(0, caa.Code(code)), MTASTS: caa.Set{Outcome: resolver.NoData, Lookups: 2}})
		},
		states: func(t *testing.T) {
			none := caa.Set{Outcome: resolver.NoData, Lookups: 2}
			critical := caaFound(0, caa.CodeCriticalUnknown)
			critical.CriticalUnknown, critical.CanIssue, critical.Restricts = true, false, true
			forbid := caaFound(0)
			forbid.Restricts, forbid.CanIssue = true, false
			wild := caaFound(0)
			wild.Restricts, wild.CanIssueWildcard = true, false
			sets := map[string]caa.Set{"critical": critical, "forbid all": forbid, "no issue property": caaFound(0), "wildcard only": wild, "none": none}
			for name, set := range sets {
				explained(t, name, judgeCAA(caa.Result{Domain: set, MTASTS: none}))
			}
		},
	},
	CheckPTR: {
		finding: func(code string) verdict {
			return judgePTR(netip.MustParseAddr("192.0.2.1"), ptr.Result{IPVersion: 4, Outcome: resolver.Found, NameCount: new(1),
				ForwardQueries: 1, ForwardCompleted: 1, ForwardAddresses: new(1), Confirmed: ptr.Confirmed, Findings: []ptr.Code{ptr.Code(code)}})
		},
		states: func(t *testing.T) {
			explained(t, "no ptr", judgePTR(netip.MustParseAddr("192.0.2.1"), ptr.Result{IPVersion: 4, Outcome: resolver.NXDomain, NameCount: new(0),
				Confirmed: ptr.NotConfirmed, Findings: []ptr.Code{ptr.CodeNoPTR}}))
		},
	},
	CheckDMARC: {
		finding: func(code string) verdict { return judgeDMARC(dmarcFound(dmarc.PolicyReject, dmarc.Code(code))) },
		states: func(t *testing.T) {
			explained(t, "missing", judgeDMARC(dmarc.Result{Domain: "example.com", Outcome: resolver.NXDomain, DirectRecordCount: new(0),
				Discovery: dmarc.DiscoveryNotFound, TreeWalkQueries: 2}))
		},
	},
	CheckMTASTS: {
		finding: func(code string) verdict {
			return judgeMTASTS(stsFetched(mtasts.ModeEnforce, mtasts.Code(code)), mxFacts{known: true, hosts: []string{"mx.example.com"}})
		},
		states: func(t *testing.T) {
			covered := mxFacts{known: true, hosts: []string{"mx.example.com"}}
			for _, mode := range []mtasts.Mode{mtasts.ModeEnforce, mtasts.ModeTesting, mtasts.ModeNone} {
				explained(t, string(mode), judgeMTASTS(stsFetched(mode), covered))
			}
		},
	},
}

// sparseSPF is the Result of an SPF check that reports code with the
// fewest facts: no lookup count where the domain's own record set does
// not parse or is not unique, and no includes.
func sparseSPF(code spf.Code) spf.Result {
	switch {
	case code == spf.CodeNoRecord:
		return spf.Result{Outcome: resolver.NoData, RecordCount: new(0), LookupLimit: spf.MaxLookups, Findings: []spf.Code{code}}
	case code == spf.CodeMultipleRecords:
		return spf.Result{Outcome: resolver.Found, RecordCount: new(2), LookupLimit: spf.MaxLookups, Error: spf.ClassPermError,
			ErrorCause: code, Findings: []spf.Code{code}}
	case spfRules[code].say == spfSyntax.say:
		return spf.Result{Outcome: resolver.Found, RecordCount: new(1), LookupLimit: spf.MaxLookups, Error: spf.ClassPermError,
			ErrorCause: code, Findings: []spf.Code{code}}
	}
	return spfValid(spf.MaxLookups+2, spf.QualifierFail, code)
}

// TestSPFLimitExplained: a policy over the lookup limit says how its
// includes share the count, with the integers the check has.
func TestSPFLimitExplained(t *testing.T) {
	over := spfValid(14, spf.QualifierFail, spf.CodeLookupLimitExceeded)
	over.Includes = make([]spf.Include, 12)
	for i := range over.Includes {
		over.Includes[i].Lookups = 1
	}
	d := joinTexts(judgeSPF(over).details)
	assert.Contains(t, d.EN, spfFactIncludeShare.format(12, 12, 2).EN)
	assert.Contains(t, d.ZH, spfFactIncludeShare.format(12, 12, 2).ZH)
	assert.Contains(t, d.EN, spfFactIncludesEach.format().EN)
	assert.Contains(t, d.EN, spfFactLimitWhy.format().EN)
	assert.Contains(t, d.EN, fmt.Sprintf("at most %d DNS-causing terms", spf.MaxLookups))

	own := judgeSPF(spfValid(11, spf.QualifierFail, spf.CodeLookupLimitExceeded))
	assert.Contains(t, joinTexts(own.details).EN, spfFactOwnTerms.format().EN)

	costly := spfValid(15, spf.QualifierFail, spf.CodeLookupLimitExceeded)
	costly.Includes = []spf.Include{{Lookups: 3}, {Lookups: 7}, {Lookups: 4}}
	d = joinTexts(judgeSPF(costly).details)
	assert.Contains(t, d.EN, spfFactIncludeCost.format(2, 3, 7, 15).EN)
	assert.Contains(t, d.EN, spfFactIncludeShare.format(3, 14, 1).EN)
	assert.NotContains(t, d.EN, spfFactIncludesEach.format().EN)
}

// TestStateExplanations pins the sentences of the states that had none:
// each carries the integer the check knows.
func TestStateExplanations(t *testing.T) {
	critical := caaFound(0, caa.CodeCriticalUnknown)
	critical.CriticalUnknown, critical.CanIssue, critical.Restricts, critical.PropertyCount = true, false, true, 3
	none := caa.Set{Outcome: resolver.NoData}
	d := joinTexts(judgeCAA(caa.Result{Domain: critical, MTASTS: none}).details)
	assert.Contains(t, d.EN, caaFactCritical.format(3).EN)

	bare := caaFound(0)
	bare.PropertyCount = 2
	assert.Contains(t, joinTexts(judgeCAA(caa.Result{Domain: bare, MTASTS: none}).details).ZH, caaFactNoIssue.format(2).ZH)

	two := tlsrpt.Result{Outcome: resolver.Found, RecordCount: new(2), Configured: new(false), Findings: []tlsrpt.Code{tlsrpt.CodeMultipleRecords}}
	assert.Equal(t, []LocalizedText{rptFactMultiple.format()}, judgeTLSRPT(two, nil).details)

	revoked := dkim.Result{Outcome: resolver.Found, RecordCount: new(1), Revoked: new(true), Findings: []dkim.Code{dkim.CodeKeyRevoked}}
	require.NotEmpty(t, judgeDKIM(revoked).details)
	assert.Equal(t, dkimWhy[dkim.CodeKeyRevoked].format(), judgeDKIM(revoked).details[0])

	assert.Equal(t, []LocalizedText{mxFactNXDomain.format()}, judgeMX(mx.Result{Kind: mx.KindNXDomain}).details)
	assert.Equal(t, []LocalizedText{mxFactNone.format()}, judgeMX(mx.Result{Kind: mx.KindNone}).details)
}

// TestNoDetailsFallback: a verdict without details still renders a
// details text (the contract requires one); no judged finding reaches it
// (TestEveryFindingExplained).
func TestNoDetailsFallback(t *testing.T) {
	got := verdict{status: StatusPass, severity: SeverityInfo}.toSummary(CheckMX)
	assert.Equal(t, txtNoDetails.format(), got.Details)
}
