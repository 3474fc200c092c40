package mailauth

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/report"
)

// TestUndeterminedSentencesAreOwn: no rule that reaches a conclusion says
// a sentence of a rule marked undetermined, so reading a decoded summary
// back (RestoreDetermination) is exact.
func TestUndeterminedSentencesAreOwn(t *testing.T) {
	undetermined := map[LocalizedText]bool{}
	for _, s := range UndeterminedSummaries() {
		undetermined[s] = true
	}
	require.NotEmpty(t, undetermined)
	for _, r := range allRules() {
		if !r.undetermined {
			assert.False(t, undetermined[r.say.format()], "a determined rule says %q", r.say.en)
		}
	}
}

// TestDeterminationSurvivesJSON: every check of a scan keeps its
// determination through the API's JSON and RestoreDetermination, for
// each kind (lookup, timeout, internal) and for a determined check.
func TestDeterminationSurvivesJSON(t *testing.T) {
	checks := []CheckSummary{
		inconclusiveVerdict(nil).toSummary(CheckMX),
		judgeState(stsFetchUnknown, nil, nil, nil).toSummary(CheckMTASTS),
		fallbackVerdict(UndeterminedTimeout).toSummary(CheckSPF),
		fallbackVerdict(UndeterminedInternal).toSummary(CheckDMARC),
		judge(rule{status: StatusPass, severity: SeverityInfo, say: msg("好", "fine")}, nil, nil, nil).toSummary(CheckCAA),
	}
	want := []Determination{report.UndeterminedLookup, report.UndeterminedLookup, report.UndeterminedTimeout, report.UndeterminedInternal, report.Determined}
	for i, c := range checks {
		require.Equal(t, want[i], c.Determination, "scanner's own mark of %s", c.ID)
	}
	body, err := json.Marshal(checks)
	require.NoError(t, err)
	assert.NotContains(t, string(body), "etermination", "the mark is not on the wire")
	var decoded []CheckSummary
	require.NoError(t, json.Unmarshal(body, &decoded))
	RestoreDetermination(decoded)
	for i, c := range decoded {
		assert.Equal(t, want[i], c.Determination, "decoded %s", c.ID)
	}
}
