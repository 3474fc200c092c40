package analytics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mailauth/mailauth/httpapi"
)

// Keeper defaults.
const (
	// DefaultOpenTimeout bounds one attempt to open the store and apply
	// its migrations.
	DefaultOpenTimeout = 30 * time.Second
	// DefaultRetryInterval is the pause between attempts to open a store
	// that could not be opened.
	DefaultRetryInterval = 5 * time.Second
	// DefaultPingInterval is how often a Keeper pings its open store to
	// refresh the state that health reports.
	DefaultPingInterval = 5 * time.Second
	// pingTimeout bounds one background ping.
	pingTimeout = 2 * time.Second
)

// KeeperOptions configures a Keeper; zero durations take the defaults.
type KeeperOptions struct {
	// Secret keys the hashes; empty means the store's own (read once the
	// store is open).
	Secret []byte
	// Labels are the kept utm_source labels (NewHasher).
	Labels []string
	// Writer configures the writer started once the store is open; its
	// Logger defaults to Logger.
	Writer WriterOptions
	// Logger receives the open failures (once until the store opens) and
	// the recovery; nil means none.
	Logger *slog.Logger
	// OpenTimeout bounds each attempt to open the store.
	OpenTimeout time.Duration
	// RetryInterval is the pause between attempts.
	RetryInterval time.Duration
	// PingInterval is how often the open store is pinged.
	PingInterval time.Duration
	// OnOpen, when set, is called once with the writer when the store is
	// open (tests; metrics).
	OnOpen func(*Writer)
}

// Keeper opens a store and keeps it: a store that cannot be opened (a
// PostgreSQL server down, a SQLite file that is corrupt, read-only, a
// directory or a FIFO) never stops the service. The Keeper tries again in
// the background (a malformed SQLite file is first moved aside); until it
// succeeds, rows are dropped and counted and the storage state is
// unavailable. Once open, the state follows the writer (the last batch
// failed and its rows wait for a retry, or the queue is full) and a
// background ping; Ping answers from that cached state at once. It
// implements httpapi.Recorder and httpapi.Storage.
type Keeper struct {
	setting string
	o       KeeperOptions
	logger  *slog.Logger

	writer  atomic.Pointer[Writer]
	store   Store
	pingOK  atomic.Bool
	dropped atomic.Int64 // rows recorded before the writer existed
	secret  []byte

	mu      sync.Mutex // guards store and secret during open and Close
	ctx     context.Context
	stop    context.CancelFunc
	stopped chan struct{}
}

var (
	_ httpapi.Recorder = (*Keeper)(nil)
	_ httpapi.Storage  = (*Keeper)(nil)
)

// ErrStoreUnavailable is the Keeper's Ping error while the store is not
// open or not keeping up.
var ErrStoreUnavailable = errors.New("analytics: store unavailable")

// StartKeeper makes one attempt to open the store of setting (a valid
// setting other than "none", see CheckSetting) within ctx and
// OpenTimeout, and keeps trying in the background when it fails. The
// returned error is that first attempt's (already logged); the Keeper is
// usable either way.
func StartKeeper(ctx context.Context, setting string, o KeeperOptions) (*Keeper, error) {
	if o.OpenTimeout <= 0 {
		o.OpenTimeout = DefaultOpenTimeout
	}
	if o.RetryInterval <= 0 {
		o.RetryInterval = DefaultRetryInterval
	}
	if o.PingInterval <= 0 {
		o.PingInterval = DefaultPingInterval
	}
	k := &Keeper{setting: setting, o: o, logger: o.Logger, stopped: make(chan struct{})}
	// The background work outlives ctx's deadline; Close ends it.
	k.ctx, k.stop = context.WithCancel(context.WithoutCancel(ctx))
	if k.logger == nil {
		k.logger = slog.New(slog.DiscardHandler)
	}
	if k.o.Writer.Logger == nil {
		k.o.Writer.Logger = k.logger
	}
	err := k.tryOpen(ctx)
	if err != nil {
		k.logger.Error("analytics store unavailable; serving without analytics and retrying in the background",
			slog.String("storage", Describe(setting)), slog.String("error", err.Error()))
	}
	go k.run(err == nil)
	return k, err
}

// Secret is the hash secret in use: KeeperOptions.Secret, else the
// store's, or nil while the store has not been opened.
func (k *Keeper) Secret() []byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.secret
}

// Writer is the writer, or nil while the store is not open.
func (k *Keeper) Writer() *Writer { return k.writer.Load() }

// Record implements httpapi.Recorder: through the writer, or dropped and
// counted while the store is not open.
func (k *Keeper) Record(e httpapi.Event) {
	if w := k.writer.Load(); w != nil {
		w.Record(e)
		return
	}
	k.dropped.Add(1)
}

// Dropped is the rows dropped so far: before the store opened, and by
// the writer (queue full or closed).
func (k *Keeper) Dropped() int64 {
	n := k.dropped.Load()
	if w := k.writer.Load(); w != nil {
		n += w.Dropped()
	}
	return n
}

