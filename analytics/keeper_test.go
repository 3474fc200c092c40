package analytics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/pgtest"
	"github.com/mailauth/mailauth/internal/syncbuf"
)

// flakyStore fails its next fail inserts, and every insert while down;
// otherwise it works.
type flakyStore struct {
	Store
	fail    atomic.Int64
	down    atomic.Bool
	inserts atomic.Int64
}

var errFlaky = errors.New("insert failed (test)")

func (f *flakyStore) Insert(ctx context.Context, rows []Row) error {
	f.inserts.Add(1)
	if f.down.Load() || f.fail.Add(-1) >= 0 {
		return errFlaky
	}
	return f.Store.Insert(ctx, rows)
}

// TestWriterOutageLosesNothing: while the store refuses every insert,
// the rows are held for a retry (the writer is unhealthy, one ERROR
// record, no row counted as failed); once it answers again every row is
// stored, in order, and the writer is healthy again.
func TestWriterOutageLosesNothing(t *testing.T) {
	t.Parallel()
	store := &flakyStore{Store: openTestSQLite(t)}
	var log syncbuf.Buffer
	w := NewWriter(store, testHasher(t), WriterOptions{QueueSize: 64, BatchSize: 4, RetryPause: time.Millisecond,
		MaxRetryPause: 20 * time.Millisecond, Logger: slog.New(slog.NewJSONHandler(&log, nil))})
	defer w.Close(t.Context())
	day := time.Now()

	outage := time.Now() // before the first failed insert
	store.down.Store(true)
	for i := range 40 {
		w.Record(scanEvent(day, fmt.Sprintf("d%d.example", i), "192.0.2.1", "", "A", "pass"))
		if i%8 == 0 {
			time.Sleep(5 * time.Millisecond) // rows arrive during the outage, between retries
		}
	}
	require.Eventually(t, func() bool { return w.Held() == 40 }, 30*time.Second, time.Millisecond, "every row is held")
	require.Eventually(t, func() bool { return store.inserts.Load() > 5 }, 30*time.Second, time.Millisecond, "retried with backoff")
	assert.False(t, w.Healthy(), "unhealthy during the outage")
	assert.Equal(t, int64(0), w.Committed())
	assert.Equal(t, int64(0), w.Failed(), "nothing lost while the buffer has room")
	assert.Equal(t, int64(0), w.Dropped())

	store.down.Store(false)
	require.Eventually(t, func() bool { return w.Committed() == 40 }, 30*time.Second, time.Millisecond, "the retries store every row")
	assert.Equal(t, int64(0), w.Held())
	assert.Equal(t, int64(0), w.Failed())
	assert.True(t, w.Healthy(), "healthy once the held rows are stored")
	assert.Equal(t, 40, countRows(t, store.Store, "events"))
	assertOneRecordPerOutage(t, log.String(), "batch not stored", time.Since(outage))
	assert.Contains(t, log.String(), "batches stored again")
}

// assertOneRecordPerOutage: log holds one record of msg, about an outage
// that lasted at most elapsed, not one per retry; or, when a loaded
// machine made the outage last dropLogInterval or longer, at most one per
// dropLogInterval (the writer's rate limit). The time only loosens the
// bound: a writer that logs each retry (many per interval) still fails.
func assertOneRecordPerOutage(t *testing.T, log, msg string, elapsed time.Duration) {
	t.Helper()
	n := strings.Count(log, msg)
	assert.GreaterOrEqual(t, n, 1, "the outage is logged: %s", log)
	assert.LessOrEqual(t, n, 1+int(elapsed/dropLogInterval), "one record per outage (%v long), not one per retry: %s", elapsed, log)
}

