package mailauth

import (
	"testing"

	"github.com/mailauth/mailauth/spf"
)

// spfValid is the Result of a unique record expanded completely with
// count lookups, ending in all, with the given findings.
func spfValid(count int, all spf.Qualifier, codes ...spf.Code) spf.Result {
	return spf.Result{
		RecordCount: 1, RecordCountKnown: true, LookupCount: count, LookupCountKnown: true,
		LookupLimit: spf.MaxLookups, LookupComplete: true, All: all, EffectiveAll: all, Findings: codes,
	}
}

// TestJudgeSPFPinned pins the verdict of every SPF finding that has a
// rule: its status and severity are written here, not read from the
// table, so a changed rule fails until this row changes with it.
func TestJudgeSPFPinned(t *testing.T) {
	pinned := map[spf.Code]struct {
		status   Status
		severity Severity
	}{
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
	for code, want := range pinned {
		t.Run(string(code), func(t *testing.T) {
			rule, ok := spfRules[code]
			if !ok {
				t.Fatalf("no rule for %s", code)
			}
			v := judgeSPF(spfValid(3, spf.QualifierFail, code))
			if v.status != want.status || v.severity != want.severity {
				t.Fatalf("verdict %s/%s, want %s/%s", v.status, v.severity, want.status, want.severity)
			}
			if want := rule.say.with(spfArgsFor(code)...); v.summary != want {
				t.Fatalf("summary %q, want the rule's sentence %q", v.summary.EN, want.EN)
			}
		})
	}
	for code := range spfRules {
		if _, ok := pinned[code]; !ok {
			t.Errorf("rule for %s is not pinned here", code)
		}
	}
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
		if v.status != StatusFail || v.summary != spfRules[code].say.with() {
			t.Errorf("%s: %s %q", code, v.status, v.summary.EN)
		}
		for _, d := range v.details {
			if d == spfFactSoftfail.with() {
				t.Errorf("%s: details still promise a soft fail for unlisted servers", code)
			}
		}
	}
}
