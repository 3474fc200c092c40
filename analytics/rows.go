package analytics

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// secretName is the settings row of the generated secret.
const secretName = "hmac_secret"

// generatedSecretBytes is the size of a generated secret: 256 bits.
const generatedSecretBytes = 32

// statusColumns are the status columns of events, in Checks order.
var statusColumns = func() []string {
	out := make([]string, len(Checks))
	for i, id := range Checks {
		out[i] = statusColumn(id)
	}
	return out
}()

// statusColumn is the events column of check id's status: "st_" and the
// id with hyphens as underscores (mta-sts → st_mta_sts).
func statusColumn(id string) string { return "st_" + strings.ReplaceAll(id, "-", "_") }

// eventColumns are the columns Insert writes, in order.
var eventColumns = append([]string{"day", "endpoint", "domain_hash", "visitor_hash", "source", "grade"}, statusColumns...)

// Secret implements Store: the first caller's random secret wins; every
// later caller (another instance too) reads it.
func (s *sqlStore) Secret(ctx context.Context) ([]byte, error) {
	fresh := make([]byte, generatedSecretBytes)
	_, _ = rand.Read(fresh) // crypto/rand.Read never fails (Go 1.24+)
	var stored string
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		ins := s.q("INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING")
		if _, err := tx.ExecContext(ctx, ins, secretName, hex.EncodeToString(fresh)); err != nil {
			return fmt.Errorf("analytics: %s: store secret: %w", s.d.name, err)
		}
		return tx.QueryRowContext(ctx, s.q("SELECT value FROM settings WHERE name = ?"), secretName).Scan(&stored)
	})
	if err != nil {
		return nil, err
	}
	b, err := hex.DecodeString(stored)
	if err != nil || len(b) < MinSecretBytes {
		return nil, errors.New("analytics: the stored secret is malformed")
	}
	return b, nil
}

// Insert implements Store with one multi-row INSERT.
func (s *sqlStore) Insert(ctx context.Context, rows []Row) error {
	if len(rows) == 0 {
		return nil
	}
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(eventColumns)), ", ") + ")"
	query := "INSERT INTO events (" + strings.Join(eventColumns, ", ") + ") VALUES " +
		strings.TrimSuffix(strings.Repeat(one+", ", len(rows)), ", ")
	args := make([]any, 0, len(rows)*len(eventColumns))
	for _, r := range rows {
		args = append(args, r.Day, r.Endpoint, nullable(r.DomainHash), r.Visitor, r.Source, nullable(r.Grade))
		for _, id := range Checks {
			args = append(args, nullable(r.Statuses[id]))
		}
	}
	if _, err := s.db.ExecContext(ctx, s.q(query), args...); err != nil {
		return fmt.Errorf("analytics: %s: insert %d rows: %w", s.d.name, len(rows), err)
	}
	return nil
}

// nullable is NULL for "".
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
