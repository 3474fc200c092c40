package httpapi

import (
	"context"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/mailauth/mailauth"
)

// Fair admission of diagnostics (RELIABILITY.md, "The admission model").
// The MaxInFlight slots are shared between sources so that no coalition
// of sources can starve a source that has nothing in flight:
//
//   - each source (an IPv4 address or an IPv6 /64, the rate-limit key) and
//     each IPv6 /56 and /48 has a cap on its diagnostics in flight;
//   - half of the slots are a reserve that only a fresh request may take:
//     one whose source, /56 and /48 have nothing in flight. A source's
//     second and third diagnostics run in the other half only, so an
//     attacker holds at most one slot of the reserve per IPv4 address or
//     IPv6 /48;
//   - a fresh diagnostic runs with the full scan deadline, a source's
//     second and third with laterDeadline;
//   - each source, /56 and /48 has a budget of diagnostic time per window,
//     charged at admission with the whole deadline and refunded with what
//     the diagnostic did not use; a spent budget is a 429 with
//     Retry-After;
//   - waiting requests are served round-robin between sources.
const (
	// DefaultSourceInFlight caps the diagnostics one source runs at once.
	// An interactive client (the web page, the CLI) runs one; three leave
	// room for a retry or a second tab.
	DefaultSourceInFlight = 3
	// networkInFlight56 and networkInFlight48 cap the diagnostics in
	// flight of all sources of one IPv6 /56 and /48: a subscriber's
	// delegated prefix (RFC 6177 suggests a /56 or /48 per end site)
	// holds up to 256 or 65,536 /64s, each of which would otherwise get
	// DefaultSourceInFlight slots. Their time budgets are as many times a
	// source's as their caps are.
	networkInFlight56 = 2 * DefaultSourceInFlight
	networkInFlight48 = 4 * DefaultSourceInFlight
	// DefaultSourceBudget is the diagnostic time one source may use per
	// DefaultRateWindow: one slot's worth. A scan usually takes well under
	// a second; a domain made to answer slowly takes the whole scan
	// deadline, and after a few of those its source's later diagnostics
	// get a shorter deadline (what is left of the budget), then none.
	DefaultSourceBudget = DefaultRateWindow
	// minBudgetLeft is the least budget a diagnostic is started with; a
	// source (or network) with less left is refused (429 with
	// Retry-After) until its window ends.
	minBudgetLeft = time.Second
	// firstDeadline is the deadline of a fresh diagnostic (one whose
	// source and networks had nothing in flight): the scan's own, and a
	// second for the scan to report what its deadline cut (checks that
	// did not finish, lookups the domain left unanswered) rather than
	// being canceled from outside at the same instant.
	firstDeadline = mailauth.DefaultScanTimeout + time.Second
	// laterDeadline is the deadline of a source's second and third
	// concurrent diagnostics: a scan of a domain that answers takes well
	// under a second, so this only cuts scans of domains made to answer
	// slowly, which then free their slot three times sooner.
	laterDeadline = 5 * time.Second
)

// reserveOf is the number of slots of total kept for fresh requests: half.
func reserveOf(total int) int { return total / 2 }

// admission is one request's place in the scheduler: its source key and
// the keys of every group whose in-flight cap applies to it.
type admission struct {
	source string
	groups []capKey
}

// capKey is a group and its in-flight cap.
type capKey struct {
	key string
	cap int
}

// admissionFor returns the groups of a client address: the source itself
// and, for IPv6, its /56 and /48.
func admissionFor(a netip.Addr, perSource int) admission {
	return admission{source: limitKey(a), groups: sourceGroups(a, perSource, networkInFlight56, networkInFlight48)}
}

// networkGroupPrefix starts the key of an IPv6 network group; a source
// group's key is "src " and the source's limit key.
const networkGroupPrefix = "net "

// sourceGroups returns the capped groups of a client address with their
// caps: its source (limitKey) and, for IPv6, its /56 and /48.
func sourceGroups(a netip.Addr, perSource, per56, per48 int) []capKey {
	groups := []capKey{{"src " + limitKey(a), perSource}}
	if a = a.Unmap(); a.Is6() {
		groups = append(groups,
			capKey{networkGroupPrefix + netip.PrefixFrom(a, 56).Masked().String(), per56},
			capKey{networkGroupPrefix + netip.PrefixFrom(a, 48).Masked().String(), per48})
	}
	return groups
}

