package mailauth

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mailauth/mailauth/resolver"
)

// What the Scanner knows of its resolver (resolver.Properties): learned
// at the first scan, by a probe that bypasses the shared cache, and kept.
const (
	// propsTTL is how long learned properties are trusted; past it the
	// next scan asks again in the background and goes on with them.
	propsTTL = 10 * time.Minute
	// propsRetry is how long after a probe no server replied to the
	// scans go on without asking again (the resolver is down: each scan
	// would otherwise wait for the probe before failing).
	propsRetry = 30 * time.Second
	// propsTimeout bounds one probe.
	propsTimeout = 5 * time.Second
)

// ErrResolverNotRecursive means the configured resolver does not offer
// recursion (an authoritative-only server: no RA bit in its replies): it
// answers only its own zones, so no scan through it means anything. It
// wraps ErrResolverUnavailable (the HTTP service answers 500).
var ErrResolverNotRecursive = fmt.Errorf("%w: the resolver does not offer recursion (an authoritative-only server?); give a recursive resolver", ErrResolverUnavailable)

// resolverProps is the Scanner's knowledge of its resolver.
type resolverProps struct {
	mu       sync.Mutex
	known    bool // p was learned
	p        resolver.Properties
	at       time.Time     // when the latest probe ended
	tried    bool          // a probe ended
	inflight chan struct{} // closed when the probe in flight ends; nil when none
}

// properties returns the resolver's Properties and whether they are
// known. The first call, and the first after a failed probe's
// propsRetry, waits for the probe (or ctx); later ones answer at once,
// asking again in the background every propsTTL. A Config.Resolver that
// is no resolver.Prober (a program's own) is taken for a validating
// recursive resolver, as it says with its answers' AD bit.
func (s *Scanner) properties(ctx context.Context) (resolver.Properties, bool) {
	prober, ok := s.cfg.Resolver.(resolver.Prober)
	if !ok {
		return resolver.Properties{Recursive: true, Validating: true}, true
	}
	rp := &s.props
	rp.mu.Lock()
	now := time.Now()
	switch {
	case rp.known && now.Sub(rp.at) < propsTTL,
		!rp.known && rp.tried && now.Sub(rp.at) < propsRetry:
		p, known := rp.p, rp.known
		rp.mu.Unlock()
		return p, known
	}
	if rp.inflight == nil {
		rp.inflight = make(chan struct{})
		go s.probe(prober)
	}
	wait := rp.inflight
	if rp.known { // stale: the scans go on with what is known
		p := rp.p
		rp.mu.Unlock()
		return p, true
	}
	rp.mu.Unlock()
	select {
	case <-wait:
	case <-ctx.Done():
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.p, rp.known
}

// probe asks the resolver's properties (the root's SOA and
// Config.ControlName's when set) and keeps them.
func (s *Scanner) probe(prober resolver.Prober) {
	ctx, cancel := context.WithTimeout(context.Background(), propsTimeout)
	defer cancel()
	var names []string
	if s.cfg.ControlName != "" {
		names = append(names, s.cfg.ControlName)
	}
	p, err := prober.Probe(ctx, names...)
	rp := &s.props
	rp.mu.Lock()
	defer rp.mu.Unlock()
	rp.at, rp.tried = time.Now(), true
	if err == nil {
		rp.p, rp.known = p, true
	}
	close(rp.inflight)
	rp.inflight = nil
}

// ResolverProperties returns what the resolver of the scans was found to
// do (resolver.Properties: does it recurse, does it validate DNSSEC) and
// whether that is known: false until a probe was answered. The first
// call asks (waiting for the answer or ctx's end), and the answer is kept
// for 10 minutes, then asked again in the background; after a probe no
// server replied to, the next 30 seconds do not ask again. Every scan
// calls it before it starts (see Scan); a program may call it at start,
// to refuse a resolver that does not recurse. A Config.Resolver that is
// no resolver.Prober is taken for a validating recursive resolver.
func (s *Scanner) ResolverProperties(ctx context.Context) (resolver.Properties, bool) {
	return s.properties(ctx)
}

// learnResolver sets what the scan knows of the resolver, and returns
// ErrResolverNotRecursive when the resolver was found not to recurse. A
// scan waits for the first probe at most a quarter of its time, outside
// ScanTimeout. Unknown properties (no reply yet) leave dnssecValidating
// false: the scan then says nothing about DNSSEC, and finds out on its
// own whether the resolver answers.
func (r *run) learnResolver(ctx context.Context, s *Scanner) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ScanTimeout/4)
	defer cancel()
	p, known := s.properties(ctx)
	if known && !p.Recursive {
		return ErrResolverNotRecursive
	}
	r.dnssecValidating = known && p.Validating
	return nil
}
