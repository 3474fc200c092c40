package ops

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
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

// The states that name a resolver's properties (resolver.Properties).
// Each counts as one of the three above in the service's status (see
// Level).
const (
	// StateNotRecursive: the resolver answers but does not offer
	// recursion (an authoritative-only server); counts as down.
	StateNotRecursive State = "not_recursive"
	// StateValidating: the resolver validates DNSSEC; counts as ok.
	StateValidating State = "validating"
	// StateNotValidating: the resolver does not validate DNSSEC, so
	// DNSSEC failures cannot be seen; counts as ok (the instance serves
	// as well as it ever can through that resolver: the state is the
	// deployment's, and the metric and the log say it).
	StateNotValidating State = "not_validating"
	// StateUnknown: not learned yet (the resolver has not answered);
	// counts as ok (the resolver component says down meanwhile).
	StateUnknown State = "unknown"
)

// Level is the state s counts as in the service's status: StateOK,
// StateDegraded or StateDown.
func (s State) Level() State {
	switch s {
	case StateDegraded:
		return StateDegraded
	case StateDown, StateNotRecursive:
		return StateDown
	}
	return StateOK
}

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
		switch s.Level() {
		case StateDown:
			rep.Status = StateDown
		case StateDegraded:
			if rep.Status == StateOK {
				rep.Status = StateDegraded
			}
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
	// CanaryDownAfter is how many canary questions in a row must fail
	// before the resolver is down: the instances of a deployment share
	// one resolver, and a single hiccup of it must not take every
	// instance out of rotation at once. After one failure the next
	// question follows after a fifth of the interval, so an outage is
	// still seen within about an interval.
	CanaryDownAfter = 2
)

// Canary asks the resolver one fixed question every interval in the
// background and keeps the outcome: the resolver is ok after a
// conclusive answer (records, no data, or no such name), down once
// CanaryDownAfter questions in a row timed out, were unreachable,
// refused or failed (SERVFAIL). State never waits; it is down until the
// first conclusive answer.
//
// When the resolver is a resolver.Prober (a resolver.Client), each round
// also probes its properties: State says StateNotRecursive for one that
// does not recurse, and DNSSECState whether it validates.
type Canary struct {
	res      resolver.Resolver
	prober   resolver.Prober // nil: the properties are not probed
	name     string
	interval time.Duration
	timeout  time.Duration
	// Logger, when set before Run, receives one record when the resolver
	// turns down and one when it answers again (never one per
	// question), and one each time its properties change; nil means
	// none.
	Logger  *slog.Logger
	ok      atomic.Bool
	checked atomic.Int64 // canary questions asked
	failed  atomic.Int64 // of which failed

	propsMu sync.Mutex
	props   resolver.Properties
	known   bool // props was learned

	// Used by the goroutine that asks only.
	streak  int  // questions failed in a row
	failing bool // the last record said "failing"
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
	c := &Canary{res: res, name: name, interval: interval, timeout: timeout}
	c.prober, _ = res.(resolver.Prober)
	return c
}

// Learn records the resolver's properties (from the canary's own probe,
// or one made at start), logging a change: one WARN when the resolver
// turns out not to validate DNSSEC (its failures cannot be seen) or not
// to recurse, one INFO when it validates again.
func (c *Canary) Learn(p resolver.Properties) {
	c.propsMu.Lock()
	old, known := c.props, c.known
	c.props, c.known = p, true
	c.propsMu.Unlock()
	switch {
	case p.Recursive != old.Recursive || !known:
		if !p.Recursive {
			c.log(slog.LevelWarn, "the resolver does not offer recursion (an authoritative-only server?): readiness resolver not_recursive; give -dns a recursive resolver")
			return
		}
		if known {
			c.log(slog.LevelInfo, "the resolver offers recursion again")
		}
	}
	switch {
	case p.Validating && known && !old.Validating:
		c.log(slog.LevelInfo, "the resolver validates DNSSEC: readiness dnssec validating")
	case !p.Validating && (!known || old.Validating):
		c.log(slog.LevelWarn, "the resolver does not validate DNSSEC: DNSSEC failures cannot be seen, and no scan says a domain's records are validated; give -dns a validating recursive resolver (doc/operations.md)")
	}
}

// Run asks the question at once, then every interval (a fifth of it
// after a first failure), until ctx ends.
func (c *Canary) Run(ctx context.Context) {
	t := time.NewTimer(c.interval)
	defer t.Stop()
	for {
		c.ask(ctx)
		next := c.interval
		if c.streak > 0 && c.streak < CanaryDownAfter {
			next = c.interval / 5
		}
		t.Reset(next)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// ask asks the question once and keeps the outcome, and probes the
// resolver's properties.
func (c *Canary) ask(ctx context.Context) {
	qctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	a := c.res.Lookup(qctx, c.name, resolver.TypeNS)
	if ctx.Err() != nil {
		return
	}
	if c.prober != nil && a.Conclusive() {
		pctx, cancel := context.WithTimeout(ctx, c.timeout)
		p, err := c.prober.Probe(pctx, c.name)
		cancel()
		if err == nil {
			c.Learn(p)
		}
	}
	c.checked.Add(1)
	if a.Conclusive() {
		c.streak = 0
		c.ok.Store(true)
		if c.failing {
			c.failing = false
			c.log(slog.LevelInfo, "resolver canary answers again: readiness resolver ok")
		}
		return
	}
	c.failed.Add(1)
	c.streak++
	if c.streak < CanaryDownAfter {
		return
	}
	c.ok.Store(false)
	if !c.failing {
		c.failing = true
		c.log(slog.LevelWarn, "resolver canary failing: readiness resolver down",
			slog.Int("failedInARow", c.streak), slog.String("reason", string(a.Reason)))
	}
}

// log writes one record if a Logger is set.
func (c *Canary) log(level slog.Level, msg string, attrs ...slog.Attr) {
	if c.Logger != nil {
		c.Logger.LogAttrs(context.Background(), level, msg, attrs...)
	}
}

// State is ok after a conclusive answer, until CanaryDownAfter questions
// in a row fail; down before the first conclusive answer and after that;
// not_recursive while the resolver was found not to recurse.
func (c *Canary) State() State {
	c.propsMu.Lock()
	notRecursive := c.known && !c.props.Recursive
	c.propsMu.Unlock()
	switch {
	case notRecursive:
		return StateNotRecursive
	case c.ok.Load():
		return StateOK
	}
	return StateDown
}

// DNSSECState is validating or not_validating as the resolver was last
// found, unknown before that.
func (c *Canary) DNSSECState() State {
	c.propsMu.Lock()
	defer c.propsMu.Unlock()
	switch {
	case !c.known:
		return StateUnknown
	case c.props.Validating:
		return StateValidating
	}
	return StateNotValidating
}

// Failures is the number of canary questions that failed so far.
func (c *Canary) Failures() int64 { return c.failed.Load() }
