package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime/debug"
	"time"

	"github.com/mailauth/mailauth"
)

// Limits and defaults of the service (API contract, Limits table; doc/design.md
// §3).
const (
	// MaxBodyBytes is the largest accepted request body: 8 KiB.
	MaxBodyBytes = 8 << 10
	// DefaultMaxInFlight is the default number of diagnostics (scans and
	// ptr-checks together) allowed to run at the same time. It bounds
	// memory: a scan in flight in the service holds about 225 KiB of live
	// heap and goroutine stacks (a domain that never answers, with every
	// slot full; RELIABILITY.md, "Memory with every slot full"), so the
	// 512 slots hold about 112 MiB, and with the 32 MiB shared DNS cache
	// and the idle process about 155 MiB of the service's 256 MiB soft
	// memory limit (internal/gctune). 1,024 slots would hold about 225 MiB
	// alone, at the limit. The soft limit is not a bound for every attack:
	// 512 scans of a hostile zone at once peaked at 471–507 MB RSS, and
	// the limiter tables can add about 160 MB beside them (the deploy
	// unit's MemoryHigh and MemoryMax allow for both). Half of the slots are the reserve of fresh sources
	// (reserveOf).
	DefaultMaxInFlight = 512
	// DefaultQueueWait is how long a diagnostic waits for a free slot
	// before it is refused with 500.
	DefaultQueueWait = 2 * time.Second
	// healthPingTimeout bounds the storage ping of GET /api/health.
	healthPingTimeout = 2 * time.Second
)

// Service runs the diagnostics. *mailauth.Scanner implements it; tests use
// fakes. Errors are *mailauth.InputError (answered 400),
// mailauth.ErrResolverUnavailable (500), or anything else (500 with a
// generic message; the error text is never sent or logged).
type Service interface {
	Scan(ctx context.Context, req mailauth.ScanRequest) (mailauth.ScanSummary, error)
	CheckIP(ctx context.Context, ip netip.Addr) (mailauth.PTRCheckSummary, error)
}

// EncodedService is a Service that also returns each result's JSON,
// encoded once and verified by its leak guard (*mailauth.Scanner is
// one). The handler then sends exactly those bytes: the bytes the guard
// checked are the bytes on the wire. A result must carry a summary or an
// error: a nil summary with a nil error is answered as an internal error.
type EncodedService interface {
	ScanEncoded(ctx context.Context, req mailauth.ScanRequest) (*mailauth.ScanSummary, []byte, error)
	CheckIPEncoded(ctx context.Context, ip netip.Addr) (*mailauth.PTRCheckSummary, []byte, error)
}

// Storage is the analytics store as far as GET /api/health is concerned.
type Storage interface {
	// Ping reports whether the store is usable.
	Ping(ctx context.Context) error
}

