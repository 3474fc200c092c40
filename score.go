package mailauth

// Scoring, in one place (doc/scoring.md; documented on
// /developers/api/). Each check has a weight (its row of
// checkTable); a pass earns its whole
// weight, a warn half of it, a fail nothing; an info check is left out of
// both the points and the total. The score is the share of points in the
// total, as a percentage rounded half up. A check that could not be
// determined (CheckSummary.Determination, set from the rule that led its
// verdict) is reported as warn but scored
// like info: an incomplete scan earns no credit and takes no blame for
// what it could not see. A scan where every evaluated check is info or
// undetermined scores 0 (grade F), and its summary says the scan was
// incomplete.

// gradeFloors maps the lowest score of each grade, best first.
var gradeFloors = []struct {
	min   int
	grade Grade
}{
	{90, GradeA},
	{80, GradeB},
	{65, GradeC},
	{50, GradeD},
	{0, GradeF},
}

// score returns the score of a set of check verdicts.
func score(checks []CheckSummary) int {
	num, den := 0, 0 // in half points, to stay in integers
	for _, c := range checks {
		if c.Undetermined() {
			continue // left out like info
		}
		w := weights[c.ID]
		switch c.Status {
		case StatusPass:
			num, den = num+2*w, den+2*w
		case StatusWarn:
			num, den = num+w, den+2*w
		case StatusFail:
			den += 2 * w
		}
	}
	if den == 0 {
		return 0
	}
	// round(100·num/den) with halves rounded up, in integers.
	return (200*num + den) / (2 * den)
}

// gradeFor returns the grade of a score.
func gradeFor(score int) Grade {
	for _, f := range gradeFloors {
		if score >= f.min {
			return f.grade
		}
	}
	return GradeF
}

// countStatuses counts checks by status.
func countStatuses(checks []CheckSummary) StatusCounts {
	var c StatusCounts
	for _, ch := range checks {
		switch ch.Status {
		case StatusPass:
			c.Pass++
		case StatusWarn:
			c.Warn++
		case StatusFail:
			c.Fail++
		default:
			c.Info++
		}
	}
	return c
}
