package ops

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/mailauth/mailauth/resolver"
)

// State is one component's readiness.
type State string

// The states of a component and of the whole service.
const (
	StateOK       State = "ok"       // working as configured
	StateDegraded State = "degraded" // working with reduced guarantees (e.g. per-instance rate limits)
	StateDown     State = "down"     // not working: the instance should get no traffic
)

// Component is one dependency whose state readiness reports. Check must
// return at once (a cached state).
type Component struct {
	Name  string
	Check func() State
}

// Readiness combines the components' states: down when any is down,
// degraded when any is degraded, else ok.
type Readiness struct {
	components []Component
}

// NewReadiness returns the readiness of cs.
func NewReadiness(cs ...Component) *Readiness { return &Readiness{components: cs} }

// Report is the body of the readiness endpoint.
type Report struct {
	Status     State            `json:"status"`
	Components map[string]State `json:"components"`
}

// Report reads every component once.
func (r *Readiness) Report() Report {
	rep := Report{Status: StateOK, Components: make(map[string]State, len(r.components))}
	for _, c := range r.components {
		s := c.Check()
		rep.Components[c.Name] = s
		switch {
		case s == StateDown:
			rep.Status = StateDown
		case s == StateDegraded && rep.Status == StateOK:
			rep.Status = StateDegraded
		}
	}
	return rep
}

// ServeHTTP answers the report as JSON: 200 when ok or degraded (the
// instance serves), 503 when down.
func (r *Readiness) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	rep := r.Report()
	code := http.StatusOK
	if rep.Status == StateDown {
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, rep)
}

// writeJSON writes v as a JSON answer.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// Canary defaults.
const (
	// DefaultCanaryName is asked when no name is configured: the root's
	// NS set, which every working recursive resolver answers.
	DefaultCanaryName = "."
	// DefaultCanaryInterval is how long a canary's answer is trusted.
	DefaultCanaryInterval = 10 * time.Second
	// DefaultCanaryTimeout bounds one canary question.
	DefaultCanaryTimeout = 3 * time.Second
)

// Canary asks the resolver one fixed question every interval in the
// background and keeps the outcome: the resolver is ok when it gave a
// conclusive answer (records, no data, or no such name), down when it
// timed out, was unreachable, refused or failed (SERVFAIL). State never
// waits; it is down until the first answer.
type Canary struct {
	res      resolver.Resolver
	name     string
	interval time.Duration
	timeout  time.Duration
	ok       atomic.Bool
	checked  atomic.Int64 // canary questions asked
	failed   atomic.Int64 // of which failed
}

// NewCanary returns a canary asking res for the NS records of name
// (empty: DefaultCanaryName); zero durations take the defaults.
func NewCanary(res resolver.Resolver, name string, interval, timeout time.Duration) *Canary {
	if name == "" {
		name = DefaultCanaryName
	}
	if interval <= 0 {
		interval = DefaultCanaryInterval
	}
	if timeout <= 0 {
		timeout = DefaultCanaryTimeout
	}
	return &Canary{res: res, name: name, interval: interval, timeout: timeout}
}

// Run asks the question at once, then every interval, until ctx ends.
func (c *Canary) Run(ctx context.Context) {
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		c.ask(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// ask asks the question once and keeps the outcome.
func (c *Canary) ask(ctx context.Context) {
	qctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	a := c.res.Lookup(qctx, c.name, resolver.TypeNS)
	if ctx.Err() != nil {
		return
	}
	c.checked.Add(1)
	c.ok.Store(a.Conclusive())
	if !a.Conclusive() {
		c.failed.Add(1)
	}
}

// State is ok after a conclusive answer, else down.
func (c *Canary) State() State {
	if c.ok.Load() {
		return StateOK
	}
	return StateDown
}

// Failures is the number of canary questions that failed so far.
func (c *Canary) Failures() int64 { return c.failed.Load() }
