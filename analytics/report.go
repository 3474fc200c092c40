package analytics

import (
	"context"
	"fmt"
	"sort"
)

// Report is what `mailauth stats` shows: the aggregates of a range of
// days. Distinct domains and visitors are per day only: a domain scanned
// on two days counts on each.
type Report struct {
	From    string      `json:"from"` // first day, YYYY-MM-DD
	To      string      `json:"to"`   // last day
	Days    []DayTotals `json:"days"` // days with traffic, oldest first
	Grades  []Count     `json:"grades"`
	Checks  []CheckRate `json:"checks"`
	Sources []Count     `json:"sources"`
}

// DayTotals are one day's counts.
type DayTotals struct {
	Day       string `json:"day"`
	Scans     int64  `json:"scans"`
	PtrChecks int64  `json:"ptrChecks"`
	Domains   int64  `json:"distinctDomains"`
	Visitors  int64  `json:"distinctVisitors"`
}

// Count is a label and its number of diagnostics.
type Count struct {
	Label string `json:"label"`
	N     int64  `json:"count"`
}

// StatusUndetermined is the status recorded for a check that reached no
// conclusion (httpapi.StatusUndetermined; it is reported as warn on the
// wire): counted apart, never as a warning or a fail.
const StatusUndetermined = "undetermined"

// CheckRate is one check's outcomes over the range.
type CheckRate struct {
	Check        string `json:"check"`
	Total        int64  `json:"total"`        // diagnostics that reported the check
	Failed       int64  `json:"failed"`       // of which status fail
	Undetermined int64  `json:"undetermined"` // of which could not be determined
	// FailRate is Failed / (Total − Undetermined): an undetermined check
	// is neither a pass nor a fail; 0 when nothing was determined.
	FailRate float64 `json:"failRate"`
}

// Report implements Store.
func (s *sqlStore) Report(ctx context.Context, from, to string) (Report, error) {
	r := Report{From: from, To: to, Days: []DayTotals{}}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT day, scans, ptr_checks, domains, visitors FROM daily_totals
		WHERE day >= ? AND day <= ? ORDER BY day`), from, to)
	if err != nil {
		return r, fmt.Errorf("analytics: %s: report: %w", s.d.name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var d DayTotals
		if err := rows.Scan(&d.Day, &d.Scans, &d.PtrChecks, &d.Domains, &d.Visitors); err != nil {
			return r, fmt.Errorf("analytics: %s: report: %w", s.d.name, err)
		}
		r.Days = append(r.Days, d)
	}
	if err := rows.Err(); err != nil {
		return r, fmt.Errorf("analytics: %s: report: %w", s.d.name, err)
	}
	if r.Grades, err = s.counts(ctx, "grade", "daily_grades", from, to); err != nil {
		return r, err
	}
	if r.Sources, err = s.counts(ctx, "source", "daily_sources", from, to); err != nil {
		return r, err
	}
	r.Checks, err = s.checkRates(ctx, from, to)
	return r, err
}

// counts sums n per label column of table over the range, largest first.
func (s *sqlStore) counts(ctx context.Context, column, table, from, to string) ([]Count, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+column+`, CAST(SUM(n) AS BIGINT) FROM `+table+`
		WHERE day >= ? AND day <= ? GROUP BY `+column+` ORDER BY `+column), from, to)
	if err != nil {
		return nil, fmt.Errorf("analytics: %s: report %s: %w", s.d.name, table, err)
	}
	defer rows.Close()
	out := []Count{}
	for rows.Next() {
		var c Count
		if err := rows.Scan(&c.Label, &c.N); err != nil {
			return nil, fmt.Errorf("analytics: %s: report %s: %w", s.d.name, table, err)
		}
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].N > out[j].N })
	return out, rows.Err()
}

// checkRates are the per-check totals and fail rates, in Checks order.
func (s *sqlStore) checkRates(ctx context.Context, from, to string) ([]CheckRate, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT check_id, status, CAST(SUM(n) AS BIGINT) FROM daily_checks
		WHERE day >= ? AND day <= ? GROUP BY check_id, status`), from, to)
	if err != nil {
		return nil, fmt.Errorf("analytics: %s: report checks: %w", s.d.name, err)
	}
	defer rows.Close()
	byID := map[string]*CheckRate{}
	for rows.Next() {
		var id, status string
		var n int64
		if err := rows.Scan(&id, &status, &n); err != nil {
			return nil, fmt.Errorf("analytics: %s: report checks: %w", s.d.name, err)
		}
		c := byID[id]
		if c == nil {
			c = &CheckRate{Check: id}
			byID[id] = c
		}
		c.Total += n
		switch status {
		case "fail":
			c.Failed += n
		case StatusUndetermined:
			c.Undetermined += n
		}
	}
	out := []CheckRate{}
	for _, id := range Checks {
		if c := byID[id]; c != nil {
			if determined := c.Total - c.Undetermined; determined > 0 {
				c.FailRate = float64(c.Failed) / float64(determined)
			}
			out = append(out, *c)
		}
	}
	return out, rows.Err()
}
