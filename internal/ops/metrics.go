package ops

import (
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/resolver"
)

// Metrics is the service's Prometheus registry and the httpapi.Observer
// that feeds it.
type Metrics struct {
	reg        *prometheus.Registry
	requests   *prometheus.CounterVec
	durations  *prometheus.HistogramVec
	scans      *prometheus.HistogramVec
	checks     *prometheus.CounterVec
	lookups    *prometheus.CounterVec
	rateLimit  *prometheus.CounterVec
	admissions *prometheus.CounterVec
	waits      prometheus.Histogram
	leaks      prometheus.Counter
	guardFull  prometheus.Counter
	batches    *prometheus.HistogramVec
}

var _ httpapi.Observer = (*Metrics)(nil)

// NewMetrics returns the registry with the service's metrics, the Go
// runtime's and the process's, and mailauth_build_info{version}.
func NewMetrics(version string) *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{reg: reg}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mailauth_http_requests_total",
		Help: "Requests answered, by route (as the access log names it; unknown paths are \"other\") and status code."},
		[]string{"route", "code"})
	m.durations = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "mailauth_http_request_duration_seconds",
		Help:    "Time requests took to answer, every status (a diagnostic's queue wait included), by route and status code.",
		Buckets: []float64{0.005, 0.05, 0.25, 0.5, 1, 2, 3, 5, 8, 12, 15, 20, 30}}, []string{"route", "code"})
	m.scans = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "mailauth_diagnostic_duration_seconds",
		Help:    "Time diagnostics answered 200 ran (after their slot was granted), by kind (scan, ptr-check).",
		Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 12, 15, 20}}, []string{"kind"})
	m.checks = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mailauth_checks_total",
		Help: "Checks of the answered diagnostics, by check id, status, determination (determined, undetermined_lookup, undetermined_timeout, undetermined_internal, undetermined_slow) and the domain-side DNS fault a fail was attributed to (none, dnssec, no_answer, alias)."},
		[]string{"check", "status", "determination", "dns_fault"})
	m.lookups = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mailauth_dns_inconclusive_total",
		Help: "Inconclusive DNS answers the checks received, by reason (resolver.Reason) and the side the verdict attributed it to (domain, service, none: slowness or no attributable cause)."},
		[]string{"reason", "side"})
	m.rateLimit = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mailauth_ratelimit_decisions_total",
		Help: "Rate-limit decisions on diagnostic requests: allowed, limited, network_limited, error."}, []string{"decision"})
	m.admissions = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mailauth_admissions_total",
		Help: "Diagnostics past the rate limits, by admission outcome: admitted, or the refusal (busy = shed after the queue wait, source_budget, canceled)."},
		[]string{"outcome"})
	m.waits = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "mailauth_admission_wait_seconds",
		Help: "Time diagnostics waited in the fairness queue for a slot.", Buckets: []float64{0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 3}})
	m.leaks = prometheus.NewCounter(prometheus.CounterOpts{Name: "mailauth_leak_guard_replacements_total",
		Help: "Checks whose texts the redaction guard replaced (Config.OnLeak)."})
	m.guardFull = prometheus.NewCounter(prometheus.CounterOpts{Name: "mailauth_leak_guard_full_total",
		Help: "Results withheld (answered 500) because a value (an MTA-STS policy's text) arrived when the redaction guard was full: a zone that publishes more than the guard holds, not a leak (Config.OnGuardFull)."})
	m.batches = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "mailauth_analytics_batch_seconds",
		Help: "Analytics insert attempts, by result (ok, error).", Buckets: prometheus.DefBuckets}, []string{"result"})
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mailauth_build_info",
		Help: "Always 1: the running build's version and Go version."}, []string{"version", "goversion"})
	build.WithLabelValues(version, runtime.Version()).Set(1)
	reg.MustRegister(m.requests, m.durations, m.scans, m.checks, m.lookups, m.rateLimit, m.admissions, m.waits, m.leaks, m.guardFull, m.batches, build,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Register adds a collector (another part of the service's figures).
func (m *Metrics) Register(c prometheus.Collector) error { return m.reg.Register(c) }

// CounterFunc adds a counter read from f at scrape time (a monotonic
// figure kept elsewhere, e.g. with sync/atomic).
func (m *Metrics) CounterFunc(name, help string, f func() float64) {
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, f))
}

