package mailauth

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/dmarc"
	"github.com/mailauth/mailauth/spf"
)

// spfValid is the Result of a unique record expanded completely with
// count lookups, ending in all, with the given findings.
func spfValid(count int, all spf.Qualifier, codes ...spf.Code) spf.Result {
	return spf.Result{
		RecordCount: new(1), LookupCount: new(count),
		LookupLimit: spf.MaxLookups, LookupComplete: true, All: all, EffectiveAll: all, Findings: codes,
	}
}

// TestJudgeSPFPinned pins the verdict of every SPF finding that has a
// rule: its status and severity are written here, not read from the
// table, so a changed rule fails until this row changes with it.
func TestJudgeSPFPinned(t *testing.T) {
	pins := map[spf.Code]pin{
		spf.CodeNoRecord:                {StatusFail, SeverityHigh},
		spf.CodeMultipleRecords:         {StatusFail, SeverityHigh},
		spf.CodeSyntaxVersion:           {StatusFail, SeverityHigh},
		spf.CodeSyntaxCharacter:         {StatusFail, SeverityHigh},
		spf.CodeSyntaxUnknownMechanism:  {StatusFail, SeverityHigh},
		spf.CodeSyntaxMissingDomain:     {StatusFail, SeverityHigh},
		spf.CodeSyntaxDomainSpec:        {StatusFail, SeverityHigh},
		spf.CodeSyntaxMacro:             {StatusFail, SeverityHigh},
		spf.CodeSyntaxIP4:               {StatusFail, SeverityHigh},
		spf.CodeSyntaxIP6:               {StatusFail, SeverityHigh},
		spf.CodeSyntaxCIDR:              {StatusFail, SeverityHigh},
		spf.CodeSyntaxArgument:          {StatusFail, SeverityHigh},
		spf.CodeSyntaxDuplicateModifier: {StatusFail, SeverityHigh},
		spf.CodeSyntaxModifier:          {StatusFail, SeverityHigh},
		spf.CodeIncludeNoRecord:         {StatusFail, SeverityHigh},
		spf.CodeIncludeMultiple:         {StatusFail, SeverityHigh},
		spf.CodeIncludeInvalid:          {StatusFail, SeverityHigh},
		spf.CodeRedirectNoRecord:        {StatusFail, SeverityHigh},
		spf.CodeRedirectMultiple:        {StatusFail, SeverityHigh},
		spf.CodeRedirectInvalid:         {StatusFail, SeverityHigh},
		spf.CodeIncludeInconclusive:     {StatusWarn, SeverityMedium},
		spf.CodeRedirectInconclusive:    {StatusWarn, SeverityMedium},
		spf.CodeTermInconclusive:        {StatusWarn, SeverityMedium},
		spf.CodeLoop:                    {StatusFail, SeverityHigh},
		spf.CodeLookupLimitExceeded:     {StatusFail, SeverityHigh},
		spf.CodeVoidLimitExceeded:       {StatusFail, SeverityHigh},
		spf.CodeMXTooMany:               {StatusFail, SeverityHigh},
		spf.CodeAllPass:                 {StatusFail, SeverityHigh},
		spf.CodeAllNeutral:              {StatusFail, SeverityHigh},
		spf.CodeIncludePassAll:          {StatusFail, SeverityHigh},
		spf.CodeRangePassAll:            {StatusFail, SeverityHigh},
		spf.CodeExistsPassAll:           {StatusFail, SeverityHigh},
		spf.CodeSafetyBound:             {StatusWarn, SeverityMedium},
		spf.CodeNoAll:                   {StatusWarn, SeverityMedium},
		spf.CodeRecordTooLong:           {StatusWarn, SeverityMedium},
		spf.CodeRedirectAtLimit:         {StatusWarn, SeverityMedium},
		spf.CodeInvalidTargetName:       {StatusWarn, SeverityHigh},
		spf.CodeRecordLong:              {StatusWarn, SeverityLow},
		spf.CodePTRUsed:                 {StatusWarn, SeverityLow},
		spf.CodePTRMacro:                {StatusWarn, SeverityLow},
		spf.CodeDeadTerms:               {StatusWarn, SeverityLow},
	}
	runRows(t, pinnedRows(t, spfRules, pins, func(c spf.Code) (verdict, []int) {
		return judgeSPF(spfValid(3, spf.QualifierFail, c)), spfArgsFor(c)
	}))
}

// spfArgsFor is the parameters the sentence of code takes for the
// Result spfValid(3, …): the record count 1, the lookup count 3, no voids.
func spfArgsFor(code spf.Code) []int {
	switch code {
	case spf.CodeMultipleRecords:
		return []int{1}
	case spf.CodeLookupLimitExceeded:
		return []int{3}
	case spf.CodeVoidLimitExceeded:
		return []int{0}
	}
	return nil
}

// TestJudgeSPFPassesEveryone: a policy that passes every client through
// an include, a /0 range or an always-true exists fails like +all, and
// says nothing about soft-failing unlisted servers.
func TestJudgeSPFPassesEveryone(t *testing.T) {
	for _, code := range []spf.Code{spf.CodeIncludePassAll, spf.CodeRangePassAll, spf.CodeExistsPassAll} {
		v := judgeSPF(spfValid(1, spf.QualifierSoftFail, code))
		assert.Equal(t, StatusFail, v.status, "%s: %s %q", code, v.status, v.summary.EN)
		assert.Equal(t, spfRules[code].say.format(), v.summary, "%s: %s %q", code, v.status, v.summary.EN)
		for _, d := range v.details {
			assert.NotEqual(t, spfFactSoftfail.format(), d, "%s: details still promise a soft fail for unlisted servers", code)
		}
	}
}

