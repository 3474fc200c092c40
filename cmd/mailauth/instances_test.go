package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/analytics"
	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/pgtest"
	"github.com/mailauth/mailauth/internal/redistest"
)

// TestManyInstances: two `mailauth serve` on different ports share a
// Redis server (rate limit) and a PostgreSQL database (analytics, and the
// secret generated there by whichever started first). 31 requests from
// one address spread over both get exactly one 429; the aggregates equal
// the requests answered, and the one visitor is one visitor.
func TestManyInstances(t *testing.T) {
	t.Parallel()
	pg := pgtest.Start(t).NewDatabase(t, "many")
	rd := redistest.Start(t)
	args := []string{"-listen", "127.0.0.1:0", "-storage", pg, "-ratelimit", rd}
	hooks := serveHooks{service: func(mailauth.Config) httpapi.Service { return &fakeService{} }}
	baseA, logA, stopA := startServe(t, args, nil, hooks)
	baseB, logB, stopB := startServe(t, args, nil, hooks)
	statuses := map[int]int{}
	want := map[string]int64{}
	for i := range 31 {
		base, path, body := baseA, "/api/scan", `{"domain":"example.com"}`
		if i%2 == 1 {
			base, path, body = baseB, "/api/ptr-check", `{"sendingIp":"8.8.8.8"}`
		}
		code := postJSON(t, base, path, body, nil)
		statuses[code]++
		if code == http.StatusOK {
			want[path]++
		}
	}
	assert.Equal(t, map[int]int{200: 30, 429: 1}, statuses, "statuses, want 30×200 and 1×429")
	for _, s := range []string{healthStorage(t, baseA), healthStorage(t, baseB)} {
		assert.Equal(t, "ready", s, "health storage")
	}
	a, b := stopA(), stopB()
	require.Equal(t, exitOK, a, "exits %d %d:\n%s\n%s", a, b, logA.String(), logB.String())
	require.Equal(t, exitOK, b, "exits %d %d:\n%s\n%s", a, b, logA.String(), logB.String())
	store, err := analytics.OpenPostgres(t.Context(), pg)
	require.NoError(t, err)
	defer store.Close()
	now := timeNow()
	require.NoError(t, store.Rollup(t.Context(), analytics.Day(now)))
	rep, err := store.Report(t.Context(), analytics.Day(now.AddDate(0, 0, -1)), analytics.Day(now)) // the test may cross midnight
	require.NoError(t, err, "report %+v", rep)
	require.Len(t, rep.Days, 1, "report %+v", rep)
	d := rep.Days[0]
	const msg = "aggregates %+v, want %v requests answered by one visitor"
	assert.Equal(t, want["/api/scan"], d.Scans, msg, d, want)
	assert.Equal(t, want["/api/ptr-check"], d.PtrChecks, msg, d, want)
	assert.Equal(t, int64(30), d.Scans+d.PtrChecks, msg, d, want)
	assert.Equal(t, int64(1), d.Domains, msg, d, want)
	assert.Equal(t, int64(1), d.Visitors, msg, d, want)
}
