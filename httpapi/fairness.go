package httpapi

import (
	"context"
	"math"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mailauth/mailauth"
)

// Fair admission of diagnostics (RELIABILITY.md, "The admission model").
// The MaxInFlight slots are shared between sources so that no coalition
// of sources can starve a source that has nothing in flight and used
// little recently:
//
//   - each source (an IPv4 address or an IPv6 /64, the rate-limit key) and
//     each IPv6 /56 and /48 has a cap on its diagnostics in flight;
//   - half of the slots are a reserve that only a fresh request may take:
//     one whose source, /56 and /48 have nothing in flight and less than
//     freshLimit of recent slow slot time (usage.go). A source's second
//     and third diagnostics, and those of a source that held a slot for
//     seconds lately, run in the other half only, so an attacker holds at
//     most one slot of the reserve per IPv4 address or IPv6 /48, and then
//     none for minutes;
//   - slots that come back go to fresh waiting requests first, the least
//     recent slow slot time first;
//   - while fresh requests wait, a diagnostic with no progress (a DNS
//     reply, a step of its MTA-STS policy fetch) for noProgressAfter has
//     its deadline cut and its slot given back for each; while other
//     requests wait or the pool is nearly full, one that never had any
//     in noProgressAfter since its start;
//   - a diagnostic whose groups have nothing in flight runs with the full
//     scan deadline, a source's second and third with laterDeadline;
//   - each source, /56 and /48 has a budget of diagnostic time per window,
//     charged at admission with the whole deadline and refunded with what
//     the diagnostic did not use; a spent budget is a 429 with
//     Retry-After;
//   - waiting requests are served round-robin between sources;
//   - while a quarter of the slots or more are in flight, requests that are not
//     fresh are granted slots one per grantGap (after a pause grantBurst
//     at once), so that slots coming back together do not start scans
//     together; fresh requests are granted at once.
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

// The no-progress cut (RELIABILITY.md, "The admission model").
const (
	// noProgressAfter is how long a diagnostic may go without progress
	// (a DNS reply, a step of its policy fetch) before, when slots run
	// short, its deadline may be cut (scheduler.stalled): a domain that
	// has answered nothing for that long is made to be slow, and its scan
	// would end with those lookups unanswered anyway.
	noProgressAfter = 3 * time.Second
	// cutTick is how often, while slots run short, the diagnostics in
	// flight are looked at for the cut.
	cutTick = 250 * time.Millisecond
	// headroomCuts is how many diagnostics one look of the cut timer
	// cuts at most for headroom (beyond those cut for fresh waiting
	// requests), and only those looks cut for headroom (not the one a
	// request makes when it has to wait): 32 a second. Slots freed for
	// headroom are granted at once to whoever waits, so the cap keeps
	// each train of admissions a look starts small: the scans of a train
	// start, retry and end together, hundreds of goroutines runnable at
	// once ahead of a visitor's (RELIABILITY.md, "Where the tail is").
	headroomCuts = 8
)

// The pace of grants. While a quarter of the slots or more are in flight
// (scheduler.busy), slots are granted to requests that are not fresh one
// per grantGap, one a millisecond: about twice the most the service scans
// in a second on two cores. Slots come back in trains (scans started
// together end together at their deadline; a look of the cut timer frees
// up to headroomCuts at once beyond those it cuts for fresh waiting
// requests), and a train of grants is a train of scan
// starts, about ten goroutines each, runnable at once ahead of a
// visitor's; the scans of a train end together again a deadline later,
// so a train that is granted at once lives on. Fresh requests (a
// visitor's) are granted at once whatever the pace. After a pause the
// pace lets grantBurst through at once, and so does a pace timer that
// fires late on a busy machine: the pace catches up by that many, no
// more, so that a late timer does not slow admission to one grant per
// wake-up.
const (
	grantGap   = time.Millisecond
	grantBurst = 4
)

