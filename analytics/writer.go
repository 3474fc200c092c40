package analytics

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/mailauth/mailauth/httpapi"
)

// Writer defaults.
const (
	// DefaultQueueSize bounds the rows waiting for the writer: at the
	// service's default concurrency a few seconds of full load.
	DefaultQueueSize = 4096
	// DefaultBatchSize bounds the rows of one INSERT (14 parameters a row,
	// far below SQLite's and PostgreSQL's parameter limits).
	DefaultBatchSize = 256
	// DefaultBatchWait is how long a batch that is not full waits for
	// more rows after its first: one transaction (and, in SQLite, one
	// fsync) for the rows of that time rather than one per row, which
	// is what a writer that keeps up gets under load (at 700 scans/s
	// nearly every batch was one row, 3 % of the service's CPU).
	DefaultBatchWait = 100 * time.Millisecond
	// DefaultRollupInterval is how often aggregates are recomputed and
	// old raw rows deleted.
	DefaultRollupInterval = 5 * time.Minute
	// DefaultRetention is how long raw rows are kept (aggregates stay).
	DefaultRetention = 30 * 24 * time.Hour
	// writeTimeout bounds one batch, roll-up or prune.
	writeTimeout = 30 * time.Second
	// dropLogInterval spaces the log records about dropped rows and
	// about failed batches.
	dropLogInterval = 10 * time.Second
	// DefaultRetryPause is the pause before the first retry of a failed
	// batch; each retry that fails doubles it, up to
	// DefaultMaxRetryPause.
	DefaultRetryPause = time.Second
	// DefaultMaxRetryPause bounds the pause between retries: once the
	// store answers again, the held rows are written within this time.
	DefaultMaxRetryPause = 10 * time.Second
)

// WriterOptions configures a Writer; zero fields take the defaults.
type WriterOptions struct {
	// QueueSize bounds the rows waiting for the writer; 0 or less means
	// DefaultQueueSize.
	QueueSize int
	// BatchSize bounds the rows of one INSERT; 0 or less means
	// DefaultBatchSize.
	BatchSize int
	// BatchWait is how long a batch waits for more rows after its
	// first, unless it fills first or a Flush or Close comes; 0 means
	// DefaultBatchWait, a negative value no wait.
	BatchWait time.Duration
	// RollupInterval is how often aggregates are recomputed and old raw
	// rows deleted; 0 or less means DefaultRollupInterval.
	RollupInterval time.Duration
	// Retention is how long raw rows are kept; 0 or less means
	// DefaultRetention.
	Retention time.Duration
	// Logger receives failures and drop counts (never a row); nil means
	// none.
	Logger *slog.Logger
	// OnCommit, when set, is called by the writer goroutine after each
	// committed batch with the number of rows committed so far.
	OnCommit func(total int64)
	// Now is the clock of roll-ups and pruning; nil means time.Now.
	Now func() time.Time
	// RetryPause is the pause before the first retry of a failed batch;
	// 0 means DefaultRetryPause. Each failed retry doubles it up to
	// MaxRetryPause (0 means DefaultMaxRetryPause, never less than
	// RetryPause).
	RetryPause    time.Duration
	MaxRetryPause time.Duration
	// OnBatch, when set, is called by the writer goroutine after each
	// insert attempt with the rows, the time it took and its error (the
	// metrics' batch latency).
	OnBatch func(rows int, took time.Duration, err error)
}

