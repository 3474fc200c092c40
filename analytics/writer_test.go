package analytics

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

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
	if err != nil {
		t.Fatal(err)
	}
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
	if w.Dropped() != 6 || w.Committed() != 0 {
		t.Fatalf("dropped %d committed %d, want 6 and 0", w.Dropped(), w.Committed())
	}
	go func() {
		for range 5 {
			store.release <- struct{}{}
			<-store.entered
		}
		store.release <- struct{}{}
	}()
	if err := w.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if w.Committed() != 5 {
		t.Errorf("committed %d, want the 5 rows held", w.Committed())
	}
	w.Record(scanEvent(day, "late.example", "192.0.2.1", "", "A", "pass"))
	if w.Dropped() != 7 {
		t.Errorf("a row after Close is not counted as dropped: %d", w.Dropped())
	}
	if n := countRows(t, store.Store, "daily_totals"); n != 1 {
		t.Errorf("Close did not roll up: %d daily rows", n)
	}
}

// TestWriterStoreDown: a store that fails loses its batches (counted),
// never the caller's time; Flush still returns.
func TestWriterStoreDown(t *testing.T) {
	t.Parallel()
	s := openTestSQLite(t)
	w := NewWriter(s, testHasher(t), WriterOptions{})
	_ = s.Close() // every later statement fails
	for i := range 3 {
		w.Record(ptrEvent(time.Now(), fmt.Sprintf("192.0.2.%d", i), "pass"))
	}
	if err := w.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if w.Failed() != 3 || w.Committed() != 0 {
		t.Errorf("failed %d committed %d", w.Failed(), w.Committed())
	}
	if err := w.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(context.Background()); err != errClosed {
		t.Errorf("Flush after Close: %v", err)
	}
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
	if a.DomainHash != b.DomainHash || a.Visitor == b.Visitor || a.Source != "newsletter" || b.Source != SourceOther || a.Day != "2026-11-20" {
		t.Errorf("rows %+v %+v", a, b)
	}
	if _, err := NewHasher([]byte("short"), nil); err != ErrShortSecret {
		t.Errorf("short secret: %v", err)
	}
	if _, err := NewHasher(testSecret, []string{"Web"}); err == nil {
		t.Error("invalid label accepted")
	}
	if r := h.Row(httpapi.Event{Time: d1, Endpoint: httpapi.EndpointPtrCheck, Client: "::1/64"}); r.DomainHash != "" || r.Source != SourceDirect {
		t.Errorf("ptr row %+v", r)
	}
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
	if err := w.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, s, "events"); n != 2 {
		t.Errorf("%d raw rows, want the 2 of the last 2 days", n)
	}
	rep, err := s.Report(context.Background(), Day(now.AddDate(0, 0, -5)), Day(now))
	if err != nil || len(rep.Days) != 4 {
		t.Errorf("aggregates %+v %v, want 4 days", rep.Days, err)
	}
}