// Ready reports the cached state: the store is open, its last ping
// answered and the writer keeps up. It never waits.
func (k *Keeper) Ready() bool {
	w := k.writer.Load()
	return w != nil && k.pingOK.Load() && w.Healthy()
}

// Ping implements httpapi.Storage from the cached state (Ready); it
// never waits.
func (k *Keeper) Ping(context.Context) error {
	if !k.Ready() {
		return ErrStoreUnavailable
	}
	return nil
}

// Close stops the retries and pings, flushes the writer (within ctx) and
// closes the store.
func (k *Keeper) Close(ctx context.Context) error {
	k.stop()
	<-k.stopped
	var err error
	if w := k.writer.Load(); w != nil {
		err = w.Close(ctx)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.store != nil {
		err = errors.Join(err, k.store.Close())
		k.store = nil
	}
	return err
}

// run retries the open until it succeeds, then pings the store.
func (k *Keeper) run(open bool) {
	defer close(k.stopped)
	for !open {
		if !k.sleep(k.o.RetryInterval) {
			return
		}
		open = k.tryOpen(k.ctx) == nil
		if open {
			k.logger.Info("analytics store open", slog.String("storage", Describe(k.setting)))
		}
	}
	for k.sleep(k.o.PingInterval) {
		k.ping()
	}
}

// sleep waits d; false when the Keeper is closing.
func (k *Keeper) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-k.ctx.Done():
		return false
	}
}

// ping refreshes the cached ping state.
func (k *Keeper) ping() {
	ctx, cancel := context.WithTimeout(k.ctx, pingTimeout)
	defer cancel()
	k.mu.Lock()
	s := k.store
	k.mu.Unlock()
	if s != nil {
		k.pingOK.Store(s.Ping(ctx) == nil)
	}
}

// tryOpen opens the store, settles the secret and starts the writer. A
// SQLite file that is not a database, or is malformed, is moved aside
// (logged) and the open tried once more at once.
func (k *Keeper) tryOpen(ctx context.Context) error {
	s, err := k.open(ctx)
	if err != nil && kind(k.setting) == "sqlite" && isMalformed(err) {
		path := strings.TrimPrefix(k.setting, sqlitePrefix)
		aside, merr := moveAside(path)
		if merr != nil {
			return errors.Join(err, merr)
		}
		k.logger.Warn("analytics: the SQLite file was not a usable database; moved aside, starting a new one",
			slog.String("path", path), slog.String("movedTo", aside))
		s, err = k.open(ctx)
	}
	if err != nil {
		return err
	}
	return k.adopt(ctx, s)
}

// open makes one bounded attempt.
func (k *Keeper) open(ctx context.Context) (Store, error) {
	ctx, cancel := context.WithTimeout(ctx, k.o.OpenTimeout)
	defer cancel()
	s, err := Open(ctx, k.setting)
	if err == nil && s == nil {
		return nil, errors.New("analytics: storage none has nothing to keep")
	}
	return s, err
}

// adopt settles the secret of the open store s and starts its writer.
func (k *Keeper) adopt(ctx context.Context, s Store) error {
	secret := k.o.Secret
	if len(secret) == 0 {
		var err error
		if secret, err = s.Secret(ctx); err != nil {
			_ = s.Close()
			return err
		}
	}
	h, err := NewHasher(secret, k.o.Labels)
	if err != nil {
		_ = s.Close()
		return err
	}
	k.mu.Lock()
	k.store, k.secret = s, secret
	k.mu.Unlock()
	k.pingOK.Store(true)
	w := NewWriter(s, h, k.o.Writer)
	k.writer.Store(w)
	if k.o.OnOpen != nil {
		k.o.OnOpen(w)
	}
	return nil
}

// SQLite result codes of a file that is not a usable database.
const (
	sqliteCorrupt  = 11 // SQLITE_CORRUPT
	sqliteNotADB   = 26 // SQLITE_NOTADB
	sqliteCodeMask = 0xff
)

// isMalformed reports whether err is SQLite's "not a database" or
// "malformed" error.
func isMalformed(err error) bool {
	var ce interface{ Code() int }
	if errors.As(err, &ce) {
		c := ce.Code() & sqliteCodeMask
		return c == sqliteCorrupt || c == sqliteNotADB
	}
	return false
}

// moveAside renames the regular file path to path.corrupt-TIMESTAMP, with
// its WAL and shared-memory files, and returns the new name.
func moveAside(path string) (string, error) {
	aside := path + ".corrupt-" + time.Now().UTC().Format("20060102T150405Z")
	if err := os.Rename(path, aside); err != nil {
		return "", fmt.Errorf("analytics: sqlite: moving the malformed file aside: %w", err)
	}
	for _, ext := range []string{"-wal", "-shm"} {
		if err := os.Rename(path+ext, aside+ext); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("analytics: sqlite: moving the malformed file aside: %w", err)
		}
	}
	return aside, nil
}
