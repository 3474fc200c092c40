package analytics

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// aggregateTables are the tables Rollup rewrites per day.
var aggregateTables = []string{"daily_totals", "daily_grades", "daily_checks", "daily_sources"}

// rollupQueries compute a day's aggregates from its raw rows; each takes
// the day once.
var rollupQueries = []string{
	`INSERT INTO daily_totals (day, scans, ptr_checks, domains, visitors)
	SELECT day, SUM(CASE WHEN endpoint = 'scan' THEN 1 ELSE 0 END), SUM(CASE WHEN endpoint = 'ptr-check' THEN 1 ELSE 0 END),
		COUNT(DISTINCT domain_hash), COUNT(DISTINCT visitor_hash)
	FROM events WHERE day = ? GROUP BY day`,
	`INSERT INTO daily_grades (day, grade, n)
	SELECT day, grade, COUNT(*) FROM events WHERE day = ? AND grade IS NOT NULL GROUP BY day, grade`,
	`INSERT INTO daily_sources (day, source, n)
	SELECT day, source, COUNT(*) FROM events WHERE day = ? GROUP BY day, source`,
	checksRollup(),
}

// checksRollup counts each check's statuses of one day across both
// endpoints.
func checksRollup() string {
	parts := make([]string, len(Checks))
	for i, id := range Checks {
		parts[i] = fmt.Sprintf("SELECT day, '%s' AS check_id, %s AS status FROM events WHERE day = ? AND %s IS NOT NULL",
			id, statusColumns[i], statusColumns[i])
	}
	return `INSERT INTO daily_checks (day, check_id, status, n)
	SELECT day, check_id, status, COUNT(*) FROM (` + strings.Join(parts, " UNION ALL ") + `) AS c GROUP BY day, check_id, status`
}

// Rollup implements Store.
func (s *sqlStore) Rollup(ctx context.Context, today string) error {
	t, err := time.Parse(dayLayout, today)
	if err != nil {
		return fmt.Errorf("analytics: rollup: day %q: %w", today, err)
	}
	yesterday := Day(t.AddDate(0, 0, -1))
	days, err := s.openDays(ctx, yesterday)
	if err != nil {
		return err
	}
	for _, d := range days {
		if err := s.rollupDay(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

// openDays are the days with raw rows that are on or after since, or have
// no aggregates yet.
func (s *sqlStore) openDays(ctx context.Context, since string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT DISTINCT day FROM events
		WHERE day >= ? OR day NOT IN (SELECT day FROM daily_totals) ORDER BY day`), since)
	if err != nil {
		return nil, fmt.Errorf("analytics: %s: rollup days: %w", s.d.name, err)
	}
	defer rows.Close()
	var days []string
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			return nil, fmt.Errorf("analytics: %s: rollup days: %w", s.d.name, err)
		}
		days = append(days, d)
	}
	return days, rows.Err()
}

// rollupDay replaces the aggregates of day in one transaction.
func (s *sqlStore) rollupDay(ctx context.Context, day string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		for _, table := range aggregateTables {
			if _, err := tx.ExecContext(ctx, s.q("DELETE FROM "+table+" WHERE day = ?"), day); err != nil {
				return fmt.Errorf("analytics: %s: rollup %s: %w", s.d.name, table, err)
			}
		}
		for _, query := range rollupQueries {
			args := make([]any, strings.Count(query, "?"))
			for i := range args {
				args[i] = day
			}
			if _, err := tx.ExecContext(ctx, s.q(query), args...); err != nil {
				return fmt.Errorf("analytics: %s: rollup: %w", s.d.name, err)
			}
		}
		return nil
	})
}

// Prune implements Store.
func (s *sqlStore) Prune(ctx context.Context, before string) error {
	_, err := s.db.ExecContext(ctx, s.q("DELETE FROM events WHERE day < ? AND day IN (SELECT day FROM daily_totals)"), before)
	if err != nil {
		return fmt.Errorf("analytics: %s: prune: %w", s.d.name, err)
	}
	return nil
}
