package analytics

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// Store is where rows and aggregates live: [SQLite] or [Postgres]. Every
// method is safe for concurrent use; several processes may share one
// PostgreSQL database (migrations, secret creation and roll-ups take a
// lock).
type Store interface {
	// Ping reports whether the store answers (GET /api/health).
	Ping(ctx context.Context) error
	// Secret returns the HMAC secret kept in the store, creating a random
	// one on first use.
	Secret(ctx context.Context) ([]byte, error)
	// Insert writes rows in one transaction.
	Insert(ctx context.Context, rows []Row) error
	// Rollup recomputes the daily aggregates of the day before today, of
	// today (both may still change) and of every day with raw rows but no
	// aggregates yet.
	Rollup(ctx context.Context, today string) error
	// Prune deletes the raw rows of the days before before whose
	// aggregates exist.
	Prune(ctx context.Context, before string) error
	// Report reads the aggregates of the days from..to (inclusive).
	Report(ctx context.Context, from, to string) (Report, error)
	// Close closes the database.
	Close() error
}

// dialect holds what differs between the SQL databases.
type dialect struct {
	name       string
	migrations []string // version i+1 is migrations[i]
	// lock, when not empty, is run first in a transaction that must not
	// run concurrently with another process's (PostgreSQL advisory lock).
	lock string
	// dollar numbers the placeholders ($1, $2, …) instead of ?.
	dollar bool
}

// sqlStore implements Store over database/sql.
type sqlStore struct {
	db *sql.DB
	d  dialect
}

// q rewrites the ? placeholders of query for the dialect.
func (s *sqlStore) q(query string) string {
	if !s.d.dollar {
		return query
	}
	var b strings.Builder
	n := 0
	for _, c := range query {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// inTx runs fn in a transaction, after the dialect's lock.
func (s *sqlStore) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("analytics: %s: begin: %w", s.d.name, err)
	}
	defer func() { _ = tx.Rollback() }()
	if s.d.lock != "" {
		if _, err := tx.ExecContext(ctx, s.d.lock); err != nil {
			return fmt.Errorf("analytics: %s: lock: %w", s.d.name, err)
		}
	}
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("analytics: %s: commit: %w", s.d.name, err)
	}
	return nil
}

// Ping implements Store: the schema must be readable, not only the
// connection open.
func (s *sqlStore) Ping(ctx context.Context) error {
	var v int
	if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM schema_migrations").Scan(&v); err != nil {
		return fmt.Errorf("analytics: %s: ping: %w", s.d.name, err)
	}
	return nil
}

// Close implements Store.
func (s *sqlStore) Close() error { return s.db.Close() }

// database gives tests the underlying database.
func (s *sqlStore) database() *sqlStore { return s }