// TestWriterRetryBufferFull: an outage longer than the retry buffer
// holds drops the oldest rows (counted as failed); the newest are stored
// once the store answers; rows still held at Close are counted as failed.
func TestWriterRetryBufferFull(t *testing.T) {
	t.Parallel()
	store := &flakyStore{Store: openTestSQLite(t)}
	w := NewWriter(store, testHasher(t), WriterOptions{QueueSize: 4, BatchSize: 2, RetryPause: time.Hour})
	day := time.Now()
	store.down.Store(true)
	for i := range 10 {
		w.Record(scanEvent(day, fmt.Sprintf("d%d.example", i), "192.0.2.1", "", "A", "pass"))
		require.NoError(t, w.Flush(t.Context()))
	}
	assert.Equal(t, int64(4), w.Held(), "the buffer holds QueueSize rows")
	assert.Equal(t, int64(6), w.Failed(), "the oldest rows are dropped")
	store.down.Store(false)
	require.NoError(t, w.Flush(t.Context()))
	assert.Equal(t, int64(4), w.Committed())
	assert.Equal(t, int64(0), w.Held())

	store.down.Store(true)
	w.Record(scanEvent(day, "late.example", "192.0.2.1", "", "A", "pass"))
	require.NoError(t, w.Close(t.Context()))
	assert.Equal(t, int64(7), w.Failed(), "a row still held at Close is lost and counted")
	assert.Equal(t, int64(0), w.Held())
}

// TestWriterFailureLogRateLimited: many failing inserts in a row give one
// ERROR record, not one per batch; the rows are all held.
func TestWriterFailureLogRateLimited(t *testing.T) {
	t.Parallel()
	store := &flakyStore{Store: openTestSQLite(t)}
	store.fail.Store(1 << 40)
	var log syncbuf.Buffer
	w := NewWriter(store, testHasher(t), WriterOptions{BatchSize: 1, RetryPause: time.Microsecond, Logger: slog.New(slog.NewJSONHandler(&log, nil))})
	defer w.Close(t.Context())
	outage := time.Now()
	for range 50 {
		w.Record(scanEvent(time.Now(), "a.example", "192.0.2.1", "", "A", "pass"))
		require.NoError(t, w.Flush(t.Context()))
	}
	assert.Equal(t, int64(50), w.Held(), "every row held for a retry")
	assertOneRecordPerOutage(t, log.String(), `"level":"ERROR"`, time.Since(outage))
}

// TestWriterQueueFullUnhealthy: a full queue makes the writer unhealthy.
func TestWriterQueueFullUnhealthy(t *testing.T) {
	t.Parallel()
	store := &blockingStore{Store: openTestSQLite(t), entered: make(chan struct{}, 1), release: make(chan struct{})}
	w := NewWriter(store, testHasher(t), WriterOptions{QueueSize: 2, BatchSize: 1})
	w.Record(scanEvent(time.Now(), "a.example", "192.0.2.1", "", "A", "pass"))
	<-store.entered
	assert.True(t, w.Healthy())
	w.Record(scanEvent(time.Now(), "b.example", "192.0.2.1", "", "A", "pass"))
	w.Record(scanEvent(time.Now(), "c.example", "192.0.2.1", "", "A", "pass"))
	assert.Equal(t, 2, w.QueueLen())
	assert.False(t, w.Healthy(), "the queue is full")
	go func() {
		for {
			select {
			case store.release <- struct{}{}:
			case <-store.entered:
			case <-time.After(5 * time.Second):
				return
			}
		}
	}()
	require.NoError(t, w.Close(t.Context()))
}

// startKeeper starts a keeper of setting with a log.
func startKeeper(t *testing.T, setting string, o KeeperOptions) (*Keeper, *syncbuf.Buffer, error) {
	t.Helper()
	log := &syncbuf.Buffer{}
	o.Logger = slog.New(slog.NewJSONHandler(log, nil))
	if o.RetryInterval == 0 {
		o.RetryInterval = 20 * time.Millisecond
	}
	k, err := StartKeeper(t.Context(), setting, o)
	t.Cleanup(func() { _ = k.Close(context.Background()) })
	return k, log, err
}