// TestJudgeSPFPrecise: the details say which term is wrong by position
// and kind, which include leads to an error, and what the costliest
// include of a policy over the limit costs; only integers, never text.
func TestJudgeSPFPrecise(t *testing.T) {
	broken := func(code spf.Code, term int) spf.Result {
		return spf.Result{RecordCount: new(1), LookupLimit: spf.MaxLookups,
			Error: spf.ClassPermError, ErrorCause: code, Findings: []spf.Code{code}, SyntaxTerm: term}
	}
	tests := []struct {
		name string
		res  spf.Result
		want []LocalizedText
	}{
		{"unknown mechanism", broken(spf.CodeSyntaxUnknownMechanism, 3),
			[]LocalizedText{spfSyntaxAt[spf.CodeSyntaxUnknownMechanism].format(3), spfFactTermsNumbered.format()}},
		{"bad ip4", broken(spf.CodeSyntaxIP4, 5),
			[]LocalizedText{spfSyntaxAt[spf.CodeSyntaxIP4].format(5), spfFactTermsNumbered.format()}},
		{"syntax error behind an include", func() spf.Result {
			r := spfValid(2, spf.QualifierFail, spf.CodeSyntaxIP4, spf.CodeIncludeInvalid)
			r.Includes = []spf.Include{{Lookups: 1}, {Lookups: 1, Problem: spf.CodeIncludeInvalid}}
			return r
		}(), []LocalizedText{spfFactIncludeProblem.format(2, 2)}},
		{"costliest include", func() spf.Result {
			r := spfValid(15, spf.QualifierFail, spf.CodeLookupLimitExceeded)
			r.Includes = []spf.Include{{Lookups: 3}, {Lookups: 7}, {Lookups: 4}, {Lookups: 1}}
			return r
		}(), []LocalizedText{spfFactIncludeCost.format(2, 4, 7, 15)}},
		{"one-lookup includes over the limit", func() spf.Result {
			r := spfValid(11, spf.QualifierFail, spf.CodeLookupLimitExceeded)
			r.Includes = make([]spf.Include, 11)
			for i := range r.Includes {
				r.Includes[i].Lookups = 1
			}
			return r
		}(), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := spfPrecise(tc.res, codeSet(tc.res.Findings))
			require.Len(t, got, len(tc.want), "got %d sentences %v, want %v", len(got), got, tc.want)
			for i := range got {
				assert.Equal(t, tc.want[i], got[i], "sentence %d = %q, want %q", i, got[i].EN, tc.want[i].EN)
			}
			v := judgeSPF(tc.res)
			details := joinTexts(v.details)
			for _, w := range tc.want {
				assert.Contains(t, details.EN, w.EN, "details %q lack %q", details.EN, w.EN)
				assert.Contains(t, details.ZH, w.ZH, "details %q lack %q", details.EN, w.EN)
			}
		})
	}
	got := spfFactIncludeCost.format(2, 4, 7, 15)
	assert.Equal(t, "The costliest is include number 2 (of 4): it takes 7 of the 15 lookups.", got.EN, "include cost renders %q / %q", got.EN, got.ZH)
	assert.Equal(t, "开销最大的是第 2 个 include（共 4 个）：它占了全部 15 次查询中的 7 次。", got.ZH, "include cost renders %q / %q", got.EN, got.ZH)
}

// TestScanPassEveryoneAndDMARCSeparator runs whole scans of records that
// authorize everyone or forgot DMARC's separator: the verdicts are the
// precise ones, and the redaction guard does not mistake the catalogue's
// examples (ip4:0.0.0.0/0, v=DMARC1) for leaked record text.
func TestScanPassEveryoneAndDMARCSeparator(t *testing.T) {
	s := memScanner(t, nil, Config{})
	tests := []struct {
		domain      string
		spf, dmarc  text
		spfDetails  []text
		dmarcStatus Status
	}{
		{"open.example.com", spfRules[spf.CodeIncludePassAll].say, dmarcMissing.say, []text{spfFactIncludeProblem}, StatusFail},
		{"opennet.example.com", spfRules[spf.CodeRangePassAll].say, dmarcRules[dmarc.CodeSubdomainPolicyNone].say, []text{spfRules[spf.CodeExistsPassAll].say}, StatusWarn},
	}
	for _, tc := range tests {
		got, err := s.Scan(context.Background(), ScanRequest{Domain: tc.domain})
		require.NoError(t, err)
		for _, c := range got.Checks {
			switch c.ID {
			case CheckSPF:
				assert.Equal(t, StatusFail, c.Status, "%s spf: %s %q, want fail %q", tc.domain, c.Status, c.Summary.EN, tc.spf.en)
				assert.Equal(t, tc.spf.format(), c.Summary, "%s spf: %s %q, want fail %q", tc.domain, c.Status, c.Summary.EN, tc.spf.en)
				for _, d := range tc.spfDetails {
					assert.Regexp(t, sentencePattern(d.en), c.Details.EN, "%s spf details %q lack %q", tc.domain, c.Details.EN, d.en)
					assert.Regexp(t, sentencePattern(d.zh), c.Details.ZH, "%s spf details %q lack %q", tc.domain, c.Details.EN, d.en)
				}
			case CheckDMARC:
				assert.Equal(t, tc.dmarcStatus, c.Status, "%s dmarc: %s %q, want %s %q", tc.domain, c.Status, c.Summary.EN, tc.dmarcStatus, tc.dmarc.en)
				assert.Equal(t, tc.dmarc.format(), c.Summary, "%s dmarc: %s %q, want %s %q", tc.domain, c.Status, c.Summary.EN, tc.dmarcStatus, tc.dmarc.en)
			}
		}
	}
}
