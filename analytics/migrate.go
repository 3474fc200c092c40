package analytics

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// schemaV1 is the first schema; {ID} is the dialect's auto-increment key.
// Days are TEXT YYYY-MM-DD in both databases, so they compare as text.
const schemaV1 = `
CREATE TABLE events (
	id {ID},
	day TEXT NOT NULL,
	endpoint TEXT NOT NULL,
	domain_hash TEXT,
	visitor_hash TEXT NOT NULL,
	source TEXT NOT NULL,
	grade TEXT,
	st_mx TEXT, st_spf TEXT, st_dmarc TEXT, st_dkim TEXT,
	st_mta_sts TEXT, st_tls_rpt TEXT, st_ptr TEXT, st_caa TEXT
);
CREATE INDEX events_day ON events (day);
CREATE TABLE daily_totals (
	day TEXT PRIMARY KEY,
	scans BIGINT NOT NULL,
	ptr_checks BIGINT NOT NULL,
	domains BIGINT NOT NULL,
	visitors BIGINT NOT NULL
);
CREATE TABLE daily_grades (
	day TEXT NOT NULL, grade TEXT NOT NULL, n BIGINT NOT NULL,
	PRIMARY KEY (day, grade)
);
CREATE TABLE daily_checks (
	day TEXT NOT NULL, check_id TEXT NOT NULL, status TEXT NOT NULL, n BIGINT NOT NULL,
	PRIMARY KEY (day, check_id, status)
);
CREATE TABLE daily_sources (
	day TEXT NOT NULL, source TEXT NOT NULL, n BIGINT NOT NULL,
	PRIMARY KEY (day, source)
);
CREATE TABLE settings (
	name TEXT PRIMARY KEY,
	value TEXT NOT NULL
)`

// migrations are the schema changes after schemaV1, one statement each,
// in order; a new check adds its status column here
// ("ALTER TABLE events ADD COLUMN st_<id> TEXT", see statusColumn), and a
// test fails while any check of mailauth.CheckOrder has no column.
var migrations = []string{
	// none yet
}

// migrationsFor returns the migrations with the dialect's id column.
func migrationsFor(id string) []string {
	return append([]string{strings.ReplaceAll(schemaV1, "{ID}", id)}, migrations...)
}

// migrate applies the migrations the database has not seen, with their
// version rows, in one transaction under the dialect's lock: a process
// that starts at the same time waits, then finds them applied.
func (s *sqlStore) migrate(ctx context.Context) error {
	create := "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)"
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, create); err != nil {
			return fmt.Errorf("analytics: %s: migrations table: %w", s.d.name, err)
		}
		var have int
		if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Scan(&have); err != nil {
			return fmt.Errorf("analytics: %s: schema version: %w", s.d.name, err)
		}
		if have > len(s.d.migrations) {
			return fmt.Errorf("analytics: %s: schema version %d is newer than this program (%d)", s.d.name, have, len(s.d.migrations))
		}
		for v := have + 1; v <= len(s.d.migrations); v++ {
			if err := s.apply(ctx, tx, v); err != nil {
				return err
			}
		}
		return nil
	})
}

// apply runs migration v statement by statement and records it.
func (s *sqlStore) apply(ctx context.Context, tx *sql.Tx, v int) error {
	for stmt := range strings.SplitSeq(s.d.migrations[v-1], ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("analytics: %s: migration %d: %w", s.d.name, v, err)
		}
	}
	if _, err := tx.ExecContext(ctx, s.q("INSERT INTO schema_migrations (version) VALUES (?)"), v); err != nil {
		return fmt.Errorf("analytics: %s: migration %d: %w", s.d.name, v, err)
	}
	return nil
}
