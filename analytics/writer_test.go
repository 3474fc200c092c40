package analytics

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/httpapi"
)

// blockingStore is a real store whose Insert waits for release after
// saying it entered: a store that hangs.
type blockingStore struct {
	Store
	entered chan struct{}
	release chan struct{}
}

func (b *blockingStore) Insert(ctx context.Context, rows []Row) error {
	b.entered <- struct{}{}
	<-b.release
	return b.Store.Insert(ctx, rows)
}

func openTestSQLite(t *testing.T) *SQLite {
	t.Helper()
	s, err := OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "a.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestWriterNeverBlocks: while the store hangs, Record returns at once;
// the queue holds QueueSize rows and drops and counts the rest; Close
// writes what was queued.
func TestWriterNeverBlocks(t *testing.T) {
	t.Parallel()
	store := &blockingStore{Store: openTestSQLite(t), entered: make(chan struct{}, 1), release: make(chan struct{})}
	w := NewWriter(store, testHasher(t), WriterOptions{QueueSize: 4, BatchSize: 1})
	day := time.Now()
	w.Record(scanEvent(day, "a.example", "192.0.2.1", "", "A", "pass"))
	<-store.entered // the writer holds row 1 and waits for the store
	for i := range 10 {
		w.Record(scanEvent(day, fmt.Sprintf("d%d.example", i), "192.0.2.1", "", "A", "pass"))
	}
	require.Equal(t, int64(6), w.Dropped(), "dropped")
	require.Equal(t, int64(0), w.Committed(), "committed")
	go func() {
		for range 5 {
			store.release <- struct{}{}
			<-store.entered
		}
		store.release <- struct{}{}
	}()
	require.NoError(t, w.Close(context.Background()))
	assert.Equal(t, int64(5), w.Committed(), "committed, want the 5 rows held")
	w.Record(scanEvent(day, "late.example", "192.0.2.1", "", "A", "pass"))
	assert.Equal(t, int64(7), w.Dropped(), "a row after Close is not counted as dropped")
	assert.Equal(t, 1, countRows(t, store.Store, "daily_totals"), "Close did not roll up: daily rows")
}

// TestWriterStoreDown: a store that fails holds its rows for a retry,
// never the caller's time; Flush still returns; rows still held at Close
// are lost (counted).
func TestWriterStoreDown(t *testing.T) {
	t.Parallel()
	s := openTestSQLite(t)
	w := NewWriter(s, testHasher(t), WriterOptions{})
	_ = s.Close() // every later statement fails
	for i := range 3 {
		w.Record(ptrEvent(time.Now(), fmt.Sprintf("192.0.2.%d", i), "pass"))
	}
	require.NoError(t, w.Flush(context.Background()))
	assert.Equal(t, int64(3), w.Held(), "held")
	assert.Equal(t, int64(0), w.Committed(), "committed")
	require.NoError(t, w.Close(context.Background()))
	assert.Equal(t, int64(3), w.Failed(), "failed at Close")
	assert.Equal(t, errClosed, w.Flush(context.Background()), "Flush after Close")
}

// TestHasherRow: the row holds hashes and labels only; the visitor hash
// changes with the day, the domain hash does not; unknown utm_source
// values become "other".
func TestHasherRow(t *testing.T) {
	t.Parallel()
	h := testHasher(t)
	d1 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	a := h.Row(scanEvent(d1, "Example.COM", "192.0.2.1", "newsletter", "B", "warn"))
	b := h.Row(scanEvent(d1.Add(24*time.Hour), "example.com", "192.0.2.1", "x-campaign", "B", "warn"))
	assert.Equal(t, a.DomainHash, b.DomainHash, "rows %+v %+v", a, b)
	assert.NotEqual(t, a.Visitor, b.Visitor, "rows %+v %+v", a, b)
	assert.Equal(t, "newsletter", a.Source, "rows %+v %+v", a, b)
	assert.Equal(t, SourceOther, b.Source, "rows %+v %+v", a, b)
	assert.Equal(t, "2026-11-20", a.Day, "rows %+v %+v", a, b)
	_, err := NewHasher([]byte("short"), nil)
	assert.Equal(t, ErrShortSecret, err, "short secret")
	_, err = NewHasher(testSecret, []string{"Web"})
	assert.Error(t, err, "invalid label accepted")
	r := h.Row(httpapi.Event{Time: d1, Endpoint: httpapi.EndpointPtrCheck, Client: "::1/64"})
	assert.Empty(t, r.DomainHash, "ptr row %+v", r)
	assert.Equal(t, SourceDirect, r.Source, "ptr row %+v", r)
}

// TestWriterRetention: the writer's roll-up keeps the aggregates of every
// day and deletes the raw rows older than the retention.
func TestWriterRetention(t *testing.T) {
	t.Parallel()
	s := openTestSQLite(t)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	w := NewWriter(s, testHasher(t), WriterOptions{Retention: 2 * 24 * time.Hour, Now: func() time.Time { return now }})
	for _, age := range []int{5, 3, 1, 0} {
		w.Record(scanEvent(now.AddDate(0, 0, -age), "example.com", "192.0.2.1", "", "A", "pass"))
	}
	require.NoError(t, w.Close(context.Background()))
	assert.Equal(t, 2, countRows(t, s, "events"), "raw rows, want the 2 of the last 2 days")
	rep, err := s.Report(context.Background(), Day(now.AddDate(0, 0, -5)), Day(now))
	assert.NoError(t, err, "aggregates")
	assert.Len(t, rep.Days, 4, "aggregates, want 4 days")
}

// countingStore is a real store that records the size of each insert.
type countingStore struct {
	Store
	mu      sync.Mutex
	batches []int
}

func (c *countingStore) Insert(ctx context.Context, rows []Row) error {
	c.mu.Lock()
	c.batches = append(c.batches, len(rows))
	c.mu.Unlock()
	return c.Store.Insert(ctx, rows)
}

func (c *countingStore) sizes() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.batches)
}

