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
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/gctune"
	"github.com/mailauth/mailauth/internal/ops"
	"github.com/mailauth/mailauth/resolver"
)

// shutdownTimeout lets every request in flight finish (the server's
// write timeout); redisPingTimeout bounds the start-up check of Redis.
const (
	shutdownTimeout  = httpapi.ServerWriteTimeout
	redisPingTimeout = 2 * time.Second
)

// Sizes of the DNS cache shared across scans (-dns-cache-mb). 32 MiB holds
// about 60,000 typical answers (resolver.DefaultCacheBytes): the shared
// providers' records (SPF trees, MX hosts, report receivers) many times
// over; the maximum keeps a typo from reserving the machine.
const (
	defaultDNSCacheMB = 32
	maxDNSCacheMB     = 4096
)

const serveHead = `Usage: mailauth serve [flags]

Runs the HTTP service: the web page at /, the documentation at
/developers/api/ and /developers/cli/, POST /api/scan, POST /api/ptr-check,
GET /api/health, GET /openapi.json. Logs the address to open and the DNS
servers in use. Stops gracefully on SIGINT or SIGTERM, finishing the
diagnostics in flight; SIGHUP is logged and changes nothing. Access log
(JSON, no domains, addresses or selectors) on standard error.

The operator's endpoints are on -admin-listen (loopback by default, never
the public listener; serve refuses to start when it cannot bind it):
GET /livez, GET /readyz (the state of the resolver, whether it validates
DNSSEC, the rate-limit store and the analytics store; 503 when one is
down) and GET /metrics (Prometheus). "mailauth healthcheck" asks /readyz.
Under systemd (Type=notify) serve reports READY=1 once it listens.

The resolver must offer recursion (serve refuses an authoritative-only
server at start) and should validate DNSSEC: through one that does not,
DNSSEC failures cannot be seen (logged once; readiness dnssec
not_validating).
`

// serveConfig is the parsed configuration of `mailauth serve`.
type serveConfig struct {
	listen          string
	storage         string
	rateLimit       string
	rateLimitMax    int
	trustedProxies  string
	analyticsSecret string
	secretFile      string
	maxInFlight     int
	dnsCacheMB      int
	adminListen     string
	canaryName      string
	failClosed      bool
	storeRequired   bool
	publicURL       string
	scanner         scannerFlags
	analytics       analyticsFlags

	proxies []netip.Prefix
	scan    mailauth.Config
}

// serveFlagNames are the flags of serve that have environment fallbacks
// (all of them).
var serveFlagNames = append([]string{"listen", "storage", "ratelimit", "rate-limit-max",
	"trusted-proxies", "analytics-secret", "max-inflight", "dns-cache-mb",
	"analytics-secret-file", "admin-listen", "canary-name", "ratelimit-fail-closed", "analytics-required", "public-url"}, append(analyticsFlagNames, scannerFlagNames...)...)

