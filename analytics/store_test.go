package analytics

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/pgtest"
)

// opener opens the same store again (a restart, or another instance).
type opener func(t *testing.T) Store

// stores returns an opener per real store: a SQLite file and a database
// on a throw-away PostgreSQL server.
func stores(t *testing.T) map[string]opener {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", "analytics.db")
	pg := pgtest.Start(t).NewDatabase(t, "analytics")
	open := func(setting string) opener {
		return func(t *testing.T) Store {
			t.Helper()
			s, err := Open(context.Background(), setting)
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Close() })
			return s
		}
	}
	return map[string]opener{"sqlite": open("sqlite:" + path), "postgres": open(pg)}
}

var testSecret = []byte("0123456789abcdef0123456789abcdef")

func testHasher(t *testing.T) *Hasher {
	t.Helper()
	h, err := NewHasher(testSecret, DefaultSourceLabels)
	require.NoError(t, err)
	return h
}

// scanEvent is a scan of domain by client on day with grade and an spf
// status.
func scanEvent(day time.Time, domain, client, utm, grade, spf string) httpapi.Event {
	return httpapi.Event{Time: day, Endpoint: httpapi.EndpointScan, Domain: domain, Client: client, UTMSource: utm, Grade: grade,
		Checks: []httpapi.CheckStatus{{ID: "mx", Status: "pass"}, {ID: "spf", Status: spf}}}
}

// ptrEvent is a ptr-check by client on day.
func ptrEvent(day time.Time, client, status string) httpapi.Event {
	return httpapi.Event{Time: day, Endpoint: httpapi.EndpointPtrCheck, Client: client, Checks: []httpapi.CheckStatus{{ID: "ptr", Status: status}}}
}

// TestStores: both stores migrate once, keep one secret across reopenings
// (and instances), and turn rows into the aggregates Report reads; Rollup
// is idempotent and Prune deletes only old raw rows.
func TestStores(t *testing.T) {
	require.Equal(t, httpapi.StatusUndetermined, StatusUndetermined, "the status httpapi records is the one Report counts")
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			a, b := open(t), open(t) // two instances (or a restart)
			require.NoError(t, a.Ping(ctx))
			sa, err := a.Secret(ctx)
			require.NoError(t, err, "secret")
			require.Len(t, sa, generatedSecretBytes, "secret")
			sb, err := b.Secret(ctx)
			assert.NoError(t, err, "second instance's secret")
			assert.Equal(t, string(sa), string(sb), "second instance's secret")
			h := testHasher(t)
			d1 := time.Date(2026, 11, 20, 23, 59, 0, 0, time.UTC)
			d2 := d1.Add(2 * time.Minute) // the next UTC day
			rows := []Row{
				h.Row(scanEvent(d1, "example.com", "192.0.2.1", "web", "A", "pass")),
				h.Row(scanEvent(d1, "EXAMPLE.com", "192.0.2.1", "", "C", "fail")),
				h.Row(scanEvent(d1, "example.org", "192.0.2.2", "spam-campaign", "C", "fail")),
				h.Row(ptrEvent(d1, "2001:db8:1:2::/64", "warn")),
				h.Row(scanEvent(d2, "example.com", "192.0.2.1", "cli", "F", "fail")),
				// An spf check that could not be determined: neither a
				// pass nor a fail, left out of the fail rate.
				h.Row(scanEvent(d2, "example.com", "192.0.2.1", "", "B", httpapi.StatusUndetermined)),
			}
			require.NoError(t, a.Insert(ctx, rows[:3]))
			require.NoError(t, b.Insert(ctx, rows[3:]))
			for range 2 {
				require.NoError(t, a.Rollup(ctx, Day(d2)))
			}
			got, err := b.Report(ctx, Day(d1), Day(d2))
			require.NoError(t, err)
			want := Report{From: "2026-11-20", To: "2026-11-21",
				Days: []DayTotals{
					{Day: "2026-11-20", Scans: 3, PtrChecks: 1, Domains: 2, Visitors: 3},
					{Day: "2026-11-21", Scans: 2, PtrChecks: 0, Domains: 1, Visitors: 1},
				},
				Grades: []Count{{"C", 2}, {"A", 1}, {"B", 1}, {"F", 1}},
				Checks: []CheckRate{{"mx", 5, 0, 0, 0}, {"spf", 5, 3, 1, 0.75}, {"ptr", 1, 0, 0, 0}},
				// Largest first, equal counts in label order.
				Sources: []Count{{"direct", 3}, {"cli", 1}, {"other", 1}, {"web", 1}},
			}
			assert.Equal(t, want, got, "report")
			require.NoError(t, a.Prune(ctx, Day(d2)))
			assert.Equal(t, 2, countRows(t, a, "events"), "raw rows after pruning the first day (the second day's two)")
			require.NoError(t, a.Rollup(ctx, Day(d2.AddDate(0, 0, 5))))
			again, err := a.Report(ctx, Day(d1), Day(d2))
			assert.NoError(t, err, "report after pruning and a later roll-up")
			assert.Equal(t, want, again, "aggregates changed after pruning and a later roll-up")
			assert.Equal(t, len(migrationsFor("")), countRows(t, b, "schema_migrations"), "migrations recorded")
		})
	}
}

// countRows counts the rows of table.
func countRows(t *testing.T, s Store, table string) int {
	t.Helper()
	var n int
	require.NoError(t, s.(interface{ database() *sqlStore }).database().db.QueryRow("SELECT COUNT(*) FROM "+table).Scan(&n))
	return n
}

// TestOpenRefuses: malformed settings and URLs are refused without
// echoing a password.
func TestOpenRefuses(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "sqlite:", "mysql://x", "sqlite:/tmp/a?b.db", "postgres://u:hunter2@[::1/db"} {
		st, err := Open(context.Background(), s)
		if !assert.Error(t, err, "%q: opened", s) || !assert.Nil(t, st, "%q: opened", s) {
			continue
		}
		assert.NotContains(t, fmt.Sprint(err), "hunter2", "%q: error", s)
	}
	st, err := Open(context.Background(), "none")
	assert.Nil(t, st, "none")
	assert.NoError(t, err, "none")
}