// GaugeFunc adds a gauge read from f at scrape time.
func (m *Metrics) GaugeFunc(name, help string, f func() float64) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f))
}

// ReadinessGauges adds mailauth_ready{component}: 1 ok (validating), 0.5
// degraded (not_validating, although it leaves the status ok), 0 down
// (not_recursive, unknown), read from r at scrape time.
func (m *Metrics) ReadinessGauges(r *Readiness) {
	for _, c := range r.components {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "mailauth_ready",
			Help:        "Readiness of each component: 1 ok (dnssec: validating), 0.5 degraded (dnssec: not_validating, which leaves the status ok), 0 down (resolver: also not_recursive; dnssec: unknown).",
			ConstLabels: prometheus.Labels{"component": c.Name}}, func() float64 { return stateValue(c.Check()) }))
	}
}

// stateValue is a State as a gauge value.
func stateValue(s State) float64 {
	switch s {
	case StateOK, StateValidating:
		return 1
	case StateDegraded, StateNotValidating:
		return 0.5
	}
	return 0
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Leak counts n checks whose texts the leak guard replaced.
func (m *Metrics) Leak(n int) { m.leaks.Add(float64(n)) }

// GuardFull counts one result withheld because the redaction guard was
// full (mailauth.Config.OnGuardFull).
func (m *Metrics) GuardFull() { m.guardFull.Inc() }

// Batch records one analytics insert attempt (analytics.WriterOptions.OnBatch).
func (m *Metrics) Batch(_ int, took time.Duration, err error) {
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.batches.WithLabelValues(result).Observe(took.Seconds())
}

// Request implements httpapi.Observer.
func (m *Metrics) Request(route string, status int, took time.Duration) {
	code := strconv.Itoa(status)
	m.requests.WithLabelValues(route, code).Inc()
	m.durations.WithLabelValues(route, code).Observe(took.Seconds())
}

// RateLimit implements httpapi.Observer.
func (m *Metrics) RateLimit(decision string) { m.rateLimit.WithLabelValues(decision).Inc() }

// Admission implements httpapi.Observer.
func (m *Metrics) Admission(outcome string, waited time.Duration) {
	m.admissions.WithLabelValues(outcome).Inc()
	m.waits.Observe(waited.Seconds())
}

// Diagnostic implements httpapi.Observer.
func (m *Metrics) Diagnostic(kind string, took time.Duration, checks []httpapi.CheckOutcome) {
	m.scans.WithLabelValues(kind).Observe(took.Seconds())
	for _, c := range checks {
		m.checks.WithLabelValues(string(c.ID), string(c.Status), c.Determination.String(), c.DNSFault.String()).Inc()
	}
}

// Inconclusive counts one inconclusive DNS answer a check received, with
// the side its verdict was attributed to (mailauth.Config.OnInconclusive).
// A reason outside resolver.Reasons is counted as "other", so the label
// stays a closed set.
func (m *Metrics) Inconclusive(reason resolver.Reason, side resolver.Side) {
	label := "other"
	if slices.Contains(resolver.Reasons(), reason) {
		label = string(reason)
	}
	m.lookups.WithLabelValues(label, side.String()).Inc()
}

// AdminHeader is the response header every answer of the admin handler
// carries (value "1"): `mailauth healthcheck` trusts only a readiness
// report that has it, so that another program holding the admin port is
// never taken for a ready service.
const AdminHeader = "Mailauth-Admin"

// AdminHandler serves the operator's endpoints: GET /livez (the process
// answers), GET /readyz (r's report; 503 when down) and GET /metrics.
// Every answer carries AdminHeader.
func AdminHandler(r *Readiness, m *Metrics) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]State{"status": StateOK})
	})
	mux.Handle("GET /readyz", r)
	mux.Handle("GET /metrics", m.Handler())
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set(AdminHeader, "1")
		mux.ServeHTTP(w, req)
	})
}
