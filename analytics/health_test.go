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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/pgtest"
	"github.com/mailauth/mailauth/internal/syncbuf"
)

// TestHealthWhenStoreDown: with a PostgreSQL store, health says "ready";
// once the server is stopped it says "unavailable", scans still answer
// 200 and their rows are held for a retry, not waited for; the failures
// are logged with the store's error, which names no scanned domain.
func TestHealthWhenStoreDown(t *testing.T) {
	t.Parallel()
	cluster := pgtest.Start(t)
	store, err := OpenPostgres(t.Context(), cluster.NewDatabase(t, "health"))
	require.NoError(t, err)
	defer store.Close()
	var log syncbuf.Buffer
	w := NewWriter(store, testHasher(t), WriterOptions{Logger: slog.New(slog.NewJSONHandler(&log, nil))})
	srv := httptest.NewServer(httpapi.New(quickService{}, httpapi.Options{Storage: store, Recorder: w}))
	defer srv.Close()
	require.Equal(t, "ready", storageState(t, srv.URL), "storage")
	scan := func() int {
		resp, err := http.Post(srv.URL+"/api/scan", "application/json", strings.NewReader(`{"domain":"`+healthCanary+`"}`))
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, 200, scan(), "scan")
	require.NoError(t, w.Flush(t.Context()))
	require.Equal(t, int64(1), w.Committed(), "committed")
	cluster.Stop()
	assert.Equal(t, "unavailable", storageState(t, srv.URL), "storage")
	t0 := time.Now()
	for range 3 {
		assert.Equal(t, 200, scan(), "scan with the store down")
	}
	t.Logf("3 scans with the store down took %v", time.Since(t0))
	assert.NoError(t, w.Flush(t.Context()))
	assert.Equal(t, int64(3), w.Held(), "held for a retry")
	assert.Equal(t, int64(1), w.Committed(), "committed")
	_ = w.Close(t.Context())
	l := log.String()
	assert.Contains(t, l, "batch not stored", "the writer's log lacks the failure")
	assert.NotContains(t, l, healthCanary, "the writer's log names the domain")
}

// healthCanary is the domain TestHealthWhenStoreDown scans; it must not
// reach the log.
const healthCanary = "health-canary-5e1d.example.com"

// storageState is the storage field of GET /api/health.
func storageState(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/api/health")
	require.NoError(t, err)
	defer resp.Body.Close()
	var h struct{ Storage string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&h))
	return h.Storage
}
