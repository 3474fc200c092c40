package ops

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/syncbuf"
	"github.com/mailauth/mailauth/resolver"
)

// fixed returns a component check of a settable state.
func fixed(s *atomic.Value) func() State { return func() State { return s.Load().(State) } }

// TestReadinessStates: the overall state is the worst component's;
// degraded still answers 200 (the instance serves), down answers 503;
// every component is named in the body.
func TestReadinessStates(t *testing.T) {
	var res, rl, an atomic.Value
	r := NewReadiness(Component{"resolver", fixed(&res)}, Component{"ratelimit", fixed(&rl)}, Component{"analytics", fixed(&an)})
	for _, tc := range []struct {
		res, rl, an State
		want        State
		code        int
	}{
		{StateOK, StateOK, StateOK, StateOK, 200},
		{StateOK, StateDegraded, StateOK, StateDegraded, 200},
		{StateOK, StateOK, StateDegraded, StateDegraded, 200},
		{StateDown, StateOK, StateOK, StateDown, 503},
		{StateOK, StateDown, StateDegraded, StateDown, 503},
		{StateOK, StateOK, StateDown, StateDown, 503},
		{StateNotRecursive, StateOK, StateOK, StateDown, 503},
		{StateValidating, StateOK, StateOK, StateOK, 200},
		{StateNotValidating, StateOK, StateOK, StateOK, 200},
		{StateUnknown, StateOK, StateOK, StateOK, 200},
	} {
		res.Store(tc.res)
		rl.Store(tc.rl)
		an.Store(tc.an)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		assert.Equal(t, tc.code, w.Code)
		assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
		var rep Report
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &rep))
		assert.Equal(t, tc.want, rep.Status)
		assert.Equal(t, map[string]State{"resolver": tc.res, "ratelimit": tc.rl, "analytics": tc.an}, rep.Components)
	}
}

// switchResolver answers conclusively or fails, as set; it counts the
// questions.
type switchResolver struct {
	fail  atomic.Bool
	asked atomic.Int64
	name  atomic.Value
}

func (s *switchResolver) Lookup(_ context.Context, name string, qtype resolver.Type) resolver.Answer {
	s.asked.Add(1)
	s.name.Store(name + "/" + qtype.String())
	if s.fail.Load() {
		return resolver.Answer{Outcome: resolver.Inconclusive, Reason: resolver.ReasonServFail, Rcode: 2}
	}
	return resolver.Answer{Outcome: resolver.NoData}
}

// TestCanary: down before the first answer, ok after a conclusive one;
// one SERVFAIL keeps it ok, the second in a row makes it down; the change
// is logged once each way; State never asks the resolver itself.
func TestCanary(t *testing.T) {
	res := &switchResolver{}
	var log syncbuf.Buffer
	c := NewCanary(res, "example.com", time.Hour, time.Second)
	c.Logger = slog.New(slog.NewJSONHandler(&log, nil))
	assert.Equal(t, StateDown, c.State(), "no answer yet")
	c.ask(t.Context())
	assert.Equal(t, StateOK, c.State())
	assert.Equal(t, "example.com/NS", res.name.Load())
	res.fail.Store(true)
	c.ask(t.Context())
	assert.Equal(t, StateOK, c.State(), "one failure is a hiccup")
	c.ask(t.Context())
	assert.Equal(t, StateDown, c.State(), "two in a row are an outage")
	c.ask(t.Context())
	assert.Equal(t, int64(3), c.Failures())
	assert.Equal(t, 1, strings.Count(log.String(), "resolver canary failing"), log.String())
	assert.Contains(t, log.String(), `"reason":"servfail"`)
	before := res.asked.Load()
	for range 10 {
		c.State()
	}
	assert.Equal(t, before, res.asked.Load(), "State answers from the cache")

	res.fail.Store(false)
	c.ask(t.Context())
	c.ask(t.Context())
	assert.Equal(t, StateOK, c.State())
	assert.Equal(t, 1, strings.Count(log.String(), "resolver canary answers again"), log.String())
	assert.NotContains(t, log.String(), "example.com", "the log names no name")

	res.fail.Store(true)
	c.ask(t.Context())
	res.fail.Store(false)
	c.ask(t.Context())
	res.fail.Store(true)
	c.ask(t.Context())
	assert.Equal(t, StateOK, c.State(), "failures apart are not in a row")
	assert.Equal(t, 1, strings.Count(log.String(), "resolver canary failing"), "and not logged")
}

