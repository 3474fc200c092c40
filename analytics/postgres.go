package analytics

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// PostgreSQL settings: a store that cannot be reached fails fast; a few
// connections are enough for one writer, health pings and roll-ups.
const (
	postgresConnectTimeout = 5 * time.Second
	postgresMaxConns       = 4
	// postgresLock is the advisory lock (an arbitrary constant of this
	// program) that serializes migrations, secret creation and roll-ups
	// of instances sharing a database.
	postgresLock = "SELECT pg_advisory_xact_lock(7795412008)"
)

// ErrInvalidPostgresURL is OpenPostgres's error for a URL it cannot
// parse; it never repeats the URL, which may hold a password.
var ErrInvalidPostgresURL = errors.New("analytics: invalid postgres URL")

// Postgres is the Store for many instances: one PostgreSQL database
// shared by all of them, through pgx.
type Postgres struct {
	*sqlStore
}

// OpenPostgres connects to the database of rawURL
// (postgres://user:password@host:port/db?sslmode=…) and applies the
// migrations.
func OpenPostgres(ctx context.Context, rawURL string) (*Postgres, error) {
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, ErrInvalidPostgresURL
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = postgresConnectTimeout
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(postgresMaxConns)
	s := &Postgres{&sqlStore{db: db, d: dialect{
		name: "postgres", migrations: migrationsFor("BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"),
		lock: postgresLock, dollar: true,
	}}}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}
