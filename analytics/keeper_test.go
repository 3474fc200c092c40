package analytics

import (
	"context"
	"errors"
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

// flakyStore fails its next fail inserts, then works.
type flakyStore struct {
	Store
	fail    atomic.Int64
	inserts atomic.Int64
}

var errFlaky = errors.New("insert failed (test)")

func (f *flakyStore) Insert(ctx context.Context, rows []Row) error {
	f.inserts.Add(1)
	if f.fail.Add(-1) >= 0 {
		return errFlaky
	}
	return f.Store.Insert(ctx, rows)
}

// TestWriterRetriesOnce: a batch that fails once is stored by the retry
// (nothing lost, health stays ready); one that fails twice is counted as
// failed and makes the writer unhealthy until a batch is stored again.
func TestWriterRetriesOnce(t *testing.T) {
	t.Parallel()
	store := &flakyStore{Store: openTestSQLite(t)}
	var log syncbuf.Buffer
	w := NewWriter(store, testHasher(t), WriterOptions{RetryPause: time.Millisecond, Logger: slog.New(slog.NewJSONHandler(&log, nil))})
	defer w.Close(t.Context())
	day := time.Now()

	store.fail.Store(1)
	w.Record(scanEvent(day, "a.example", "192.0.2.1", "", "A", "pass"))
	require.NoError(t, w.Flush(t.Context()))
	assert.Equal(t, int64(1), w.Committed(), "the retry stored the batch")
	assert.Equal(t, int64(0), w.Failed())
	assert.Equal(t, int64(2), store.inserts.Load())
	assert.True(t, w.Healthy())

	store.fail.Store(2)
	w.Record(scanEvent(day, "b.example", "192.0.2.1", "", "A", "pass"))
	require.NoError(t, w.Flush(t.Context()))
	assert.Equal(t, int64(1), w.Failed(), "two failures drop the batch")
	assert.False(t, w.Healthy(), "the last batch failed")
	assert.Contains(t, log.String(), "batch not stored")

	w.Record(scanEvent(day, "c.example", "192.0.2.1", "", "A", "pass"))
	require.NoError(t, w.Flush(t.Context()))
	assert.Equal(t, int64(2), w.Committed())
	assert.True(t, w.Healthy(), "a stored batch makes the writer healthy again")
	assert.Contains(t, log.String(), "batches stored again")
}

// TestWriterFailureLogRateLimited: many failing batches in a row give one
// ERROR record, not one per batch; the rows are all counted.
func TestWriterFailureLogRateLimited(t *testing.T) {
	t.Parallel()
	store := &flakyStore{Store: openTestSQLite(t)}
	store.fail.Store(1 << 40)
	var log syncbuf.Buffer
	w := NewWriter(store, testHasher(t), WriterOptions{BatchSize: 1, RetryPause: time.Microsecond, Logger: slog.New(slog.NewJSONHandler(&log, nil))})
	defer w.Close(t.Context())
	for range 50 {
		w.Record(scanEvent(time.Now(), "a.example", "192.0.2.1", "", "A", "pass"))
		require.NoError(t, w.Flush(t.Context()))
	}
	assert.Equal(t, int64(50), w.Failed())
	assert.Equal(t, 1, strings.Count(log.String(), `"level":"ERROR"`), log.String())
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
				10*time.Second, 10*time.Millisecond, "ready and logged as open")
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
