package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/ops"
	"github.com/mailauth/mailauth/resolver"
)

// Admin listener settings.
const (
	// defaultListen is where serve answers the public when -listen is
	// not given: loopback, so that a first run exposes nothing.
	defaultListen = "127.0.0.1:8080"
	// defaultAdminListen is loopback only: readiness and metrics are for
	// the operator's probes and scrapers, never for the public listener.
	// Its port is the one after the public default (8080), outside the
	// 9090–9999 range where Prometheus (9090) and its exporters listen by
	// default, so that it does not collide with the scraper on the same
	// host.
	defaultAdminListen = "127.0.0.1:8081"
	// adminOff disables the admin listener.
	adminOff = "none"
	// adminTimeout bounds every admin request and answer.
	adminTimeout = 10 * time.Second
)

// startAdmin serves h on addr (unless adminOff) until ctx ends. An
// address that cannot be bound is an error: serve then refuses to start,
// rather than run without readiness and metrics while the probes ask
// whatever else holds the port.
func startAdmin(ctx context.Context, addr string, h http.Handler, logger *slog.Logger, ready func(string)) error {
	if addr == adminOff {
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("-admin-listen: cannot listen (another program holds the port? give another address, or none): %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: adminTimeout, ReadTimeout: adminTimeout,
		WriteTimeout: adminTimeout, IdleTimeout: 2 * adminTimeout, ErrorLog: nil}
	logger.Info("admin listening", slog.String("addr", ln.Addr().String()),
		slog.String("endpoints", "/livez /readyz /metrics"))
	if ready != nil {
		ready(ln.Addr().String())
	}
	go func() { _ = srv.Serve(ln) }()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	return nil
}

// observe builds the service's readiness and adds the figures of the
// scanner, the analytics, the limiter and the canary to m.
func observe(m *ops.Metrics, scanner *mailauth.Scanner, an *serveAnalytics, lim *serveLimiter, canary *ops.Canary, required bool) *ops.Readiness {
	lim.registerMetrics(m)
	m.CounterFunc("mailauth_resolver_canary_failures_total", "Canary questions the resolver failed (timeout, unreachable, refused, SERVFAIL).", func() float64 {
		return float64(canary.Failures())
	})
	registerCacheMetrics(m, scanner)
	an.registerMetrics(m)
	r := ops.NewReadiness(
		ops.Component{Name: "resolver", Check: canary.State},
		ops.Component{Name: "dnssec", Check: canary.DNSSECState},
		ops.Component{Name: "ratelimit", Check: lim.state},
		ops.Component{Name: "analytics", Check: func() ops.State { return an.state(required) }},
	)
	m.ReadinessGauges(r)
	return r
}

// registerCacheMetrics adds the shared DNS cache's counters
// (Scanner.DNSCacheStats), read at scrape time.
func registerCacheMetrics(m *ops.Metrics, s *mailauth.Scanner) {
	stat := func(f func(st resolver.CacheStats) float64) func() float64 {
		return func() float64 { return f(s.DNSCacheStats()) }
	}
	m.CounterFunc("mailauth_dns_cache_hits_total", "Questions answered from the shared DNS cache.", stat(func(st resolver.CacheStats) float64 { return float64(st.Hits) }))
	m.CounterFunc("mailauth_dns_cache_shared_total", "Questions that joined an identical one in flight.", stat(func(st resolver.CacheStats) float64 { return float64(st.Shared) }))
	m.CounterFunc("mailauth_dns_cache_misses_total", "Questions sent to the resolver.", stat(func(st resolver.CacheStats) float64 { return float64(st.Misses) }))
	m.CounterFunc("mailauth_dns_cache_evictions_total", "Answers dropped to stay within -dns-cache-mb.", stat(func(st resolver.CacheStats) float64 { return float64(st.Evictions) }))
	m.GaugeFunc("mailauth_dns_cache_entries", "Answers held in the shared DNS cache.", stat(func(st resolver.CacheStats) float64 { return float64(st.Entries) }))
	m.GaugeFunc("mailauth_dns_cache_bytes", "Estimated memory of the answers held.", stat(func(st resolver.CacheStats) float64 { return float64(st.Bytes) }))
}

// registerMetrics adds the analytics queue's figures.
func (a *serveAnalytics) registerMetrics(m *ops.Metrics) {
	writer := func(f func(w writerStats) float64) func() float64 {
		return func() float64 {
			if a.keeper == nil || a.keeper.Writer() == nil {
				return 0
			}
			return f(a.keeper.Writer())
		}
	}
	m.GaugeFunc("mailauth_analytics_queue_depth", "Analytics rows waiting for the writer.", writer(func(w writerStats) float64 { return float64(w.QueueLen()) }))
	m.CounterFunc("mailauth_analytics_rows_committed_total", "Analytics rows stored.", writer(func(w writerStats) float64 { return float64(w.Committed()) }))
	m.GaugeFunc("mailauth_analytics_rows_held", "Analytics rows of failed inserts waiting for a retry.", writer(func(w writerStats) float64 { return float64(w.Held()) }))
	m.CounterFunc("mailauth_analytics_rows_failed_total", "Analytics rows lost to failed inserts: dropped from a full retry buffer, or still held at shutdown.", writer(func(w writerStats) float64 { return float64(w.Failed()) }))
	m.CounterFunc("mailauth_analytics_rows_dropped_total", "Analytics rows dropped: queue full, or the store not open yet.", func() float64 {
		if a.keeper == nil {
			return 0
		}
		return float64(a.keeper.Dropped())
	})
	m.GaugeFunc("mailauth_analytics_ready", "1 while the analytics store is open and keeps up (GET /api/health storage ready).", func() float64 {
		return boolFloat(a.keeper != nil && a.keeper.Ready())
	})
}

// writerStats is what the metrics read of the analytics writer.
type writerStats interface {
	QueueLen() int
	Committed() int64
	Failed() int64
	Held() int64
}

// connectionMetrics adds the listener's connection-cap counters.
func connectionMetrics(m *ops.Metrics) func(*httpapi.Listener) {
	return func(ln *httpapi.Listener) {
		m.GaugeFunc("mailauth_connections_open", "Connections open on the public listener.", func() float64 { return float64(ln.Stats().Open) })
		m.CounterFunc("mailauth_connections_refused_total", "Connections closed at once for being over a per-source or network cap.", func() float64 { return float64(ln.Stats().Refused) })
		m.CounterFunc("mailauth_connections_shed_total", "Quiet connections closed to make room at the total cap.", func() float64 { return float64(ln.Stats().Shed) })
	}
}

// handleHangup catches SIGHUP (sent by terminal hang-ups and log
// rotation), which would otherwise kill the process, until the returned
// function is called: each is logged and the service keeps serving; there
// is nothing to reopen (logs go to standard error) or reload. serve
// installs it first and stops it last, after the final analytics flush,
// so that no window of its life dies of a SIGHUP.
func handleHangup(logger *slog.Logger) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	done := make(chan struct{})
	go logHangups(done, ch, logger)
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// logHangups logs each signal on ch until done is closed.
func logHangups(done <-chan struct{}, ch chan os.Signal, logger *slog.Logger) {
	for {
		select {
		case <-done:
			return
		case <-ch:
			logger.Info("SIGHUP received: nothing to reload, still serving (SIGTERM stops gracefully)")
		}
	}
}

// sdNotify sends state to systemd's notification socket ($NOTIFY_SOCKET,
// Type=notify units) and does nothing without one. An abstract socket is
// written with a leading '@'.
func sdNotify(getenv env, state string) error {
	path := getenv("NOTIFY_SOCKET")
	if path == "" {
		return nil
	}
	if strings.HasPrefix(path, "@") {
		path = "\x00" + path[1:]
	} else if !strings.HasPrefix(path, "/") {
		return errors.New("NOTIFY_SOCKET: neither a path nor an abstract socket")
	}
	c, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return fmt.Errorf("sd_notify: %w", err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(state)); err != nil {
		return fmt.Errorf("sd_notify: %w", err)
	}
	return nil
}

// mainVersion is the main module's version, or "devel".
func mainVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// spoofDrops returns what mailauth_dns_spoof_drops_total reads: the
// drops of r when it is the service's own resolver.Client, else nil
// (zeros).
func spoofDrops(r resolver.Resolver) func() map[string]uint64 {
	if c, ok := r.(*resolver.Client); ok {
		return c.SpoofDrops
	}
	return nil
}
