package mailauth

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func checksWith(statuses map[CheckID]Status) []CheckSummary {
	var out []CheckSummary
	for _, id := range CheckOrder() {
		st, ok := statuses[id]
		if !ok {
			st = StatusInfo
		}
		out = append(out, CheckSummary{ID: id, Status: st})
	}
	return out
}

func TestWeightsSumTo100(t *testing.T) {
	sum := 0
	for _, id := range CheckOrder() {
		w, ok := weights[id]
		require.True(t, ok, "no weight for %s", id)
		sum += w
	}
	require.Equal(t, 100, sum, "weights sum to %d over %d checks, want 100 over %d", sum, len(weights), len(CheckOrder()))
	require.Len(t, weights, len(CheckOrder()), "weights sum to %d over %d checks, want 100 over %d", sum, len(weights), len(CheckOrder()))
}

func TestScore(t *testing.T) {
	all := func(s Status) map[CheckID]Status {
		m := map[CheckID]Status{}
		for _, id := range CheckOrder() {
			m[id] = s
		}
		return m
	}
	tests := []struct {
		name     string
		statuses map[CheckID]Status
		want     int
		grade    Grade
	}{
		{"all pass", all(StatusPass), 100, GradeA},
		{"all fail", all(StatusFail), 0, GradeF},
		{"all warn", all(StatusWarn), 50, GradeD},
		{"all info", all(StatusInfo), 0, GradeF},
		// mx 15 + spf 20 pass of 35 → 100.
		{"only two evaluated, both pass", map[CheckID]Status{CheckMX: StatusPass, CheckSPF: StatusPass}, 100, GradeA},
		// dkim and ptr info (not supplied): den 80. pass mx,spf,dmarc(60) + warn mta-sts(5) + fail tls-rpt + pass caa(5) = 70/80 = 87.5 → 88.
		{"typical", map[CheckID]Status{CheckMX: StatusPass, CheckSPF: StatusPass, CheckDMARC: StatusPass, CheckMTASTS: StatusWarn, CheckTLSRPT: StatusFail, CheckCAA: StatusPass}, 88, GradeB},
		// mx pass 15, spf warn 10, dmarc warn 12.5, mta-sts fail, tls-rpt fail, caa info, dkim/ptr info → 37.5/75 = 50 → D.
		{"weak", map[CheckID]Status{CheckMX: StatusPass, CheckSPF: StatusWarn, CheckDMARC: StatusWarn, CheckMTASTS: StatusFail, CheckTLSRPT: StatusFail}, 50, GradeD},
		// 1 warn (caa 2.5) of 5 → 50; half-up: mx warn 7.5 / 15 = 50.
		{"half", map[CheckID]Status{CheckCAA: StatusWarn}, 50, GradeD},
		// spf pass 20, dmarc fail 25 → 20/45 = 44.44 → 44.
		{"rounding down", map[CheckID]Status{CheckSPF: StatusPass, CheckDMARC: StatusFail}, 44, GradeF},
		// tls-rpt warn 2.5, mx pass 15 → 17.5/20 = 87.5 → 88 (half up).
		{"rounding half up", map[CheckID]Status{CheckTLSRPT: StatusWarn, CheckMX: StatusPass}, 88, GradeB},
		// mx pass 15 + dmarc pass 25 + spf fail → 40/60 = 66.67 → 67 → C.
		{"grade C", map[CheckID]Status{CheckMX: StatusPass, CheckDMARC: StatusPass, CheckSPF: StatusFail}, 67, GradeC},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checks := checksWith(tc.statuses)
			got := score(checks)
			require.Equal(t, tc.want, got, "score = %d, want %d", got, tc.want)
			g := gradeFor(got)
			require.Equal(t, tc.grade, g, "grade(%d) = %s, want %s", got, g, tc.grade)
			c := countStatuses(checks)
			require.Equal(t, len(CheckOrder()), c.Pass+c.Warn+c.Fail+c.Info, "counts %+v do not sum to the number of checks", c)
		})
	}
}

func TestGradeBoundaries(t *testing.T) {
	for s, want := range map[int]Grade{100: GradeA, 90: GradeA, 89: GradeB, 80: GradeB, 79: GradeC, 65: GradeC, 64: GradeD, 50: GradeD, 49: GradeF, 0: GradeF} {
		got := gradeFor(s)
		assert.Equal(t, want, got, "gradeFor(%d) = %s, want %s", s, got, want)
	}
}