// parseServe parses the flags of `mailauth serve` and checks them.
func parseServe(args []string, getenv env, out io.Writer) (serveConfig, error) {
	var c serveConfig
	fs := newFlagSet("serve", serveHead, out)
	fs.StringVar(&c.listen, "listen", defaultListen, "address to listen on, host:port")
	fs.StringVar(&c.storage, "storage", defaultStorage(getenv), "analytics store: sqlite:PATH (one file, this instance), postgres://user:password@host/db (shared by every instance) or none; the default file is analytics.db in $STATE_DIRECTORY (systemd), else mailauth/analytics.db under $XDG_STATE_HOME or ~/.local/state")
	fs.StringVar(&c.rateLimit, "ratelimit", "memory", "rate-limit store: memory (this instance only) or redis://[user:password@]host:port[/db] (shared by every instance using it)")
	fs.IntVar(&c.rateLimitMax, "rate-limit-max", httpapi.DefaultRateLimit, "diagnostic requests allowed per source (an IPv4 address, or the /64 of an IPv6 address) and 60-second window")
	fs.StringVar(&c.publicURL, "public-url", "", "origin the /developers/ pages' examples name, such as https://mailauth.example.org, behind a proxy that does not send X-Forwarded-Host and X-Forwarded-Proto; empty means the origin each request was made to")
	fs.StringVar(&c.trustedProxies, "trusted-proxies", "", "comma-separated CIDR prefixes or addresses of reverse proxies whose X-Forwarded-For is believed; empty means none (the TCP peer is the client)")
	fs.StringVar(&c.analyticsSecret, "analytics-secret", "", "HMAC-SHA-256 secret (at least 16 bytes) of the analytics hashes and the Redis rate-limit keys; empty means one generated and kept in the store on first start")
	fs.IntVar(&c.maxInFlight, "max-inflight", httpapi.DefaultMaxInFlight, "diagnostics allowed to run at the same time, half of them kept for sources with nothing recent; each holds about 225 KiB of memory (up to about 1 MiB scanning a hostile zone); more wait briefly, then get 500")
	fs.IntVar(&c.dnsCacheMB, "dns-cache-mb", defaultDNSCacheMB, "MiB of DNS answers shared across scans for their TTL (at most 5 minutes); 0 turns the shared cache off")
	fs.StringVar(&c.secretFile, "analytics-secret-file", "", "file holding -analytics-secret (a container or systemd secret); surrounding white space is ignored")
	fs.StringVar(&c.adminListen, "admin-listen", defaultAdminListen, "operator address of /livez, /readyz and /metrics, host:port (keep it private: loopback or an internal network), or none")
	fs.StringVar(&c.canaryName, "canary-name", ops.DefaultCanaryName, "name whose NS records readiness asks the resolver every few seconds (\".\" is the root)")
	fs.BoolVar(&c.failClosed, "ratelimit-fail-closed", false, "with a redis:// rate-limit store: answer diagnostics 500 (and readiness down) while it does not answer, instead of counting per instance")
	fs.BoolVar(&c.storeRequired, "analytics-required", false, "readiness is down (not degraded) while the analytics store is unavailable")
	c.scanner.register(fs)
	c.analytics.register(fs)
	pos, src, err := bindEnv(fs, args, getenv, serveFlagNames...)
	if err != nil {
		return c, err
	}
	if len(pos) > 0 {
		return c, errors.New("serve takes no arguments")
	}
	return c, src.blame(c.check())
}

// check validates the parsed values and derives the typed ones.
func (c *serveConfig) check() error {
	if err := c.readSecretFile(); err != nil {
		return err
	}
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
	if _, _, err := net.SplitHostPort(c.adminListen); err != nil && c.adminListen != adminOff {
		return fmt.Errorf("-admin-listen: %w", err)
	}
	if c.publicURL != "" {
		if err := httpapi.CheckPublicURL(c.publicURL); err != nil {
			return fmt.Errorf("-public-url: %w", err)
		}
	}
	var err error
	if c.proxies, err = parseProxies(c.trustedProxies); err != nil {
		return fmt.Errorf("-trusted-proxies: %w", err)
	}
	c.scan, err = c.scanner.config()
	c.scan.DNSCacheBytes = c.dnsCacheMB << 20
	return err
}

// readSecretFile sets analyticsSecret from -analytics-secret-file.
func (c *serveConfig) readSecretFile() error {
	if c.secretFile == "" {
		return nil
	}
	if c.analyticsSecret != "" {
		return errors.New("-analytics-secret-file: give either it or -analytics-secret")
	}
	b, err := os.ReadFile(c.secretFile)
	if err != nil {
		return fmt.Errorf("-analytics-secret-file: %w", err)
	}
	c.analyticsSecret = strings.TrimSpace(string(b))
	return nil
}

// serveHooks let tests replace the scanner and learn the bound address.
type serveHooks struct {
	service func(mailauth.Config) httpapi.Service // nil means mailauth.New
	ready   func(addr string)                     // called once listening
	commits func(total int64)                     // called after each analytics batch
	admin   func(addr string)                     // called once the admin listener listens
}

