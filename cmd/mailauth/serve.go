package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/gctune"
	"github.com/redis/go-redis/v9"
)

// shutdownTimeout lets every request in flight finish (the server's
// write timeout); redisPingTimeout bounds the start-up check of Redis.
const (
	shutdownTimeout  = httpapi.ServerWriteTimeout
	redisPingTimeout = 2 * time.Second
)

// Sizes of the DNS cache shared across scans (-dns-cache-mb). 32 MiB holds
// about 80,000 typical answers, more than five minutes of scans at the
// service's rate; the maximum keeps a typo from reserving the machine.
const (
	defaultDNSCacheMB = 32
	maxDNSCacheMB     = 4096
)

const serveHead = `Usage: mailauth serve [flags]

Runs the HTTP service: the web page at /, the documentation at
/developers/api/ and /developers/cli/, POST /api/scan, POST /api/ptr-check,
GET /api/health, GET /openapi.json. Logs the address to open and the DNS
servers in use. Stops gracefully on SIGINT or SIGTERM, finishing the
diagnostics in flight. Access log (JSON, no domains, addresses or selectors)
on standard error.
`

// serveConfig is the parsed configuration of `mailauth serve`.
type serveConfig struct {
	listen          string
	storage         string
	rateLimit       string
	rateLimitMax    int
	trustedProxies  string
	analyticsSecret string
	maxInFlight     int
	dnsCacheMB      int
	scanner         scannerFlags
	analytics       analyticsFlags

	proxies []netip.Prefix
	scan    mailauth.Config
}

// serveFlagNames are the flags of serve that have environment fallbacks
// (all of them).
var serveFlagNames = append([]string{"listen", "storage", "ratelimit", "rate-limit-max",
	"trusted-proxies", "analytics-secret", "max-inflight", "dns-cache-mb"}, append(analyticsFlagNames, scannerFlagNames...)...)

// parseServe parses the flags of `mailauth serve` and checks them.
func parseServe(args []string, getenv env, out io.Writer) (serveConfig, error) {
	var c serveConfig
	fs := newFlagSet("serve", serveHead, out)
	fs.StringVar(&c.listen, "listen", "127.0.0.1:8080", "address to listen on, host:port")
	fs.StringVar(&c.storage, "storage", defaultStorage(getenv), "analytics store: sqlite:PATH (one file, this instance), postgres://user:password@host/db (shared by every instance) or none; the default file is analytics.db in $STATE_DIRECTORY (systemd), else mailauth/analytics.db under $XDG_STATE_HOME or ~/.local/state")
	fs.StringVar(&c.rateLimit, "ratelimit", "memory", "rate-limit store: memory (this instance only) or redis://[user:password@]host:port[/db] (shared by every instance using it)")
	fs.IntVar(&c.rateLimitMax, "rate-limit-max", httpapi.DefaultRateLimit, "diagnostic requests allowed per source (an IPv4 address, or the /64 of an IPv6 address) and 60-second window")
	fs.StringVar(&c.trustedProxies, "trusted-proxies", "", "comma-separated CIDR prefixes or addresses of reverse proxies whose X-Forwarded-For is believed; empty means none (the TCP peer is the client)")
	fs.StringVar(&c.analyticsSecret, "analytics-secret", "", "HMAC-SHA-256 secret (at least 16 bytes) of the analytics hashes and the Redis rate-limit keys; empty means one generated and kept in the store on first start")
	fs.IntVar(&c.maxInFlight, "max-inflight", httpapi.DefaultMaxInFlight, "diagnostics allowed to run at the same time; more wait briefly, then get 500")
	fs.IntVar(&c.dnsCacheMB, "dns-cache-mb", defaultDNSCacheMB, "MiB of DNS answers shared across scans for their TTL (at most 5 minutes); 0 turns the shared cache off")
	c.scanner.register(fs)
	c.analytics.register(fs)
	if err := bindEnv(fs, getenv, serveFlagNames...); err != nil {
		return c, err
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return c, err
	}
	if len(pos) > 0 {
		return c, errors.New("serve takes no arguments")
	}
	return c, c.check()
}