// watch lets the scheduler see a diagnostic's progress and cut it.
type watch struct {
	// lastReply returns when the diagnostic last made progress (a DNS
	// reply, a step of its policy fetch; the zero Time when never); nil
	// means never. It is called with the
	// scheduler's lock held and must not block.
	lastReply func() time.Time
	// cut ends the diagnostic's deadline now; it is called without the
	// scheduler's lock.
	cut func()
}

// slot is one diagnostic in flight.
type slot struct {
	ad    admission
	start time.Time
	watch *watch
	cut   bool // cut for want of progress (and given back at once)
}

// waiter is a queued request; ready is closed when it is granted a slot.
type waiter struct {
	ad      admission
	watch   *watch
	ready   chan struct{}
	granted *slot
	idle    bool // granted while its groups had nothing in flight (see scheduler.idle)
}

// scheduler hands out the global diagnostic slots: at once when a slot is
// free and the request may take it, else, as slots come back, first to
// the fresh request whose groups used least slot time recently (among
// equals, served least recently), then in round-robin order between the
// sources that have requests waiting. While slots run short it cuts the
// deadline of diagnostics that have had no progress for noProgressAfter,
// longest first (stalled). All its state is per
// group, per diagnostic in flight or per waiting request and is dropped
// when they end (the recent slot time after it decays), so its memory
// follows the requests.
type scheduler struct {
	now func() time.Time

	mu       sync.Mutex
	total    int
	free     int
	reserve  int                  // slots only a fresh request may take
	inFlight map[string]int       // by group key
	queues   map[string][]*waiter // by source, oldest first
	ring     []string             // sources with waiters, in turn order
	next     int                  // index in ring of the next turn
	peak     int                  // most keys queues has held since it was last rebuilt
	queued   int                  // waiters in queues
	usage    *usage               // recent slot time by group
	held     map[*slot]struct{}   // diagnostics in flight
	ticking  bool                 // the cut timer is armed
	cuts     int                  // diagnostics cut since the start
	gap      time.Duration        // grantGap (0: no pace)
	paced    time.Time            // the pace's next grant, on the real clock (see paceNext)
	pacing   bool                 // the pace timer is armed
	// busiest is the most diagnostics in flight since memory was last
	// returned; ret, when set, is asked to return memory once they fall
	// from returnAt or more to an eighth of it (see giveBack).
	busiest  int
	returnAt int
	ret      *MemoryReturner
}

// returnMemoryScans is the number of diagnostics in flight from which
// their fall to an eighth of it returns memory to the system (a
// MemoryReturner): each scan in flight holds about 110 KB of heap and
// stacks (BENCHMARKS.md), and under serve's collector settings (GOGC 400)
// the heap may grow to five times what is live, so 64 scans leave up to
// about 35 MB behind them for minutes once they end, more than the idle
// service's whole resident set.
const returnMemoryScans = 64

func newScheduler(slots int) *scheduler {
	return &scheduler{now: time.Now, total: slots, free: slots, reserve: reserveOf(slots), inFlight: map[string]int{},
		queues: map[string][]*waiter{}, usage: newUsage(), held: map[*slot]struct{}{}, gap: grantGap,
		returnAt: returnMemoryScans}
}

// acquire waits at most wait for a slot. The returned func gives it back;
// idle reports whether the request's groups had nothing in flight when it
// was granted (such a diagnostic gets the whole deadline). w, when not
// nil, lets the scheduler cut the diagnostic for want of progress.
func (s *scheduler) acquire(ctx context.Context, ad admission, wait time.Duration, w *watch) (release func(), idle bool, e *apiError) {
	s.mu.Lock()
	if now := s.now(); len(s.queues[ad.source]) == 0 && s.admissible(ad, now) && s.paceFor(ad, now) {
		sl, idle := s.take(ad, w)
		s.armCut()
		s.mu.Unlock()
		return func() { s.release(sl) }, idle, nil
	}
	wt := &waiter{ad: ad, watch: w, ready: make(chan struct{})}
	s.enqueue(wt)
	s.dispatch() // a request the pace held back takes its turn now, or the pace timer's
	if wt.granted != nil {
		s.armCut()
		s.mu.Unlock()
		return func() { s.release(wt.granted) }, wt.idle, nil
	}
	cuts := s.stalled(false)
	s.armCut()
	s.mu.Unlock()
	runCuts(cuts)

	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-wt.ready:
		return func() { s.release(wt.granted) }, wt.idle, nil
	case <-t.C:
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if wt.granted != nil { // granted while giving up: hand the slot on
		s.giveBack(wt.granted)
		s.dispatch()
	} else {
		s.dequeue(wt)
	}
	if ctx.Err() != nil {
		return nil, false, &errCanceledRequest
	}
	return nil, false, &errBusy
}