// waiter is a queued request; ready is closed when it is granted a slot.
type waiter struct {
	ad      admission
	ready   chan struct{}
	granted bool
	fresh   bool // granted as a fresh request (see scheduler.fresh)
}

// scheduler hands out the global diagnostic slots: at once when a slot is
// free and none of the request's groups is at its cap, else in
// round-robin order between the sources that have requests waiting. All
// its state is per group or per waiting request and is dropped when they
// end, so its memory follows the requests in flight.
type scheduler struct {
	mu       sync.Mutex
	free     int
	reserve  int                  // slots only a fresh request may take
	inFlight map[string]int       // by group key
	queues   map[string][]*waiter // by source, oldest first
	ring     []string             // sources with waiters, in turn order
	next     int                  // index in ring of the next turn
	peak     int                  // most keys queues has held since it was last rebuilt
}

func newScheduler(slots int) *scheduler {
	return &scheduler{free: slots, reserve: reserveOf(slots), inFlight: map[string]int{}, queues: map[string][]*waiter{}}
}

// acquire waits at most wait for a slot. The returned func gives it back;
// fresh reports whether the slot was taken as a fresh request.
func (s *scheduler) acquire(ctx context.Context, ad admission, wait time.Duration) (release func(), fresh bool, e *apiError) {
	release = func() { s.release(ad) }
	s.mu.Lock()
	if len(s.queues[ad.source]) == 0 && s.admissible(ad) {
		fresh = s.take(ad)
		s.mu.Unlock()
		return release, fresh, nil
	}
	w := &waiter{ad: ad, ready: make(chan struct{})}
	s.enqueue(w)
	s.mu.Unlock()

	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-w.ready:
		return release, w.fresh, nil
	case <-t.C:
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.granted { // granted while giving up: hand the slot on
		s.giveBack(ad)
		s.dispatch()
	} else {
		s.dequeue(w)
	}
	if ctx.Err() != nil {
		return nil, false, &errCanceledRequest
	}
	return nil, false, &errBusy
}

// fresh reports whether none of ad's groups (its source and, for IPv6,
// its /56 and /48) has a diagnostic in flight. Called with mu held.
func (s *scheduler) fresh(ad admission) bool {
	for _, g := range ad.groups {
		if s.inFlight[g.key] > 0 {
			return false
		}
	}
	return true
}

// admissible reports whether ad may take a slot now: one is free (beyond
// the reserve, unless ad is fresh) and none of its groups is at its cap.
// Called with mu held.
func (s *scheduler) admissible(ad admission) bool {
	if s.free <= 0 {
		return false
	}
	if s.fresh(ad) {
		return true
	}
	if s.free <= s.reserve {
		return false
	}
	for _, g := range ad.groups {
		if s.inFlight[g.key] >= g.cap {
			return false
		}
	}
	return true
}

// take and giveBack count a slot in and out; take reports whether the
// slot was taken fresh. Called with mu held.
func (s *scheduler) take(ad admission) bool {
	fresh := s.fresh(ad)
	s.free--
	for _, g := range ad.groups {
		s.inFlight[g.key]++
	}
	return fresh
}

func (s *scheduler) giveBack(ad admission) {
	s.free++
	for _, g := range ad.groups {
		if s.inFlight[g.key]--; s.inFlight[g.key] <= 0 {
			delete(s.inFlight, g.key)
		}
	}
}

func (s *scheduler) release(ad admission) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.giveBack(ad)
	s.dispatch()
}

// enqueue appends w to its source's queue, giving the source a turn in
// the ring if it had none. Called with mu held.
func (s *scheduler) enqueue(w *waiter) {
	q := s.queues[w.ad.source]
	if len(q) == 0 {
		s.ring = append(s.ring, w.ad.source)
	}
	s.queues[w.ad.source] = append(q, w)
	s.peak = max(s.peak, len(s.queues))
}

// dequeue removes a waiter that gave up. Called with mu held.
func (s *scheduler) dequeue(w *waiter) {
	q := s.queues[w.ad.source]
	for i, x := range q {
		if x == w {
			q = append(q[:i:i], q[i+1:]...)
			break
		}
	}
	s.setQueue(w.ad.source, q)
}

