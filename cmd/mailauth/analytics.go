package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/analytics"
	"github.com/mailauth/mailauth/internal/ops"
)

// Analytics start-up and shutdown bounds.
const (
	// storeOpenTimeout bounds opening the store and its migrations.
	storeOpenTimeout = 30 * time.Second
	// writerCloseTimeout bounds the final flush and roll-up at shutdown.
	writerCloseTimeout = 30 * time.Second
	// processSecretBytes is the size of the random secret of a service
	// without a store or a configured secret (256 bits).
	processSecretBytes = 32
	// maxRetentionDays bounds -retention (a century) so that it converts
	// to a time.Duration without overflow.
	maxRetentionDays = 36500
)

// analyticsFlags are the analytics flags of `mailauth serve`.
type analyticsFlags struct {
	sourceLabels string
	retention    days
	labels       []string
}

// analyticsFlagNames are the flags analyticsFlags.register defines.
var analyticsFlagNames = []string{"source-labels", "retention"}

// register defines the analytics flags beside -storage and
// -analytics-secret (defined in parseServe).
func (a *analyticsFlags) register(fs *flag.FlagSet) {
	a.retention = days(analytics.DefaultRetention / (24 * time.Hour))
	fs.StringVar(&a.sourceLabels, "source-labels", strings.Join(analytics.DefaultSourceLabels, ","),
		"comma-separated utm_source values kept as analytics source labels; any other value is stored as \"other\", none as \"direct\"")
	fs.Var(&a.retention, "retention", "how long per-request analytics rows are kept before only the daily aggregates remain: days (30d) or a Go duration (720h), at least 1d")
}

// check validates the secret and the labels.
func (a *analyticsFlags) check(c *serveConfig) error {
	if err := checkSecret(c); err != nil {
		return err
	}
	a.labels = splitList(a.sourceLabels)
	for _, l := range a.labels {
		if err := mailauth.ValidateUTMSource(l); err != nil {
			return fmt.Errorf("-source-labels: %q is not a valid utm_source value (^[a-z0-9][a-z0-9._-]{0,63}$)", l)
		}
	}
	return nil
}

// days is a whole number of days, given as "30d", "30" or a Go duration.
type days int

func (d *days) String() string { return strconv.Itoa(int(*d)) + "d" }

func (d *days) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSuffix(s, "d"))
	if err != nil {
		dur, derr := time.ParseDuration(s)
		if derr != nil {
			return errors.New("must be a number of days (30d) or a duration (720h)")
		}
		n = int(dur / (24 * time.Hour))
	}
	if n < 1 || n > maxRetentionDays {
		return fmt.Errorf("must be 1d..%dd", maxRetentionDays)
	}
	*d = days(n)
	return nil
}

// defaultStorage is sqlite:PATH in the state directory systemd gives the
// service ($STATE_DIRECTORY, StateDirectory= in the unit), else under the
// user's ($XDG_STATE_HOME, else ~/.local/state), or "sqlite:" (refused by
// check, asking for -storage) when none of these variables is set.
func defaultStorage(getenv env) string {
	if dir, _, _ := strings.Cut(getenv("STATE_DIRECTORY"), ":"); dir != "" {
		return "sqlite:" + filepath.Join(dir, "analytics.db")
	}
	dir := getenv("XDG_STATE_HOME")
	if dir == "" && getenv("HOME") != "" {
		dir = filepath.Join(getenv("HOME"), ".local", "state")
	}
	if dir == "" {
		return "sqlite:"
	}
	return "sqlite:" + filepath.Join(dir, "mailauth", "analytics.db")
}

// checkStorage validates -storage without opening anything.
func checkStorage(s string) error {
	if s == "sqlite:" {
		return errors.New("-storage: no state directory for the default sqlite:PATH (set HOME or XDG_STATE_HOME, or give -storage sqlite:PATH, postgres://… or none)")
	}
	if err := analytics.CheckSetting(s); err != nil {
		return errors.New("-storage: must be none, sqlite:PATH or postgres://URL")
	}
	return nil
}

// checkSecret validates -analytics-secret against the other settings.
func checkSecret(c *serveConfig) error {
	switch {
	case c.analyticsSecret != "" && len(c.analyticsSecret) < analytics.MinSecretBytes:
		return fmt.Errorf("-analytics-secret: must be at least %d bytes", analytics.MinSecretBytes)
	case c.analyticsSecret == "" && c.storage == analytics.StorageNone && c.rateLimit != "memory":
		return errors.New("-ratelimit redis:// with -storage none needs -analytics-secret: every instance must key the rate-limit hashes with the same secret")
	}
	return nil
}

// serveAnalytics is the analytics of a running service: the keeper of
// the store (nil for none) and the secret of every keyed hash.
type serveAnalytics struct {
	keeper *analytics.Keeper
	secret []byte
}

// analyticsHooks are what serve attaches to the writer: the commit
// callback of the tests and the batch observer of the metrics.
type analyticsHooks struct {
	onCommit func(int64)
	onBatch  func(rows int, took time.Duration, err error)
}

// openAnalytics starts the keeper of the configured store (one attempt
// now, then retries in the background: a store that cannot be opened
// never stops the service) and settles the secret: -analytics-secret,
// else the store's, else one random to this process. It logs where the
// analytics go, never a password.
func openAnalytics(ctx context.Context, c serveConfig, logger *slog.Logger, hooks analyticsHooks) *serveAnalytics {
	a := &serveAnalytics{secret: []byte(c.analyticsSecret)}
	logger.Info("analytics storage", slog.String("storage", analytics.Describe(c.storage)))
	if c.storage != analytics.StorageNone {
		a.keeper, _ = analytics.StartKeeper(ctx, c.storage, analytics.KeeperOptions{
			Secret: a.secret, Labels: c.analytics.labels, Logger: logger, OpenTimeout: storeOpenTimeout,
			Writer: analytics.WriterOptions{
				Retention: time.Duration(c.analytics.retention) * 24 * time.Hour,
				OnCommit:  hooks.onCommit, OnBatch: hooks.onBatch,
			},
		})
		if len(a.secret) == 0 {
			a.secret = a.keeper.Secret()
		}
	}
	if len(a.secret) == 0 {
		a.secret = make([]byte, processSecretBytes)
		_, _ = rand.Read(a.secret) // crypto/rand.Read never fails (Go 1.24+)
		if c.rateLimit != "memory" && c.storage != analytics.StorageNone {
			logger.Warn("the analytics store holding the secret is unavailable: the rate-limit keys use a secret of this process, so instances sharing the Redis server count separately until restarted; set -analytics-secret")
		}
	}
	if c.rateLimit != "memory" && c.analyticsSecret == "" && strings.HasPrefix(c.storage, "sqlite:") {
		logger.Warn("the rate-limit keys use this instance's own SQLite secret: instances sharing the Redis server count separately unless they share -analytics-secret or a postgres store")
	}
	return a
}

// state is the analytics component of readiness: ok when the store is
// ready or none is configured, else down when -analytics-required, else
// degraded.
func (a *serveAnalytics) state(required bool) ops.State {
	switch {
	case a.keeper == nil || a.keeper.Ready():
		return ops.StateOK
	case required:
		return ops.StateDown
	}
	return ops.StateDegraded
}

// close flushes the writer (bounded by writerCloseTimeout) and closes the
// store.
func (a *serveAnalytics) close() {
	if a.keeper != nil {
		ctx, cancel := context.WithTimeout(context.Background(), writerCloseTimeout)
		defer cancel()
		_ = a.keeper.Close(ctx)
	}
}