// idle reports whether none of ad's groups (its source and, for IPv6,
// its /56 and /48) has a diagnostic in flight. Called with mu held.
func (s *scheduler) idle(ad admission) bool {
	for _, g := range ad.groups {
		if s.inFlight[g.key] > 0 {
			return false
		}
	}
	return true
}

// fresh reports whether ad may take the reserve: none of its groups has
// a diagnostic in flight, and none used freshLimit or more of slow slot
// time recently (beyond quickHold per diagnostic, decayed with
// usageDecay). Called with mu held.
func (s *scheduler) fresh(ad admission, now time.Time) bool {
	return s.idle(ad) && s.usage.recent(ad.groups, now) < freshLimit.Seconds()
}

// admissible reports whether ad may take a slot now: one is free (beyond
// the reserve, unless ad is fresh) and none of its groups is at its cap.
// Called with mu held.
func (s *scheduler) admissible(ad admission, now time.Time) bool {
	if s.free <= 0 {
		return false
	}
	if s.fresh(ad, now) {
		return true
	}
	return s.free > s.reserve && !s.atCap(ad)
}

// take and giveBack count a slot in and out; take reports whether ad's
// groups were idle. Called with mu held.
func (s *scheduler) take(ad admission, w *watch) (*slot, bool) {
	idle := s.idle(ad)
	s.free--
	for _, g := range ad.groups {
		s.inFlight[g.key]++
	}
	sl := &slot{ad: ad, start: s.now(), watch: w}
	s.held[sl] = struct{}{}
	s.busiest = max(s.busiest, len(s.held))
	return sl, idle
}

func (s *scheduler) giveBack(sl *slot) {
	if _, ok := s.held[sl]; !ok {
		return // given back when it was cut
	}
	s.free++
	for _, g := range sl.ad.groups {
		if s.inFlight[g.key]--; s.inFlight[g.key] <= 0 {
			delete(s.inFlight, g.key)
		}
	}
	delete(s.held, sl)
	now := s.now()
	s.usage.add(sl.ad.groups, max(now.Sub(sl.start)-quickHold, 0), now)
	if s.ret != nil && s.busiest >= s.returnAt && len(s.held) <= s.busiest/8 {
		// A burst of scans has ended: what they allocated is garbage,
		// which the collector would keep as heap for minutes.
		s.busiest = len(s.held)
		s.ret.request()
	}
}

func (s *scheduler) release(sl *slot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.giveBack(sl)
	s.dispatch()
}

// nearlyFullOf is the number of free slots at or under which the pool of
// total counts as nearly full: a sixteenth, at least one.
func nearlyFullOf(total int) int { return max(total/16, 1) }

// pressed reports whether slots run short: the pool is nearly full, or
// requests are waiting. Called with mu held.
func (s *scheduler) pressed() bool {
	return s.free <= nearlyFullOf(s.total) || s.queued > 0
}

// freshWaiting returns the number of sources whose oldest waiting request
// is fresh: the waiting requests a freed slot can always be granted to.
// The others may take only a slot beyond the reserve (and one at its own
// in-flight cap none at all), so they cut nothing. Called with mu held.
func (s *scheduler) freshWaiting(now time.Time) int {
	n := 0
	for _, src := range s.ring {
		if s.fresh(s.queues[src][0].ad, now) {
			n++
		}
	}
	return n
}