// Writer records events into a Store without ever blocking the caller:
// rows wait in a bounded queue that one goroutine writes in batches.
//
// A batch the store refuses is held, with the rows that arrive after it,
// in a retry buffer of QueueSize rows, and retried oldest first with a
// pause that doubles from RetryPause to MaxRetryPause: an outage loses no
// row while the buffer has room. When it is full the oldest rows are
// dropped and counted as failed, and so are the rows still held when the
// writer closes with the store down.
type Writer struct {
	store     Store
	hasher    *Hasher
	o         WriterOptions
	queue     chan Row
	flush     chan chan struct{}
	stop      chan struct{}
	stopped   chan struct{}
	closed    atomic.Bool
	dropped   atomic.Int64
	committed atomic.Int64
	failed    atomic.Int64
	// lastFailed is set while the last insert attempt failed.
	lastFailed atomic.Bool
	lastDrops  int64
	lastLog    time.Time
	fails      failureLog

	// The retry buffer, used by the writer goroutine only: the rows of
	// failed batches and those queued after them, oldest first, at most
	// QueueSize; held mirrors its length for Held.
	pending []Row
	held    atomic.Int64
	backoff time.Duration // the pause before the next retry
	retry   *time.Timer   // fires when the held rows are due; stopped while none are
}

// failureLog rate-limits the log records of failed inserts like the drop
// count: the first failure at once, then one record per dropLogInterval
// with the rows held and lost, and one when every held row is stored
// again. Only the writer goroutine uses it.
type failureLog struct {
	rows    int64 // rows lost since the last record
	lastErr string
	last    time.Time
	failing bool
}

var _ httpapi.Recorder = (*Writer)(nil)

// NewWriter starts a Writer of store that hashes with h.
func NewWriter(store Store, h *Hasher, o WriterOptions) *Writer {
	if o.QueueSize <= 0 {
		o.QueueSize = DefaultQueueSize
	}
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.BatchWait == 0 {
		o.BatchWait = DefaultBatchWait
	}
	if o.RollupInterval <= 0 {
		o.RollupInterval = DefaultRollupInterval
	}
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.RetryPause <= 0 {
		o.RetryPause = DefaultRetryPause
	}
	if o.MaxRetryPause <= 0 {
		o.MaxRetryPause = DefaultMaxRetryPause
	}
	o.MaxRetryPause = max(o.MaxRetryPause, o.RetryPause)
	w := &Writer{store: store, hasher: h, o: o, queue: make(chan Row, o.QueueSize),
		flush: make(chan chan struct{}), stop: make(chan struct{}), stopped: make(chan struct{}),
		backoff: o.RetryPause, retry: time.NewTimer(time.Hour)}
	w.retry.Stop()
	go w.run()
	return w
}

// Record implements httpapi.Recorder: it hashes e and queues the row, or
// drops and counts it when the queue is full or the writer closed.
func (w *Writer) Record(e httpapi.Event) {
	if w.closed.Load() {
		w.dropped.Add(1)
		return
	}
	select {
	case w.queue <- w.hasher.Row(e):
	default:
		w.dropped.Add(1)
	}
}

// Dropped is the number of rows dropped so far (queue full or closed).
func (w *Writer) Dropped() int64 { return w.dropped.Load() }

// Committed is the number of rows committed so far.
func (w *Writer) Committed() int64 { return w.committed.Load() }

// Failed is the number of rows lost to failed inserts so far: dropped
// from a full retry buffer, or still held when the writer closed.
func (w *Writer) Failed() int64 { return w.failed.Load() }

// Held is the number of rows of failed inserts waiting for a retry.
func (w *Writer) Held() int64 { return w.held.Load() }

// QueueLen is the number of rows waiting for the writer.
func (w *Writer) QueueLen() int { return len(w.queue) }

// QueueCap is the queue's capacity (WriterOptions.QueueSize).
func (w *Writer) QueueCap() int { return cap(w.queue) }

// Healthy reports whether the writer keeps up: the last insert attempt
// succeeded and the queue is not full. It never waits (GET /api/health's storage
// state).
func (w *Writer) Healthy() bool {
	return !w.lastFailed.Load() && len(w.queue) < cap(w.queue)
}