// runServe is `mailauth serve`.
func runServe(ctx context.Context, args []string, getenv env, std stdio, hooks serveHooks) int {
	logger := slog.New(slog.NewJSONHandler(std.err, nil))
	// Caught from the start (the store's open and the Redis ping take
	// time) to the end: this defer runs last, after the final flush.
	defer handleHangup(logger)()
	c, err := parseServe(args, getenv, helpOutput(std))
	if err != nil {
		return usageExit(err, std.err)
	}
	warnLabFlags(c.scanner, logger)
	warnWideProxies(c.proxies, logger)
	gctune.Apply(c.scan.DNSCacheBytes)
	logDNSServers(c.scan.DNSServers, logger)
	metrics := ops.NewMetrics(mainVersion())
	an := openAnalytics(ctx, c, logger, analyticsHooks{onCommit: hooks.commits, onBatch: metrics.Batch})
	defer an.close()
	// One return of memory to the system for the listener, the handler
	// and the limiter: a flood that drains them all costs one collection.
	mem := &httpapi.MemoryReturner{}
	lim, err := openLimiter(ctx, c, an.secret, logger, mem)
	if err != nil {
		fmt.Fprintf(std.err, "mailauth serve: %v\n", err)
		return exitUsage
	}
	defer lim.close()
	if c.scan.ControlName == "" && c.canaryName != "." {
		c.scan.ControlName = c.canaryName // the canary's name is one this resolver answers
	}
	if c.scan.Resolver == nil { // one resolver for the scans and the canary
		c.scan.Resolver = &resolver.Client{Servers: c.scan.DNSServers, RootCAs: c.scan.DNSRootCAs, Logger: logger}
	}
	onLeak, onPanic := scannerAlarms(logger, time.Now)
	c.scan.OnLeak = func(source string, n int) { metrics.Leak(n); onLeak(source, n) }
	c.scan.OnGuardFull = func(string) { metrics.GuardFull() } // a zone's size, not a bug: no alarm
	c.scan.OnPanic = onPanic
	c.scan.OnInconclusive = metrics.Inconclusive
	c.scan.MaxConcurrentScans = c.maxInFlight // httpapi's fair queue admits; the library's bound must not queue again
	scanner := mailauth.New(c.scan)
	defer logCacheStats(logger, scanner)
	var svc httpapi.Service = scanner
	if hooks.service != nil {
		svc = hooks.service(c.scan)
	}
	canary := ops.NewCanary(c.scan.Resolver, c.canaryName, 0, 0)
	canary.Logger = logger
	if asksResolver(c, hooks) {
		if err := checkResolver(ctx, scanner, canary, logger); err != nil {
			fmt.Fprintf(std.err, "mailauth serve: %v\n", err)
			return exitUsage
		}
	}
	// The admin listener and the canary last through the graceful
	// shutdown, until runServe returns.
	actx, stopAdmin := context.WithCancel(context.WithoutCancel(ctx))
	defer stopAdmin()
	readiness := observe(metrics, scanner, an, lim, canary, c.storeRequired)
	metrics.SpoofDrops(spoofDrops(c.scan.Resolver))
	if err := startAdmin(actx, c.adminListen, ops.AdminHandler(readiness, metrics), logger, hooks.admin); err != nil {
		fmt.Fprintf(std.err, "mailauth serve: %v\n", err)
		return exitUnavailable
	}
	opts := httpapi.Options{Limiter: lim.limiter, NetworkLimits: lim.networks, TrustedProxies: c.proxies, PublicURL: c.publicURL,
		MaxInFlight: c.maxInFlight, Logger: logger, Observer: metrics, RequestIDFromProxy: true, MemoryReturner: mem}
	if an.keeper != nil {
		opts.Storage, opts.Recorder = an.keeper, an.keeper
	}
	h := httpapi.New(svc, opts)
	ready := onListening(actx, c, hooks, canary, getenv, logger)
	lo := httpapi.ListenerOptions{TrustedProxies: c.proxies, MemoryReturner: mem}
	if err := listenAndServe(ctx, c.listen, h, logger, ready, lo, connectionMetrics(metrics)); err != nil {
		fmt.Fprintf(std.err, "mailauth serve: %v\n", err)
		return exitUnavailable
	}
	_ = sdNotify(getenv, "STOPPING=1")
	return exitOK
}

// onListening returns what runs once the public listener listens: the
// resolver canary starts (unless a test's fake scanner runs without -dns:
// it then asks no resolver at all), systemd hears READY=1, and the test
// hook learns the address.
func onListening(ctx context.Context, c serveConfig, hooks serveHooks, canary *ops.Canary, getenv env, logger *slog.Logger) func(string) {
	return func(addr string) {
		if asksResolver(c, hooks) {
			go canary.Run(ctx)
		}
		if err := sdNotify(getenv, "READY=1"); err != nil {
			logger.Warn("systemd notification failed", slog.String("error", err.Error()))
		}
		if hooks.ready != nil {
			hooks.ready(addr)
		}
	}
}

// asksResolver reports whether serve asks the resolver (the start check
// and the canary): always, unless a test's fake scanner runs without
// -dns (it then asks no resolver at all).
func asksResolver(c serveConfig, hooks serveHooks) bool {
	return hooks.service == nil || len(c.scan.DNSServers) > 0
}

// resolverCheckTimeout bounds the start check of the resolver.
const resolverCheckTimeout = 6 * time.Second

// errNotRecursive is serve's refusal of a resolver that does not recurse.
var errNotRecursive = errors.New("the resolver (-dns, or /etc/resolv.conf without it) does not offer recursion: its replies do not set RA. " +
	"It looks like an authoritative-only server, which answers only its own zones; give -dns a recursive resolver, " +
	"preferably one that validates DNSSEC (doc/operations.md, \"The resolver\")")

