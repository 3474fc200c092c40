package analytics

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, no cgo
)

// SQLite settings. WAL lets the stats command read while the service
// writes; synchronous=FULL makes a committed batch survive a crash of the
// process and of the machine; the busy timeout lets a second process
// (mailauth stats) wait for the writer instead of failing.
const (
	sqlitePragmas  = "_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(10000)&_txlock=immediate"
	sqliteMaxConns = 4
	sqliteDirMode  = 0o700 // the file holds the secret
	sqliteFileMode = 0o600
)

// SQLite is the embedded Store: one file, written in WAL mode.
type SQLite struct {
	*sqlStore
	path string
}

// OpenSQLite opens (creating it and its directory when missing) the
// database file at path and applies the migrations.
func OpenSQLite(ctx context.Context, path string) (*SQLite, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, errors.New("analytics: sqlite: the path must be non-empty and hold no ? or #")
	}
	if err := createPrivate(path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", path+"?"+sqlitePragmas)
	if err != nil {
		return nil, fmt.Errorf("analytics: sqlite: %w", err)
	}
	db.SetMaxOpenConns(sqliteMaxConns)
	s := &SQLite{sqlStore: &sqlStore{db: db, d: dialect{name: "sqlite", migrations: migrationsFor("INTEGER PRIMARY KEY")}}, path: path}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Path is the database file.
func (s *SQLite) Path() string { return s.path }

// createPrivate creates path's directory and an empty file readable by
// its owner only, unless the file exists (it must then be a regular
// file): SQLite would create it with the
// umask's mode, and it holds the secret.
func createPrivate(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), sqliteDirMode); err != nil {
		return fmt.Errorf("analytics: sqlite: %w", err)
	}
	// A FIFO would block the open for ever, a device is not a database.
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("analytics: sqlite: %s is not a regular file (%s)", path, fi.Mode().Type())
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, sqliteFileMode)
	if err != nil {
		return fmt.Errorf("analytics: sqlite: %w", err)
	}
	return f.Close()
}