// Flush returns once every row queued before the call is written, or
// held after a failed insert (the held rows are retried at once, oldest
// first, until one batch fails), or when ctx ends.
func (w *Writer) Flush(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case w.flush <- done:
	case <-w.stopped:
		return errClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops taking rows, writes the queue, rolls up and prunes once
// more, and waits for that (or for ctx). It does not close the store.
// Call it once the HTTP server has shut down: a Record racing with Close
// may queue a row that is never written.
func (w *Writer) Close(ctx context.Context) error {
	if w.closed.Swap(true) {
		return nil
	}
	close(w.stop)
	select {
	case <-w.stopped:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run is the writer goroutine.
func (w *Writer) run() {
	defer close(w.stopped)
	defer w.retry.Stop()
	tick := time.NewTicker(w.o.RollupInterval)
	defer tick.Stop()
	for {
		select {
		case r := <-w.queue:
			batch, done := w.gather(append(make([]Row, 0, w.o.BatchSize), r))
			w.commit(batch)
			if done != nil {
				w.flushed(done)
			}
		case <-w.retry.C:
			w.retryHeld()
		case done := <-w.flush:
			w.flushed(done)
		case <-tick.C:
			w.maintain()
		case <-w.stop:
			w.drain()
			w.retryHeld()
			w.abandonHeld()
			w.maintain()
			w.logDrops(true)
			return
		}
	}
}

// flushed answers a Flush: it writes everything queued and retries the
// held rows, then closes done.
func (w *Writer) flushed(done chan struct{}) {
	w.drain()
	w.retryHeld()
	close(done)
}

// gather adds rows to batch as they are queued, for BatchWait at most,
// until it is full. A Flush that comes meanwhile ends the wait and is
// returned, to be answered once the batch is written; Close ends it
// too (the writer stops after the batch).
func (w *Writer) gather(batch []Row) ([]Row, chan struct{}) {
	if w.o.BatchWait < 0 {
		return batch, nil
	}
	t := time.NewTimer(w.o.BatchWait)
	defer t.Stop()
	for len(batch) < w.o.BatchSize {
		select {
		case r := <-w.queue:
			batch = append(batch, r)
		case done := <-w.flush:
			return batch, done
		case <-w.stop:
			return batch, nil
		case <-t.C:
			return batch, nil
		}
	}
	return batch, nil
}

// drain writes everything queued, batch by batch.
func (w *Writer) drain() {
	for {
		select {
		case r := <-w.queue:
			w.commit(append(make([]Row, 0, w.o.BatchSize), r))
		default:
			return
		}
	}
}

// commit fills batch from the queue up to BatchSize and inserts it. While
// rows are held for a retry, the batch joins them instead, so that rows
// are stored in order and an outage costs one attempt per retry, not one
// per batch.
func (w *Writer) commit(batch []Row) {
fill:
	for len(batch) < w.o.BatchSize {
		select {
		case r := <-w.queue:
			batch = append(batch, r)
		default:
			break fill
		}
	}
	if len(w.pending) > 0 {
		w.hold(batch)
		return
	}
	if err := w.insert(batch); err != nil {
		w.hold(batch)
		w.attemptFailed(err)
		return
	}
	w.stored(len(batch))
}

// retryHeld writes the held rows, oldest first and batch by batch, until
// one batch fails (the next retry is then due after a doubled pause) or
// none is left.
func (w *Writer) retryHeld() {
	for len(w.pending) > 0 {
		n := min(len(w.pending), w.o.BatchSize)
		if err := w.insert(w.pending[:n]); err != nil {
			w.backoff = min(2*w.backoff, w.o.MaxRetryPause)
			w.attemptFailed(err)
			return
		}
		w.pending = w.pending[n:]
		w.held.Store(int64(len(w.pending)))
		w.stored(n)
	}
	w.pending = nil
	w.backoff = w.o.RetryPause
	w.retry.Stop() // Flush may have written them before the retry was due
}

// hold adds rows to the retry buffer, dropping (and counting as failed)
// the oldest beyond QueueSize rows.
func (w *Writer) hold(rows []Row) {
	w.pending = append(w.pending, rows...)
	if over := len(w.pending) - w.o.QueueSize; over > 0 {
		w.failed.Add(int64(over))
		w.fails.rows += int64(over)
		w.pending = append([]Row(nil), w.pending[over:]...)
	}
	w.held.Store(int64(len(w.pending)))
}

// attemptFailed records a failed insert: the writer is unhealthy, the
// failure is logged (rate-limited) and the held rows are due after the
// current pause.
func (w *Writer) attemptFailed(err error) {
	w.lastFailed.Store(true)
	w.logFailure(err)
	w.retry.Reset(w.backoff)
}

// stored records n rows committed.
func (w *Writer) stored(n int) {
	w.lastFailed.Store(false)
	w.logRecovery()
	total := w.committed.Add(int64(n))
	if w.o.OnCommit != nil {
		w.o.OnCommit(total)
	}
	w.logDrops(false)
}

// abandonHeld counts the rows still held at Close (the store is still
// down) as failed, and logs them.
func (w *Writer) abandonHeld() {
	if len(w.pending) == 0 {
		return
	}
	n := int64(len(w.pending))
	w.failed.Add(n)
	w.pending = nil
	w.held.Store(0)
	w.o.Logger.Error("analytics: rows held for a retry lost at shutdown", slog.Int64("rows", n),
		slog.Int64("failedTotal", w.failed.Load()))
}

// insert writes batch once, bounded by writeTimeout, and reports it to
// OnBatch.
func (w *Writer) insert(batch []Row) error {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	start := time.Now()
	err := w.store.Insert(ctx, batch)
	if w.o.OnBatch != nil {
		w.o.OnBatch(len(batch), time.Since(start), err)
	}
	return err
}

// logFailure records a failed insert: logged at once after a success,
// else at most once per dropLogInterval, with the rows held for a retry
// and those lost (retry buffer full) since the last record.
func (w *Writer) logFailure(err error) {
	f := &w.fails
	f.lastErr = err.Error()
	if f.failing && time.Since(f.last) < dropLogInterval {
		return
	}
	w.o.Logger.Error("analytics: batch not stored; rows held for a retry", slog.Int64("held", w.held.Load()),
		slog.Int64("lost", f.rows), slog.Int64("failedTotal", w.failed.Load()), slog.String("error", f.lastErr))
	f.rows, f.last, f.failing = 0, time.Now(), true
}

// logRecovery logs, once, that every held row was stored after
// failures, with the rows lost since the last failure record.
func (w *Writer) logRecovery() {
	f := &w.fails
	if !f.failing || len(w.pending) > 0 {
		return
	}
	w.o.Logger.Info("analytics: batches stored again", slog.Int64("rowsLostSinceLastRecord", f.rows),
		slog.Int64("failedTotal", w.failed.Load()))
	*f = failureLog{}
}

// maintain recomputes the aggregates and deletes raw rows past the
// retention.
func (w *Writer) maintain() {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	now := w.o.Now()
	if err := w.store.Rollup(ctx, Day(now)); err != nil {
		w.o.Logger.Error("analytics: roll-up failed", slog.String("error", err.Error()))
		return
	}
	if err := w.store.Prune(ctx, Day(now.Add(-w.o.Retention))); err != nil {
		w.o.Logger.Error("analytics: pruning failed", slog.String("error", err.Error()))
	}
	w.logDrops(false)
}

// logDrops logs the rows dropped since the last record, at most once per
// dropLogInterval unless final.
func (w *Writer) logDrops(final bool) {
	n := w.dropped.Load()
	if n == w.lastDrops || (!final && time.Since(w.lastLog) < dropLogInterval) {
		return
	}
	w.o.Logger.Warn("analytics: queue full, rows dropped", slog.Int64("dropped", n-w.lastDrops), slog.Int64("droppedTotal", n))
	w.lastDrops, w.lastLog = n, time.Now()
}