// checkResolver learns at start what the resolver does (the scanner's
// own probe, which its scans then use): a resolver that answers without
// recursion is refused (errNotRecursive); what it does is handed to the
// canary, which logs a resolver that does not validate DNSSEC. A
// resolver that does not answer yet is no reason to refuse: readiness
// says down until it does.
func checkResolver(ctx context.Context, scanner *mailauth.Scanner, canary *ops.Canary, logger *slog.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, resolverCheckTimeout)
	defer cancel()
	p, known := scanner.ResolverProperties(ctx)
	if !known {
		logger.Warn("the resolver did not answer at start: readiness resolver down until it does")
		return nil
	}
	if !p.Recursive {
		return errNotRecursive
	}
	canary.Learn(p)
	return nil
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

// Limits of the redaction guard's alarms: a zone built to trip it could
// otherwise fill the log (a soak once logged 398 alarms from one
// source), and a limit shared by every source would let that zone hide
// another source's alarm.
const (
	// leakAlarmEvery spaces the alarms of one source.
	leakAlarmEvery = time.Minute
	// leakAlarmSources bounds the sources whose latest alarm is
	// remembered; past it, an alarm from a source not remembered is held
	// back until the sweep (every leakAlarmEvery) frees room.
	leakAlarmSources = 256
)

// scannerAlarms logs what the scanner reports as internal faults: texts
// the redaction guard replaced that could be a leak (see leakAlarms), and
// checks that panicked. Only counts and check ids are logged, never a
// value, a domain or a client address.
func scannerAlarms(logger *slog.Logger, now func() time.Time) (onLeak func(string, int), onPanic func(mailauth.CheckID)) {
	onPanic = func(id mailauth.CheckID) { logger.Error("check panicked", slog.String("check", string(id))) }
	return newLeakAlarms(logger, now).alarm, onPanic
}

func newLeakAlarms(logger *slog.Logger, now func() time.Time) *leakAlarms {
	return &leakAlarms{logger: logger, now: now, last: map[string]time.Time{}}
}

// leakAlarms limits the guard's ERROR alarms per source (the scan's
// source tag, mailauth.WithSource: httpapi's fairness key, an IPv4
// address or an IPv6 /64; "" for a scan without one): at most one record
// per source per leakAlarmEvery, for at most leakAlarmSources sources at
// once. Each record carries how many alarms, from any source, were held
// back since the previous one. The source itself is never logged.
type leakAlarms struct {
	logger *slog.Logger
	now    func() time.Time

	mu         sync.Mutex
	last       map[string]time.Time // source → its latest logged alarm
	swept      time.Time
	suppressed int // alarms held back since the latest record
}

func (a *leakAlarms) alarm(source string, n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	a.sweep(now)
	t, seen := a.last[source]
	if (seen && now.Sub(t) < leakAlarmEvery) || (!seen && len(a.last) >= leakAlarmSources) {
		a.suppressed++
		return
	}
	a.last[source] = now
	a.logger.Error("redaction guard replaced check texts", slog.Int("checks", n), slog.Int("suppressed", a.suppressed))
	a.suppressed = 0
}

// sweep forgets the sources whose latest alarm is leakAlarmEvery old, at
// most once per leakAlarmEvery unless the map is full. The map is built
// anew, so that the memory of a burst of sources comes back.
func (a *leakAlarms) sweep(now time.Time) {
	if now.Sub(a.swept) < leakAlarmEvery && len(a.last) < leakAlarmSources {
		return
	}
	a.swept = now
	kept := make(map[string]time.Time)
	for s, t := range a.last {
		if now.Sub(t) < leakAlarmEvery {
			kept[s] = t
		}
	}
	a.last = kept
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

// listenAndServe serves h on addr until ctx ends, then shuts down
// gracefully: no new connections, requests in flight finish (up to
// shutdownTimeout). Connections are capped in total and per source
// (httpapi.LimitListener, lo); onListener, when set, receives the
// listener (its counters).
func listenAndServe(ctx context.Context, addr string, h http.Handler, logger *slog.Logger, ready func(string), lo httpapi.ListenerOptions, onListener func(*httpapi.Listener)) error {
	raw, err := httpapi.Listen(ctx, addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("-listen: another program holds the port; give another address: %w", err)
	}
	if err != nil {
		return fmt.Errorf("-listen: %w", err)
	}
	ln := httpapi.LimitListener(raw, lo)
	if onListener != nil {
		onListener(ln)
	}
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