// Options configures the handler. The zero value is usable: an in-memory
// limiter of DefaultRateLimit requests per DefaultRateWindow, no trusted
// proxies, DefaultMaxInFlight, no storage, no access log.
type Options struct {
	// Limiter counts diagnostic requests per source (an IPv4 address or
	// the /64 of an IPv6 address: the key passed to Allow); nil means
	// NewMemoryLimiter(MemoryLimiterOptions{}).
	Limiter Limiter
	// TrustedProxies are the peers whose X-Forwarded-For is believed; the
	// source address is then the rightmost hop not in this list.
	TrustedProxies []netip.Prefix
	// PublicURL is the origin (scheme and host, such as
	// https://mailauth.example.org) the developer pages' examples name;
	// empty means the origin of each request (its scheme and Host, or a
	// trusted proxy's X-Forwarded-Proto and X-Forwarded-Host). Check it
	// with CheckPublicURL.
	PublicURL string
	// MaxInFlight bounds concurrent diagnostics; 0 means DefaultMaxInFlight.
	MaxInFlight int
	// QueueWait bounds the wait for a diagnostic slot; 0 means
	// DefaultQueueWait.
	QueueWait time.Duration
	// Storage is reported by GET /api/health: nil is "disabled", a failing
	// Ping is "unavailable", else "ready".
	Storage Storage
	// Recorder receives an Event for each diagnostic answered 200; nil
	// means none.
	Recorder Recorder
	// Logger receives one access-log record per request; nil means none.
	Logger *slog.Logger
	// Now is the clock of the health timestamp; nil means time.Now.
	Now func() time.Time
	// Version is reported by GET /api/health; empty means the main
	// module's version from the build info, or "devel".
	Version string
	// SourceInFlight caps the diagnostics one source runs at once;
	// 0 means DefaultSourceInFlight.
	SourceInFlight int
	// SourceBudget is the diagnostic time one source may use per
	// DefaultRateWindow; 0 means DefaultSourceBudget, negative means no
	// budget.
	SourceBudget time.Duration
	// NetworkLimits are the aggregate rate limits per IPv6 prefix; nil
	// means the defaults (a /56 and a /48, in the shared store when
	// Limiter is a SharedLimiter, else in memory), an empty non-nil slice
	// means none.
	NetworkLimits []NetworkLimit
	// Observer receives requests, rate-limit decisions, admissions and
	// diagnostics for metrics; nil means none.
	Observer Observer
	// MemoryReturner returns memory to the system once a spray of
	// addresses has expired from the handler's tables (the diagnostic
	// budgets, and the limiters New builds: Limiter and NetworkLimits
	// when nil; a Limiter given here returns memory through its own
	// options, [MemoryLimiterOptions].MemoryReturner), and once the
	// diagnostics in flight fall from 64 or more to an eighth of their
	// peak. nil means one of the handler's own. A service shares one with
	// its Listener.
	MemoryReturner *MemoryReturner
	// RequestIDFromProxy, when true, makes the access log take a trusted
	// proxy's X-Request-Id (16 to 64 letters, digits or '-') as the
	// request's id, so that the proxy's log line and this one join; from
	// any other peer the header is ignored.
	RequestIDFromProxy bool
}

// handler holds the configured dependencies of the endpoints.
type handler struct {
	svc     Service
	limiter Limiter
	proxies []netip.Prefix
	wait    time.Duration
	fairness
	storage Storage
	rec     Recorder
	now     func() time.Time
	version string
	obs     Observer
	// publicURL is Options.PublicURL.
	publicURL string
}

// New returns the service's http.Handler for svc.
func New(svc Service, opts Options) http.Handler {
	h := newHandler(svc, opts)
	var idProxies []netip.Prefix
	if opts.RequestIDFromProxy {
		idProxies = h.proxies
	}
	return chain(h.routes(), pace, commonHeaders, accessLog(opts.Logger, h.obs, idProxies), recoverPanic)
}

// newHandler fills in opts' defaults and returns the endpoints' state.
func newHandler(svc Service, opts Options) *handler {
	h := &handler{
		svc:     svc,
		limiter: opts.Limiter,
		proxies: normalizeProxies(opts.TrustedProxies),
		wait:    opts.QueueWait,
		storage: opts.Storage,
		rec:     opts.Recorder,
		now:     opts.Now,
		version: opts.Version,
		obs:     opts.Observer,

		publicURL: opts.PublicURL,
	}
	if h.obs == nil {
		h.obs = nopObserver{}
	}
	opts.MemoryReturner = orOwnReturner(opts.MemoryReturner) // one for every table of the handler
	if h.limiter == nil {
		h.limiter = NewMemoryLimiter(MemoryLimiterOptions{MemoryReturner: opts.MemoryReturner})
	}
	n := opts.MaxInFlight
	if n <= 0 {
		n = DefaultMaxInFlight
	}
	h.fairness = newFairness(n, opts)
	if h.wait <= 0 {
		h.wait = DefaultQueueWait
	}
	if h.now == nil {
		h.now = time.Now
	}
	if h.version == "" {
		h.version = buildVersion()
	}
	return h
}

// buildVersion is the main module's version from the build info, or
// "devel" for a development build.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return "devel"
	}
	return bi.Main.Version
}
