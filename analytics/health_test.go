package analytics

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/pgtest"
	"github.com/mailauth/mailauth/internal/syncbuf"
)

// TestHealthWhenStoreDown: with a PostgreSQL store, health says "ready";
// once the server is stopped it says "unavailable", scans still answer
// 200 and their rows are counted as failed, not waited for; the failures
// are logged with the store's error, which names no scanned domain.
func TestHealthWhenStoreDown(t *testing.T) {
	t.Parallel()
	cluster := pgtest.Start(t)
	store, err := OpenPostgres(t.Context(), cluster.NewDatabase(t, "health"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var log syncbuf.Buffer
	w := NewWriter(store, testHasher(t), WriterOptions{Logger: slog.New(slog.NewJSONHandler(&log, nil))})
	srv := httptest.NewServer(httpapi.New(quickService{}, httpapi.Options{Storage: store, Recorder: w}))
	defer srv.Close()
	if s := storageState(t, srv.URL); s != "ready" {
		t.Fatalf("storage %q, want ready", s)
	}
	scan := func() int {
		resp, err := http.Post(srv.URL+"/api/scan", "application/json", strings.NewReader(`{"domain":"`+healthCanary+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := scan(); code != 200 {
		t.Fatalf("scan: %d", code)
	}
	if err := w.Flush(t.Context()); err != nil || w.Committed() != 1 {
		t.Fatalf("committed %d %v", w.Committed(), err)
	}
	cluster.Stop()
	if s := storageState(t, srv.URL); s != "unavailable" {
		t.Errorf("storage %q, want unavailable", s)
	}
	t0 := time.Now()
	for range 3 {
		if code := scan(); code != 200 {
			t.Errorf("scan with the store down: %d", code)
		}
	}
	t.Logf("3 scans with the store down took %v", time.Since(t0))
	if err := w.Flush(t.Context()); err != nil || w.Failed() != 3 || w.Committed() != 1 {
		t.Errorf("failed %d committed %d %v", w.Failed(), w.Committed(), err)
	}
	_ = w.Close(t.Context())
	if l := log.String(); !strings.Contains(l, "batch not stored") || strings.Contains(l, healthCanary) {
		t.Errorf("the writer's log lacks the failure or names the domain:\n%s", l)
	}
}

// healthCanary is the domain TestHealthWhenStoreDown scans; it must not
// reach the log.
const healthCanary = "health-canary-5e1d.example.com"

// storageState is the storage field of GET /api/health.
func storageState(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/api/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h struct{ Storage string }
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return h.Storage
}