// TestWriterBatchWait: rows queued while a batch waits join it, so that
// they are written in one insert; a Flush or a Close ends the wait (the
// wait here never ends by itself).
func TestWriterBatchWait(t *testing.T) {
	t.Parallel()
	t.Run("flush", func(t *testing.T) {
		t.Parallel()
		store := &countingStore{Store: openTestSQLite(t)}
		w := NewWriter(store, testHasher(t), WriterOptions{BatchWait: time.Hour})
		for i := range 50 {
			w.Record(scanEvent(time.Now(), fmt.Sprintf("d%d.example", i), "192.0.2.1", "", "A", "pass"))
			// The writer takes each row before the next comes: a writer
			// that did not wait would write them one by one.
			require.Eventually(t, func() bool { return w.QueueLen() == 0 }, time.Minute, time.Millisecond)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		require.NoError(t, w.Flush(ctx)) // a lost flush fails here, not by hanging
		assert.Equal(t, []int{50}, store.sizes(), "inserts")
		assert.Equal(t, int64(50), w.Committed(), "committed")
		assert.Equal(t, 50, countRows(t, store.Store, "events"), "rows")
		require.NoError(t, w.Close(context.Background()))
	})
	t.Run("close", func(t *testing.T) {
		t.Parallel()
		store := &countingStore{Store: openTestSQLite(t)}
		w := NewWriter(store, testHasher(t), WriterOptions{BatchWait: time.Hour})
		w.Record(ptrEvent(time.Now(), "192.0.2.1", "pass"))
		// The writer has taken the row and waits for more: Close must
		// end that wait (a lost stop fails here, not by hanging).
		require.Eventually(t, func() bool { return w.QueueLen() == 0 }, time.Minute, time.Millisecond)
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		require.NoError(t, w.Close(ctx))
		assert.Equal(t, []int{1}, store.sizes(), "inserts")
		assert.Equal(t, int64(1), w.Committed(), "committed")
	})
	t.Run("full", func(t *testing.T) {
		t.Parallel()
		store := &countingStore{Store: openTestSQLite(t)}
		w := NewWriter(store, testHasher(t), WriterOptions{BatchSize: 4, BatchWait: time.Hour})
		for i := range 8 {
			w.Record(scanEvent(time.Now(), fmt.Sprintf("d%d.example", i), "192.0.2.1", "", "A", "pass"))
		}
		require.Eventually(t, func() bool { return w.Committed() == 8 }, time.Minute, time.Millisecond,
			"two full batches are written without waiting")
		assert.Equal(t, []int{4, 4}, store.sizes(), "inserts")
		require.NoError(t, w.Close(context.Background()))
	})
}
