package main

import (
	"net/http"
	"testing"

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
	if statuses[200] != 30 || statuses[429] != 1 || len(statuses) != 2 {
		t.Errorf("statuses %v, want 30×200 and 1×429", statuses)
	}
	for _, s := range []string{healthStorage(t, baseA), healthStorage(t, baseB)} {
		if s != "ready" {
			t.Errorf("health storage %q", s)
		}
	}
	if a, b := stopA(), stopB(); a != exitOK || b != exitOK {
		t.Fatalf("exits %d %d:\n%s\n%s", a, b, logA.String(), logB.String())
	}
	store, err := analytics.OpenPostgres(t.Context(), pg)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	now := timeNow()
	if err := store.Rollup(t.Context(), analytics.Day(now)); err != nil {
		t.Fatal(err)
	}
	rep, err := store.Report(t.Context(), analytics.Day(now.AddDate(0, 0, -1)), analytics.Day(now)) // the test may cross midnight
	if err != nil || len(rep.Days) != 1 {
		t.Fatalf("report %+v %v", rep, err)
	}
	d := rep.Days[0]
	if d.Scans != want["/api/scan"] || d.PtrChecks != want["/api/ptr-check"] || d.Scans+d.PtrChecks != 30 || d.Domains != 1 || d.Visitors != 1 {
		t.Errorf("aggregates %+v, want %v requests answered by one visitor", d, want)
	}
}