// atCap reports whether one of ad's groups is at its in-flight cap.
// Called with mu held.
func (s *scheduler) atCap(ad admission) bool {
	for _, g := range ad.groups {
		if s.inFlight[g.key] >= g.cap {
			return true
		}
	}
	return false
}

// stalled picks, while slots run short, the diagnostics to cut, in two
// tiers, each longest without progress first:
//
//   - for the fresh waiting requests (the only ones a freed slot can
//     always be granted to), as many as they lack, among the diagnostics
//     with no progress (a DNS reply, a step of the policy fetch) for
//     noProgressAfter;
//   - for the other waiting requests and to leave the pool no longer
//     nearly full, as many more as that takes, only in the looks of
//     the cut timer (headroom) and at most headroomCuts a look (the
//     headroom comes back over a few looks), among the diagnostics that
//     never had any in noProgressAfter since their start: a domain
//     that answered nothing at all is made to be slow (or gone), and its
//     scan would end with those lookups unanswered anyway. A scan that
//     had replies and then waits (one slow name server) is not cut for
//     headroom, nor for a waiting request that could not take the slot:
//     slots held by scans that keep replying (an attacker's dripping
//     answers) never make it the one cut.
//
// Their slots are given back at once (and granted to the waiting
// requests): a cut scan winds down (checkGrace, and the probe of the
// resolver when none of its questions was answered) outside the pool. It
// returns their cut funcs, to be called without mu. Called with mu held.
func (s *scheduler) stalled(headroom bool) []func() {
	if !s.pressed() {
		return nil
	}
	now := s.now()
	fresh := s.freshWaiting(now)
	forWaiting := fresh - s.free
	forHeadroom := s.queued + nearlyFullOf(s.total) + 1 - s.free
	if forWaiting <= 0 && forHeadroom <= 0 {
		return nil
	}
	type cand struct {
		sl    *slot
		since time.Time
		never bool // no reply since the start
	}
	var cands []cand
	for sl := range s.held {
		if sl.cut || sl.watch == nil || sl.watch.cut == nil {
			continue
		}
		since, never := sl.start, true
		if sl.watch.lastReply != nil {
			if t := sl.watch.lastReply(); !t.IsZero() {
				never = false
				if t.After(since) {
					since = t
				}
			}
		}
		if now.Sub(since) >= noProgressAfter {
			cands = append(cands, cand{sl, since, never})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int { return a.since.Compare(b.since) })
	var cuts []func()
	cut := func(c cand) {
		c.sl.cut = true
		s.cuts++
		cuts = append(cuts, c.sl.watch.cut)
		s.giveBack(c.sl)
	}
	for _, c := range cands { // for the fresh waiting requests
		if len(cuts) >= forWaiting {
			break
		}
		cut(c)
	}
	if !headroom {
		forHeadroom = 0
	}
	forHeadroom = min(forHeadroom, max(forWaiting, 0)+headroomCuts)
	for _, c := range cands { // for headroom: scans that never had progress
		if len(cuts) >= forHeadroom {
			break
		}
		if c.never && !c.sl.cut {
			cut(c)
		}
	}
	if len(cuts) > 0 {
		s.dispatch()
	}
	return cuts
}

// runCuts calls the cut funcs stalled returned.
func runCuts(cuts []func()) {
	for _, cut := range cuts {
		cut()
	}
}

// armCut arms the cut timer while slots run short and diagnostics are in
// flight. Called with mu held.
func (s *scheduler) armCut() {
	if s.ticking || !s.pressed() || len(s.held) == 0 {
		return
	}
	s.ticking = true
	time.AfterFunc(cutTick, s.tick)
}

// tick looks for diagnostics to cut and re-arms itself while slots run
// short.
func (s *scheduler) tick() {
	s.mu.Lock()
	s.ticking = false
	cuts := s.stalled(true)
	s.armCut()
	s.mu.Unlock()
	runCuts(cuts)
}

// enqueue appends w to its source's queue, giving the source a turn in
// the ring if it had none. Called with mu held.
func (s *scheduler) enqueue(w *waiter) {
	q := s.queues[w.ad.source]
	if len(q) == 0 {
		s.ring = append(s.ring, w.ad.source)
	}
	s.queues[w.ad.source] = append(q, w)
	s.queued++
	s.peak = max(s.peak, len(s.queues))
}

// dequeue removes a waiter that gave up. Called with mu held.
func (s *scheduler) dequeue(w *waiter) {
	q := s.queues[w.ad.source]
	for i, x := range q {
		if x == w {
			q = append(q[:i:i], q[i+1:]...)
			s.queued--
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

// dispatch grants free slots to waiting requests: first to the fresh
// oldest request of the source whose groups used least slot time
// recently (ties to the one served least recently, then in turn order), then, when no fresh request waits, in
// turn to each source with an admissible oldest request. Called with mu
// held.
func (s *scheduler) dispatch() {
	now := s.now()
	for s.free > 0 && len(s.ring) > 0 {
		i := s.freshest(now)
		if i < 0 {
			if i = s.nextAdmissible(now); i < 0 {
				return
			}
			if s.busy() {
				if !s.paceNext() {
					return
				}
				s.paceGrant()
			}
		}
		src := s.ring[i]
		q := s.queues[src]
		w := q[0]
		w.granted, w.idle = s.take(w.ad, w.watch)
		close(w.ready)
		s.queued--
		s.next = (i + 1) % len(s.ring)
		s.setQueue(src, q[1:])
	}
}

// busy reports whether a quarter of the slots or more are in flight (as
// many as half the slots beyond the reserve): then grants to requests
// that are not fresh keep to the pace. Called with mu held.
func (s *scheduler) busy() bool {
	return s.gap > 0 && s.total-s.free >= s.total/4
}

// paceFor reports whether ad, admissible, may take a slot at once as far
// as the pace goes, and if so counts the grant against the pace: a fresh
// request always, and any request while the pool is not busy; otherwise
// not while others wait (they are granted in turn, the pace's turn among
// them) nor ahead of the pace. Called with mu held.
func (s *scheduler) paceFor(ad admission, now time.Time) bool {
	if !s.busy() || s.fresh(ad, now) {
		return true
	}
	if s.queued > 0 || !s.paceNext() {
		return false
	}
	s.paceGrant()
	return true
}

// paceNext reports whether the pace lets a grant to a request that is not
// fresh through now, and otherwise arms the pace timer, which dispatches
// when it does. A grant goes through when the real clock is at most
// grantBurst-1 gaps before paced (a generic cell rate algorithm: after a
// pause, grantBurst at once; then one a gap). The pace runs on the real
// clock, whatever the scheduler's: it spreads the work of scan starts,
// which real time measures. Called with mu held.
func (s *scheduler) paceNext() bool {
	wait := time.Until(s.paced.Add(-(grantBurst - 1) * s.gap))
	if wait <= 0 {
		return true
	}
	if !s.pacing {
		s.pacing = true
		time.AfterFunc(wait, s.paceTick)
	}
	return false
}

// paceGrant counts a grant against the pace. Called with mu held.
func (s *scheduler) paceGrant() {
	if now := time.Now(); s.paced.Before(now) {
		s.paced = now
	}
	s.paced = s.paced.Add(s.gap)
}

// paceTick grants what the pace held back.
func (s *scheduler) paceTick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pacing = false
	s.dispatch()
}

// freshest returns the ring index of the source whose oldest request is
// fresh and whose groups used least slot time recently, among equals the
// one whose groups were served least recently (never first), then the
// first in turn order; -1 when no waiting request is fresh. A source that
// scans quickly is charged nothing (quickHold) and stays fresh, so
// without the second key any number of sources scanning quickly would tie
// with a visitor and share the turns with it. Called with mu held.
func (s *scheduler) freshest(now time.Time) int {
	best, bestUsed, bestLast := -1, math.Inf(1), time.Time{}
	for k := range len(s.ring) {
		i := (s.next + k) % len(s.ring)
		ad := s.queues[s.ring[i]][0].ad
		if !s.idle(ad) {
			continue
		}
		u := s.usage.recent(ad.groups, now)
		if u >= freshLimit.Seconds() {
			continue
		}
		last := s.usage.last(ad.groups)
		if u < bestUsed || (u == bestUsed && last.Before(bestLast)) {
			best, bestUsed, bestLast = i, u, last
		}
	}
	return best
}

// nextAdmissible returns the ring index of the next source in turn order
// whose oldest request is admissible, -1 when none is. Called with mu
// held.
func (s *scheduler) nextAdmissible(now time.Time) int {
	for k := range len(s.ring) {
		i := (s.next + k) % len(s.ring)
		if s.admissible(s.queues[s.ring[i]][0].ad, now) {
			return i
		}
	}
	return -1
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
	f.sched.ret = opts.MemoryReturner
	if f.perSource <= 0 {
		f.perSource = DefaultSourceInFlight
	}
	budget := opts.SourceBudget
	if budget == 0 {
		budget = DefaultSourceBudget
	}
	f.budgets = newBudgets(budget, DefaultMaxKeys, time.Now, opts.MemoryReturner)
	if f.networks == nil {
		f.networks = defaultNetworkLimits(opts.Limiter, opts.MemoryReturner)
	}
	return f
}

// admit takes a diagnostic slot for r (step 7): its source and networks
// must have budget left and room under their in-flight caps; it then
// waits its turn for a global slot, at most QueueWait. The returned
// context carries the diagnostic's deadline (firstDeadline when its
// groups had nothing in flight, laterDeadline otherwise, at most the
// budget left), which is charged to the budgets at once, the source's key
// as the scan's source tag (mailauth.WithSource) and a mailauth.Progress
// through which the scheduler sees the scan's progress (DNS replies,
// policy fetch steps): while slots run short, a scan with none for
// noProgressAfter may have its deadline cut (scheduler.stalled).
// The returned func refunds what was not used and gives the slot back. A
// spent budget is errSourceBudget, with the wait until it renews in retry.
func (h *handler) admit(r *http.Request) (ctx context.Context, done func(), retry time.Duration, e *apiError) {
	ad := admissionFor(sourceIP(r, h.proxies), h.perSource)
	if wait := h.budgets.spent(ad.groups, h.perSource); wait > 0 {
		return nil, nil, wait, &errSourceBudget
	}
	progress := new(mailauth.Progress)
	// The source tag lets the scanner's alarms be limited per source
	// (mailauth.WithSource).
	cc := newCutContext(mailauth.WithProgress(mailauth.WithSource(r.Context(), ad.source), progress))
	release, idle, e := h.sched.acquire(r.Context(), ad, h.wait, &watch{lastReply: progress.Last, cut: cc.cut})
	if e != nil {
		cc.cancel()
		return nil, nil, 0, e
	}
	want := laterDeadline
	if idle {
		want = firstDeadline
	}
	c, wait := h.budgets.charge(ad.groups, h.perSource, want)
	if c == nil {
		cc.cancel()
		release()
		return nil, nil, wait, &errSourceBudget
	}
	deadline := want // budgets disabled: the deadline still depends on freshness
	if c.granted > 0 {
		deadline = c.granted
	}
	cc.setDeadline(deadline)
	start := time.Now()
	return cc, func() {
		cc.cancel()
		h.budgets.refund(c, time.Since(start))
		release()
	}, 0, nil
}

// setRetryAfter sets Retry-After to wait rounded up to whole seconds.
func setRetryAfter(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(wait)))
}