// check validates the parsed values and derives the typed ones.
func (c *serveConfig) check() error {
	if err := checkStorage(c.storage); err != nil {
		return err
	}
	if err := c.analytics.check(c); err != nil {
		return err
	}
	if c.rateLimit != "memory" && !strings.HasPrefix(c.rateLimit, "redis://") && !strings.HasPrefix(c.rateLimit, "rediss://") {
		return errors.New("-ratelimit: must be memory or a redis:// URL")
	}
	if err := positiveInt("rate-limit-max", c.rateLimitMax); err != nil {
		return err
	}
	if err := positiveInt("max-inflight", c.maxInFlight); err != nil {
		return err
	}
	if c.dnsCacheMB < 0 || c.dnsCacheMB > maxDNSCacheMB {
		return fmt.Errorf("-dns-cache-mb: must be between 0 and %d", maxDNSCacheMB)
	}
	if _, _, err := net.SplitHostPort(c.listen); err != nil {
		return fmt.Errorf("-listen: %w", err)
	}
	var err error
	if c.proxies, err = parseProxies(c.trustedProxies); err != nil {
		return fmt.Errorf("-trusted-proxies: %w", err)
	}
	c.scan, err = c.scanner.config()
	c.scan.DNSCacheBytes = c.dnsCacheMB << 20
	return err
}

// serveHooks let tests replace the scanner and learn the bound address.
type serveHooks struct {
	service func(mailauth.Config) httpapi.Service // nil means mailauth.New
	ready   func(addr string)                     // called once listening
	commits func(total int64)                     // called after each analytics batch
}

// runServe is `mailauth serve`.
func runServe(ctx context.Context, args []string, getenv env, std stdio, hooks serveHooks) int {
	c, err := parseServe(args, getenv, std.err)
	if err != nil {
		return usageExit(err, std.err)
	}
	logger := slog.New(slog.NewJSONHandler(std.err, nil))
	warnLabFlags(c.scanner, logger)
	warnWideProxies(c.proxies, logger)
	gctune.Apply(c.scan.DNSCacheBytes)
	logDNSServers(c.scan.DNSServers, logger)
	an, err := openAnalytics(ctx, c, logger, hooks.commits)
	if err != nil {
		fmt.Fprintf(std.err, "mailauth serve: %v\n", err)
		return exitUnavailable
	}
	defer an.close()
	limiter, closeLimiter, err := openLimiter(ctx, c, an.secret, logger)
	if err != nil {
		fmt.Fprintf(std.err, "mailauth serve: %v\n", err)
		return exitUsage
	}
	defer closeLimiter()
	c.scan.OnLeak, c.scan.OnPanic = scannerAlarms(logger)
	scanner := mailauth.New(c.scan)
	defer logCacheStats(logger, scanner)
	var svc httpapi.Service = scanner
	if hooks.service != nil {
		svc = hooks.service(c.scan)
	}
	opts := httpapi.Options{Limiter: limiter, TrustedProxies: c.proxies, MaxInFlight: c.maxInFlight, Logger: logger}
	if an.store != nil {
		opts.Storage, opts.Recorder = an.store, an.writer
	}
	h := httpapi.New(svc, opts)
	if err := listenAndServe(ctx, c.listen, h, logger, hooks.ready, httpapi.ListenerOptions{TrustedProxies: c.proxies}); err != nil {
		fmt.Fprintf(std.err, "mailauth serve: %v\n", err)
		return exitUnavailable
	}
	return exitOK
}

// warnLabFlags logs one warning for each test-and-lab flag that weakens
// the MTA-STS fetch's guards in a running service: a scanned domain's
// policy host may then resolve to this machine's loopback services, or be
// served with a certificate from extra roots. The CA file's path is not
// logged.
func warnLabFlags(f scannerFlags, logger *slog.Logger) {
	if f.allowLoopback {
		logger.Warn("-allow-loopback-targets is set: the MTA-STS policy fetch may reach loopback addresses (127.0.0.0/8, ::1) of this host; lab use only")
	}
	if f.caFile != "" {
		logger.Warn("-ca-file is set: the MTA-STS policy fetch trusts extra root certificates; lab use only")
	}
}

// warnWideProxies logs one warning for each trusted-proxy prefix wider
// than an IPv4 /16 or an IPv6 /32 (httpapi.WideProxies): every client in
// it may forge X-Forwarded-For. Only the family and the length are
// logged.
func warnWideProxies(proxies []netip.Prefix, logger *slog.Logger) {
	for _, p := range httpapi.WideProxies(proxies) {
		family := "IPv6"
		if p.Addr().Is4() {
			family = "IPv4"
		}
		logger.Warn("-trusted-proxies holds a very wide prefix: every client in it may forge X-Forwarded-For and choose its own rate-limit key",
			slog.String("family", family), slog.Int("bits", p.Bits()))
	}
}