// undeterminedCheck is a check that could not be determined: warn, with
// the summary the scanner gives such checks.
func undeterminedCheck(id CheckID, why text) CheckSummary {
	return CheckSummary{ID: id, Status: StatusWarn, Severity: SeverityMedium, Summary: why.format(), Determination: determinationOf(why.format())}
}

// TestScoreUndetermined: checks that could not be determined leave the
// score like info; a scan where more than half of the evaluated checks
// are undetermined says it is incomplete, and one where all are scores 0.
func TestScoreUndetermined(t *testing.T) {
	pass := func(id CheckID) CheckSummary { return CheckSummary{ID: id, Status: StatusPass} }
	info := func(id CheckID) CheckSummary { return CheckSummary{ID: id, Status: StatusInfo} }
	tests := []struct {
		name       string
		checks     []CheckSummary
		score      int
		grade      Grade
		incomplete bool
	}{
		{"all undetermined", []CheckSummary{
			undeterminedCheck(CheckMX, txtInconclusive), undeterminedCheck(CheckSPF, txtInconclusive),
			undeterminedCheck(CheckDMARC, txtTimedOut), info(CheckDKIM), undeterminedCheck(CheckMTASTS, txtInternal),
			undeterminedCheck(CheckTLSRPT, txtInconclusive), info(CheckPTR), undeterminedCheck(CheckCAA, txtInconclusive),
		}, 0, GradeF, true},
		// 3 of 6 undetermined is half, not more than half; the 3 passes score 100.
		{"half undetermined", []CheckSummary{
			pass(CheckMX), pass(CheckSPF), pass(CheckDMARC), info(CheckDKIM),
			undeterminedCheck(CheckMTASTS, txtInconclusive), undeterminedCheck(CheckTLSRPT, txtTimedOut), info(CheckPTR),
			undeterminedCheck(CheckCAA, txtInconclusive),
		}, 100, GradeA, false},
		// 4 of 6: incomplete; the score is the two passes' (mx, caa).
		{"most undetermined", []CheckSummary{
			pass(CheckMX), undeterminedCheck(CheckSPF, txtInconclusive), undeterminedCheck(CheckDMARC, txtInconclusive), info(CheckDKIM),
			undeterminedCheck(CheckMTASTS, txtInconclusive), undeterminedCheck(CheckTLSRPT, txtTimedOut), info(CheckPTR), pass(CheckCAA),
		}, 100, GradeA, true},
		// Undetermined also covers a check whose deciding part is unknown:
		// an MTA-STS policy whose fetch timed out, forward confirmation
		// that could not be decided.
		{"deciding part unknown", []CheckSummary{
			pass(CheckMX), undeterminedCheck(CheckMTASTS, stsFetchUnknown.say), undeterminedCheck(CheckPTR, ptrUnknown.say), info(CheckDKIM),
		}, 100, GradeA, true},
		// A judged warn is not undetermined: it still earns half.
		{"judged warn", []CheckSummary{
			{ID: CheckMX, Status: StatusWarn, Summary: LocalizedText{ZH: "弱。", EN: "Weak."}}, pass(CheckSPF),
		}, 79, GradeC, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := score(tc.checks)
			require.Equal(t, tc.score, got, "score = %d grade %s, want %d %s", got, gradeFor(got), tc.score, tc.grade)
			require.Equal(t, tc.grade, gradeFor(got), "score = %d grade %s, want %d %s", got, gradeFor(got), tc.score, tc.grade)
			s := ScanSummary{Checks: tc.checks}
			require.Equal(t, tc.incomplete, s.Incomplete(), "Incomplete() = %v, want %v", s.Incomplete(), tc.incomplete)
			c := countStatuses(tc.checks)
			sum := overallSummary(gradeFor(tc.score), c, undetermined(tc.checks), slowChecks(tc.checks))
			evaluated := c.Pass + c.Warn + c.Fail
			isIncomplete := sum == txtOverallIncomplete.format(undetermined(tc.checks), evaluated) ||
				sum == txtOverallSlow.format(undetermined(tc.checks), evaluated)
			require.Equal(t, s.Slow() && tc.incomplete, sum == txtOverallSlow.format(undetermined(tc.checks), evaluated),
				"an incomplete scan that ran out of time says so: %q", sum.EN)
			require.Equal(t, tc.incomplete, isIncomplete, "summary %q: incomplete %v, want %v", sum.EN, isIncomplete, tc.incomplete)
		})
	}
}