// setQueue stores a source's queue, dropping the source from the ring
// when the queue is empty. Called with mu held.
func (s *scheduler) setQueue(src string, q []*waiter) {
	if len(q) > 0 {
		s.queues[src] = q
		return
	}
	delete(s.queues, src)
	if len(s.queues) == 0 && s.peak > rebuildMin {
		s.queues, s.peak = map[string][]*waiter{}, 0 // Go maps never shrink
	}
	for i, x := range s.ring {
		if x == src {
			s.ring = append(s.ring[:i:i], s.ring[i+1:]...)
			if s.next > i {
				s.next--
			}
			break
		}
	}
	if s.next >= len(s.ring) {
		s.next = 0
	}
}

// dispatch grants free slots to waiting sources in turn: each source with
// an admissible oldest request gets one slot per round. Called with mu
// held.
func (s *scheduler) dispatch() {
	for s.free > 0 && len(s.ring) > 0 {
		granted := false
		for range len(s.ring) {
			if s.free <= 0 || len(s.ring) == 0 {
				return
			}
			src := s.ring[s.next]
			q := s.queues[src]
			if !s.admissible(q[0].ad) {
				s.next = (s.next + 1) % len(s.ring)
				continue
			}
			w := q[0]
			w.fresh = s.take(w.ad)
			w.granted = true
			close(w.ready)
			granted = true
			s.next = (s.next + 1) % len(s.ring)
			s.setQueue(src, q[1:])
		}
		if !granted {
			return
		}
	}
}

// waiting returns the number of queued requests (tests).
func (s *scheduler) waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, q := range s.queues {
		n += len(q)
	}
	return n
}

// fairness is the handler's admission state: the scheduler, the
// per-source budgets and the aggregate rate limits.
type fairness struct {
	sched     *scheduler
	perSource int
	budgets   *budgets
	networks  []NetworkLimit
}

// newFairness builds the admission state for slots global slots.
func newFairness(slots int, opts Options) fairness {
	f := fairness{sched: newScheduler(slots), perSource: opts.SourceInFlight, networks: opts.NetworkLimits}
	if f.perSource <= 0 {
		f.perSource = DefaultSourceInFlight
	}
	budget := opts.SourceBudget
	if budget == 0 {
		budget = DefaultSourceBudget
	}
	f.budgets = newBudgets(budget, DefaultMaxKeys, time.Now)
	if f.networks == nil {
		f.networks = defaultNetworkLimits(opts.Limiter)
	}
	return f
}

// admit takes a diagnostic slot for r (step 7): its source and networks
// must have budget left and room under their in-flight caps; it then
// waits its turn for a global slot, at most QueueWait. The returned
// context carries the diagnostic's deadline (firstDeadline for a fresh
// request, laterDeadline otherwise, at most the budget left), which is
// charged to the budgets at once, and the source's key as the scan's
// source tag (mailauth.WithSource); the returned func refunds what was
// not used and gives the slot back. A spent budget is errSourceBudget,
// with the wait until it renews in retry.
func (h *handler) admit(r *http.Request) (ctx context.Context, done func(), retry time.Duration, e *apiError) {
	ad := admissionFor(sourceIP(r, h.proxies), h.perSource)
	if wait := h.budgets.spent(ad.groups, h.perSource); wait > 0 {
		return nil, nil, wait, &errSourceBudget
	}
	release, fresh, e := h.sched.acquire(r.Context(), ad, h.wait)
	if e != nil {
		return nil, nil, 0, e
	}
	want := laterDeadline
	if fresh {
		want = firstDeadline
	}
	c, wait := h.budgets.charge(ad.groups, h.perSource, want)
	if c == nil {
		release()
		return nil, nil, wait, &errSourceBudget
	}
	deadline := want // budgets disabled: the deadline still depends on freshness
	if c.granted > 0 {
		deadline = c.granted
	}
	// The source tag lets the scanner's alarms be limited per source
	// (mailauth.WithSource).
	ctx, cancel := context.WithTimeout(mailauth.WithSource(r.Context(), ad.source), deadline)
	start := time.Now()
	return ctx, func() {
		cancel()
		h.budgets.refund(c, time.Since(start))
		release()
	}, 0, nil
}

// setRetryAfter sets Retry-After to wait rounded up to whole seconds.
func setRetryAfter(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(wait)))
}
