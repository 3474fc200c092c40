package analytics

import (
	"context"
	"errors"
	"strings"
)

// Forms of a storage setting (the -storage flag).
const (
	StorageNone     = "none"    // no analytics
	sqlitePrefix    = "sqlite:" // sqlite:PATH
	postgresScheme  = "postgres://"
	postgresqlAlias = "postgresql://"
)

// ErrStorageSyntax is the error of a storage setting of no known form.
var ErrStorageSyntax = errors.New("analytics: storage must be none, sqlite:PATH or postgres://…")

// Open opens the store a storage setting names: "sqlite:PATH",
// "postgres://…" (or "postgresql://…"), or "none", for which it returns a
// nil Store.
func Open(ctx context.Context, setting string) (Store, error) {
	switch kind(setting) {
	case StorageNone:
		return nil, nil
	case "sqlite":
		s, err := OpenSQLite(ctx, strings.TrimPrefix(setting, sqlitePrefix))
		if err != nil {
			return nil, err // not a nil *SQLite in a non-nil Store
		}
		return s, nil
	case "postgres":
		s, err := OpenPostgres(ctx, setting)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, ErrStorageSyntax
}

// CheckSetting reports whether setting has one of the forms Open takes,
// without opening anything.
func CheckSetting(setting string) error {
	if kind(setting) == "" {
		return ErrStorageSyntax
	}
	return nil
}

// Describe names the store of a valid setting for a log line: the SQLite
// path, or "postgres" alone (the URL may hold a password).
func Describe(setting string) string {
	if kind(setting) == "sqlite" {
		return setting
	}
	return kind(setting)
}

// kind is "none", "sqlite", "postgres", or "" for anything else.
func kind(setting string) string {
	switch {
	case setting == StorageNone:
		return StorageNone
	case strings.HasPrefix(setting, sqlitePrefix) && len(setting) > len(sqlitePrefix):
		return "sqlite"
	case strings.HasPrefix(setting, postgresScheme), strings.HasPrefix(setting, postgresqlAlias):
		return "postgres"
	}
	return ""
}