// TestKeeperFaultsAtStart: a SQLite path that is a directory, a FIFO or a
// read-only file does not fail the start: the keeper is unavailable
// (rows dropped and counted, Ping fails at once), logs the fault once
// while it keeps retrying, and opens the store once the fault is gone.
func TestKeeperFaultsAtStart(t *testing.T) {
	t.Parallel()
	for name, fault := range map[string]func(t *testing.T, path string) (fix func()){
		"directory": func(t *testing.T, path string) func() {
			require.NoError(t, os.Mkdir(path, 0o700))
			return func() { require.NoError(t, os.Remove(path)) }
		},
		"fifo": func(t *testing.T, path string) func() {
			require.NoError(t, syscall.Mkfifo(path, 0o600))
			return func() { require.NoError(t, os.Remove(path)) }
		},
		"read-only": func(t *testing.T, path string) func() { return readOnly(t, path) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "a.db")
			fix := fault(t, path)
			k, log, err := startKeeper(t, "sqlite:"+path, KeeperOptions{Secret: []byte("0123456789abcdef0123")})
			require.Error(t, err)
			assert.False(t, k.Ready())
			assert.ErrorIs(t, k.Ping(t.Context()), ErrStoreUnavailable)
			k.Record(scanEvent(time.Now(), "a.example", "192.0.2.1", "", "A", "pass"))
			assert.Equal(t, int64(1), k.Dropped())
			time.Sleep(100 * time.Millisecond) // several retries
			assert.Equal(t, 1, strings.Count(log.String(), "analytics store unavailable"), "logged once")
			fix()
			// Ready is set a moment before the line that says so is logged.
			require.Eventually(t, func() bool { return k.Ready() && strings.Contains(log.String(), "analytics store open") },
				30*time.Second, 10*time.Millisecond, "ready and logged as open")
			k.Record(scanEvent(time.Now(), "b.example", "192.0.2.1", "", "A", "pass"))
			require.NoError(t, k.Writer().Flush(t.Context()))
			assert.Equal(t, int64(1), k.Writer().Committed())
		})
	}
}

// readOnly makes path a read-only database file (immutable as well when
// running as root, who can write any mode) and returns the fix.
func readOnly(t *testing.T, path string) func() {
	s, err := OpenSQLite(t.Context(), path)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.NoError(t, os.Chmod(path, 0o400))
	if os.Geteuid() == 0 {
		out, err := exec.Command("chattr", "+i", path).CombinedOutput()
		require.NoError(t, err, "chattr +i (root ignores file modes): %s", out)
	}
	unlock := func() {
		if os.Geteuid() == 0 {
			_ = exec.Command("chattr", "-i", path).Run()
		}
		_ = os.Chmod(path, 0o600)
	}
	t.Cleanup(unlock)
	return unlock
}

// TestKeeperMovesMalformedAside: a file that is not a database is moved
// aside (logged with its new name) and a new database is started.
func TestKeeperMovesMalformedAside(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a.db")
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("not a database ", 1000)), 0o600))
	k, log, err := startKeeper(t, "sqlite:"+path, KeeperOptions{})
	require.NoError(t, err, log.String())
	assert.True(t, k.Ready())
	assert.Len(t, k.Secret(), generatedSecretBytes, "a new secret in the new file")
	assert.Contains(t, log.String(), "moved aside")
	aside, _ := filepath.Glob(path + ".corrupt-*")
	require.Len(t, aside, 1)
	b, err := os.ReadFile(aside[0])
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), "not a database"), "the old bytes are kept")
}

// TestKeeperPostgresDownAtStart: a PostgreSQL server that is down at
// start is connected to in the background once it is up.
func TestKeeperPostgresDownAtStart(t *testing.T) {
	t.Parallel()
	port := pgtest.FreePort(t)
	k, log, err := startKeeper(t, pgtest.URLAt(port), KeeperOptions{RetryInterval: 200 * time.Millisecond})
	require.Error(t, err)
	assert.False(t, k.Ready())
	assert.Nil(t, k.Secret(), "no secret before the store opens")
	pgtest.StartAt(t, port)
	require.Eventually(t, k.Ready, 60*time.Second, 50*time.Millisecond, log.String())
	assert.NotEmpty(t, k.Secret(), "the store's secret once open")
}