// TestCanaryDownAtStart: a resolver failing from the start is down, and
// logged once.
func TestCanaryDownAtStart(t *testing.T) {
	res := &switchResolver{}
	res.fail.Store(true)
	var log syncbuf.Buffer
	c := NewCanary(res, "", time.Hour, time.Second)
	c.Logger = slog.New(slog.NewJSONHandler(&log, nil))
	for range 3 {
		c.ask(t.Context())
		assert.Equal(t, StateDown, c.State())
	}
	assert.Equal(t, 1, strings.Count(log.String(), "resolver canary failing"), log.String())
}

// TestCanaryRun: Run asks at once and stops with its context.
func TestCanaryRun(t *testing.T) {
	res := &switchResolver{}
	c := NewCanary(res, "", time.Hour, time.Second)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	require.Eventually(t, func() bool { return c.State() == StateOK }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, "./NS", res.name.Load(), "the default canary is the root's NS")
	cancel()
	<-done
}

// metricNames are the series the service exports (doc/operations.md).
var metricNames = []string{
	"mailauth_http_requests_total", "mailauth_http_request_duration_seconds", "mailauth_diagnostic_duration_seconds", "mailauth_checks_total",
	"mailauth_dns_inconclusive_total", "mailauth_ratelimit_decisions_total", "mailauth_admissions_total", "mailauth_admission_wait_seconds",
	"mailauth_leak_guard_replacements_total", "mailauth_leak_guard_full_total", "mailauth_analytics_batch_seconds", "mailauth_build_info",
	"mailauth_ready", "mailauth_test_figure_total",
}

// TestMetricNames: every metric is served by the admin handler with its
// labels, fed through the Observer; undetermined checks and domain-side
// DNS faults are apart; a reason outside resolver's set is "other".
func TestMetricNames(t *testing.T) {
	m := NewMetrics("v1.2.3")
	var st atomic.Value
	st.Store(StateDegraded)
	r := NewReadiness(Component{"ratelimit", fixed(&st)})
	m.ReadinessGauges(r)
	m.CounterFunc("mailauth_test_figure_total", "A figure of another room.", func() float64 { return 7 })
	var obs httpapi.Observer = m
	obs.Request("/api/scan", 200, time.Millisecond)
	obs.Request("/api/scan", 500, 16*time.Second)
	obs.RateLimit("allowed")
	obs.Admission("busy", 2*time.Second)
	obs.Diagnostic("scan", time.Second, []httpapi.CheckOutcome{
		{ID: mailauth.CheckSPF, Status: mailauth.StatusPass},
		{ID: mailauth.CheckDMARC, Status: mailauth.StatusWarn, Determination: mailauth.UndeterminedLookup},
		{ID: mailauth.CheckTLSRPT, Status: mailauth.StatusFail, DNSFault: mailauth.DNSFaultNoAnswer},
	})
	m.Inconclusive(resolver.ReasonNoReachableAuthority, resolver.SideDomain)
	m.Inconclusive(resolver.ReasonServFail, resolver.SideService)
	m.Inconclusive(resolver.ReasonSlow, resolver.SideNone)
	m.Inconclusive(resolver.Reason("made-up"), resolver.SideNone)
	m.Leak(2)
	m.GuardFull()
	m.Batch(3, time.Millisecond, nil)
	srv := httptest.NewServer(AdminHandler(r, m))
	defer srv.Close()
	text := get(t, srv.URL+"/metrics")
	for _, n := range metricNames {
		assert.Contains(t, text, "\n"+n, n)
	}
	for _, series := range []string{
		`mailauth_http_requests_total{code="200",route="/api/scan"} 1`,
		`mailauth_checks_total{check="dmarc",determination="undetermined_lookup",dns_fault="none",status="warn"} 1`,
		`mailauth_checks_total{check="spf",determination="determined",dns_fault="none",status="pass"} 1`,
		`mailauth_checks_total{check="tls-rpt",determination="determined",dns_fault="no_answer",status="fail"} 1`,
		`mailauth_dns_inconclusive_total{reason="no_reachable_authority",side="domain"} 1`,
		`mailauth_dns_inconclusive_total{reason="servfail",side="service"} 1`,
		`mailauth_dns_inconclusive_total{reason="slow",side="none"} 1`,
		`mailauth_dns_inconclusive_total{reason="other",side="none"} 1`,
		"mailauth_leak_guard_full_total 1",
		`mailauth_http_request_duration_seconds_count{code="500",route="/api/scan"} 1`,
		`mailauth_http_request_duration_seconds_bucket{code="500",route="/api/scan",le="20"} 1`,
		`mailauth_http_request_duration_seconds_bucket{code="500",route="/api/scan",le="15"} 0`,
		`mailauth_admissions_total{outcome="busy"} 1`,
		`mailauth_leak_guard_replacements_total 2`,
		`mailauth_ready{component="ratelimit"} 0.5`,
		`mailauth_build_info{goversion=`,
		`mailauth_test_figure_total 7`,
	} {
		assert.Contains(t, text, series)
	}
	assert.Contains(t, get(t, srv.URL+"/livez"), `"status":"ok"`)
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return strings.ReplaceAll(string(b), "\r", "")
}