// leakAlarmEvery spaces the redaction guard's alarms: a zone built to
// trip it could otherwise fill the log (issue 25: 398 alarms from one
// source in a soak).
const leakAlarmEvery = time.Minute

// scannerAlarms logs what the scanner reports as internal faults: texts
// the redaction guard replaced that could be a leak (at most one record
// per leakAlarmEvery, counting the alarms suppressed since the last), and
// checks that panicked. Only counts and check ids are logged, never a
// value.
func scannerAlarms(logger *slog.Logger) (onLeak func(int), onPanic func(mailauth.CheckID)) {
	var mu sync.Mutex
	var last time.Time
	suppressed := 0
	onLeak = func(n int) { // at most one record per leakAlarmEvery, with the count of the others
		mu.Lock()
		defer mu.Unlock()
		if now := time.Now(); last.IsZero() || now.Sub(last) >= leakAlarmEvery {
			logger.Error("redaction guard replaced check texts", slog.Int("checks", n), slog.Int("suppressed", suppressed))
			last, suppressed = now, 0
			return
		}
		suppressed++
	}
	onPanic = func(id mailauth.CheckID) { logger.Error("check panicked", slog.String("check", string(id))) }
	return onLeak, onPanic
}

// usageExit prints a configuration error (the flag package has printed
// its own parse errors) and returns the exit code: 0 for -h, else
// exitUsage.
func usageExit(err error, w io.Writer) int {
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errUsage):
	default:
		fmt.Fprintf(w, "mailauth: %v\n", err)
	}
	return exitUsage
}

// errInvalidRedisURL is the whole error of a -ratelimit redis URL that
// does not parse. It never includes the URL (it may carry a password).
var errInvalidRedisURL = errors.New("-ratelimit: not a valid redis:// or rediss:// URL (redis://[user:password@]host:port[/db]; the value is not shown, it may hold a password)")

// openLimiter builds the configured rate limiter.
func openLimiter(ctx context.Context, c serveConfig, secret []byte, logger *slog.Logger) (httpapi.Limiter, func(), error) {
	if c.rateLimit == "memory" {
		return httpapi.NewMemoryLimiter(httpapi.MemoryLimiterOptions{Limit: c.rateLimitMax}), func() {}, nil
	}
	redis.SetLogger(redisLog{logger})
	l, err := httpapi.OpenRedisLimiter(c.rateLimit, httpapi.RedisLimiterOptions{Limit: c.rateLimitMax, Secret: secret})
	if err != nil {
		// The parser's error quotes the URL, which may carry the Redis
		// password: only a fixed message names the flag.
		return nil, nil, errInvalidRedisURL
	}
	pctx, cancel := context.WithTimeout(ctx, redisPingTimeout)
	defer cancel()
	if err := l.Ping(pctx); err != nil {
		logger.Warn("rate-limit store unreachable; diagnostic requests answer 500 until it is")
	}
	return l, func() { _ = l.Close() }, nil
}

// listenAndServe serves h on addr until ctx ends, then shuts down
// gracefully: no new connections, requests in flight finish (up to
// shutdownTimeout). Connections are capped in total and per source
// (httpapi.LimitListener, lo).
func listenAndServe(ctx context.Context, addr string, h http.Handler, logger *slog.Logger, ready func(string), lo httpapi.ListenerOptions) error {
	raw, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	ln := httpapi.LimitListener(raw, lo)
	srv := httpapi.NewServer(h, ln, log.New(serverErrorLog{logger}, "", 0))
	logger.Info("listening", slog.String("addr", ln.Addr().String()), slog.String("open", pageURL(ln.Addr().String())))
	if ready != nil {
		ready(ln.Addr().String())
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	logger.Info("stopped")
	return nil
}

// serverErrorLog receives net/http's own error messages. Their text can
// contain a peer address ("TLS handshake error from ..."), so only the
// fact is logged.
type serverErrorLog struct{ logger *slog.Logger }

func (l serverErrorLog) Write(p []byte) (int, error) {
	l.logger.Warn("http server error (details withheld: they may name a client address)")
	return len(p), nil
}

// redisLog sends the Redis client's own messages (connection trouble with
// the configured server; they never carry request data, and keys are
// hashes) to the structured log instead of a plain stderr line.
type redisLog struct{ logger *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, v ...any) {
	l.logger.WarnContext(ctx, "redis client", slog.String("detail", fmt.Sprintf(format, v...)))
}