// TestInconclusiveLabels: every reason of resolver.Reasons is a label of
// its own (none is counted as "other"), so a reason the resolver adds is
// a series without any edit here.
func TestInconclusiveLabels(t *testing.T) {
	m := NewMetrics("v")
	for _, r := range resolver.Reasons() {
		m.Inconclusive(r, resolver.SideNone)
	}
	srv := httptest.NewServer(AdminHandler(NewReadiness(), m))
	defer srv.Close()
	text := get(t, srv.URL+"/metrics")
	require.NotEmpty(t, resolver.Reasons())
	for _, r := range resolver.Reasons() {
		assert.Contains(t, text, `mailauth_dns_inconclusive_total{reason="`+string(r)+`",side="none"} 1`)
	}
	assert.NotContains(t, text, `reason="other"`)
}

// probing is a resolver that answers every question with no data and
// reports the properties it is given.
type probing struct{ p atomic.Value }

func (r *probing) Lookup(context.Context, string, resolver.Type) resolver.Answer {
	return resolver.Answer{Outcome: resolver.NoData}
}

func (r *probing) Probe(context.Context, ...string) (resolver.Properties, error) {
	return r.p.Load().(resolver.Properties), nil
}

// TestCanaryProperties: the canary probes a Prober's properties each
// round: not recursing is not_recursive (down), not validating is
// not_validating; each change is logged once, the same finding again
// not at all.
func TestCanaryProperties(t *testing.T) {
	var log syncbuf.Buffer
	r := &probing{}
	r.p.Store(resolver.Properties{Recursive: true, Validating: true})
	c := NewCanary(r, "", time.Hour, time.Second)
	c.Logger = slog.New(slog.NewTextHandler(&log, nil))
	assert.Equal(t, StateUnknown, c.DNSSECState())
	c.ask(context.Background())
	assert.Equal(t, StateOK, c.State())
	assert.Equal(t, StateValidating, c.DNSSECState())
	r.p.Store(resolver.Properties{Recursive: true})
	c.ask(context.Background())
	c.ask(context.Background())
	assert.Equal(t, StateNotValidating, c.DNSSECState())
	assert.Equal(t, 1, strings.Count(log.String(), "does not validate DNSSEC"), log.String())
	r.p.Store(resolver.Properties{})
	c.ask(context.Background())
	c.ask(context.Background())
	assert.Equal(t, StateNotRecursive, c.State())
	assert.Equal(t, 1, strings.Count(log.String(), "does not offer recursion"), log.String())
	r.p.Store(resolver.Properties{Recursive: true, Validating: true})
	c.ask(context.Background())
	assert.Equal(t, StateOK, c.State())
	assert.Equal(t, StateValidating, c.DNSSECState())
	assert.Contains(t, log.String(), "validates DNSSEC: readiness dnssec validating")
}
