package resolver

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Limits of a Cache.
const (
	// MaxCacheTTL caps how long a Cache keeps an answer, whatever its TTL
	// says. Product choice: a diagnosis should see a fix within minutes,
	// while a provider's SPF include tree, asked by many scans, still
	// costs one round trip per five minutes instead of one per scan.
	MaxCacheTTL = 5 * time.Minute
	// DefaultCacheBytes is the memory bound of a Cache made with a
	// non-positive size: about 60,000 typical answers (an A or MX record
	// is charged about 550 bytes, what it holds on the heap and a little
	// more; see answerSize).
	DefaultCacheBytes = 32 << 20
	// entryOverhead estimates the bytes one entry costs beyond its answer
	// (see answerBytes) and its name: the entry's key, expiry, size,
	// memo and links (the cacheEntry less the Answer in it, 80 bytes with
	// the allocator's rounding), the map slot with its share of the
	// table's room (up to about 80 just after the table grew), the
	// rounding of the entry's strings to the allocator's sizes, and 32
	// bytes to spare, so that the bound errs on the side of the heap
	// (TestCacheBoundIsHonest).
	entryOverhead = 224
	// LargeAnswerBytes is the size (answerSize, with its memo) past which
	// an answer is large. Real answers are a few hundred bytes (an SPF or
	// DKIM TXT record up to about 2 KB); only hostile or broken zones
	// publish tens of kilobytes per name. Large answers share a
	// 1/largeShare part of the bound and evict only each other, so a zone
	// that answers 64 KB per name cannot push the providers' small
	// records out of the cache.
	LargeAnswerBytes = 4 << 10
	// largeShare: large answers hold at most maxBytes/largeShare.
	largeShare = 16
)

// Memoizer is a Resolver that keeps, with each answer it holds, a value
// derived from that answer (a memo), computed once and dropped with the
// answer: its TTL, its eviction. The leak guard (package redact) keeps
// there the values it records from the answer, so that the same
// provider's records are not tokenized again by every scan. [Cache]
// implements it.
type Memoizer interface {
	Resolver
	// LookupMemo answers like Lookup, with the memo of the answer for key:
	// the one kept with it, or, for an answer it held already, one it
	// computes now with compute and keeps. An answer that was not held
	// before (asked below for this call, or shared with a call in flight)
	// comes with a nil memo: the caller works from the answer itself, so
	// that an answer used once (a distinct domain's own records) costs no
	// memo. compute returns the memo and its size in bytes, which counts
	// against the memory bound. A memo is kept for one key per answer;
	// key must be comparable (a pointer, typically), and compute must
	// depend on nothing but the answer and key.
	LookupMemo(ctx context.Context, name string, qtype Type, key any, compute func(Answer) (memo any, size int)) (Answer, any)
}

// TTLResolver is a Resolver that also says how long each answer may be
// cached, in seconds (0: not at all). [Client] implements it.
type TTLResolver interface {
	Resolver
	LookupTTL(ctx context.Context, name string, qtype Type) (Answer, uint32)
}

// Cache is a Resolver that keeps answers across scans. It is keyed by
// question (name in any case, with or without the trailing dot, and type)
// and bounded in memory: past its size, the least recently used answers
// go first. An answer is kept for its TTL, capped at MaxCacheTTL: the
// smallest TTL of its records and aliases, or for a negative answer
// (NoData, NXDomain) the SOA minimum of RFC 2308 §5; a negative answer
// without an SOA, an answer with TTL 0 (which is how a [Client] marks an
// answer whose lookup saw a forged, mismatched or undecodable datagram)
// and every inconclusive answer are never kept. Identical questions asked
// at the same time go below once and share the answer (singleflight), so
// concurrent scans of domains that include the same provider's SPF cost
// one query; an answer the Client marked as tainted serves only the
// caller that asked, and the others ask again, once. A kept answer that
// a later reply from the resolver contradicts (see the package doc,
// "Sockets and spoofing") is dropped. Records keep the
// TTLs they arrived with. Answers larger than LargeAnswerBytes (only a
// hostile or broken zone publishes them) are kept apart, within 1/16 of
// the bound, and evict only each other. With each answer it may keep a
// memo for a caller (Memoizer), dropped with the answer.
//
// A Cache serves one upstream: put it directly above the resolver that
// asks the wire, below each scan's [Scan]. It is safe for concurrent use.
type Cache struct {
	next Resolver
	// ttl asks below: next itself when it is a TTLResolver (an interface
	// call, not a method value, whose wrapper would add a frame under
	// every lookup in flight), else recordTTL's adapter.
	ttl      TTLResolver
	maxBytes int
	now      func() time.Time
	epoch    time.Time // now's reading the entries' expiries count from (see clock)

	mu         sync.Mutex
	entries    map[question]*cacheEntry
	lru        entryList // answers up to LargeAnswerBytes, most recently used first
	large      entryList // larger answers, most recently used first
	bytes      int       // of every entry
	largeBytes int       // of the entries in large
	flights    map[question]*flight
	gens       uint64 // the latest flight's number
	stats      CacheStats
}

// cacheEntry is one answer held. Its links in its list are its own (no
// list element apart), and its expiry is a count on the Cache's clock,
// not a time.Time: an entry costs 176 bytes beside its answer's data.
type cacheEntry struct {
	q          question
	gen        uint64 // the flight that stored it
	answer     Answer
	expires    time.Duration // on the Cache's clock (see clock)
	size       int
	memo       *entryMemo // nil: none
	prev, next *cacheEntry
}

// entryMemo is an entry's memo, and the key it was computed for.
type entryMemo struct {
	key, val any
}

// memoOverhead is what answerSize charges on top of a memo's own size:
// its entryMemo.
const memoOverhead = 32

// entryList is a doubly linked list of entries, most recently used
// first; its zero value is empty.
type entryList struct {
	front, back *cacheEntry
	n           int
}

// pushFront puts e, in no list, at the front.
func (l *entryList) pushFront(e *cacheEntry) {
	e.prev, e.next = nil, l.front
	if l.front != nil {
		l.front.prev = e
	} else {
		l.back = e
	}
	l.front = e
	l.n++
}

// remove takes e, which is in l, out of it.
func (l *entryList) remove(e *cacheEntry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		l.front = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		l.back = e.prev
	}
	e.prev, e.next = nil, nil
	l.n--
}

// moveToFront makes e, which is in l, the most recently used.
func (l *entryList) moveToFront(e *cacheEntry) {
	if l.front != e {
		l.remove(e)
		l.pushFront(e)
	}
}

// isLarge reports whether the entry lives in Cache.large.
func (e *cacheEntry) isLarge() bool { return e.size > LargeAnswerBytes }

type flight struct {
	// waiters: the callers that wait for the sender's answer, resumed
	// when it lands; landed: it is in (under Cache.mu).
	waiters     []flightWaiter
	gen         uint64 // numbers the flights of a Cache
	answer      Answer
	landed      bool
	senderEnded bool // the sender gave up (its ctx ended, or it was answered canceled): waiters ask again
	suspect     bool // the answer was tainted or contradicted: waiters ask again, once
	invalid     bool // a later reply contradicted the answer: never store it (under Cache.mu)
}

// cacheHook is how a [Client] below a Cache tells it, through the
// lookup's context, what it learned of the answer it gives: that a
// datagram for it was dropped as forged (tainted), or, after the lookup,
// that a later reply contradicted it (conflict).
//
// A lookup that took a UDP answer keeps its hook for its tombstones' time
// (tombstoneFor), so the hook holds what a contradiction needs and no
// more: the question and the flight's number, and the flight and its
// sender only until the answer is kept (release).
type cacheHook struct {
	tainted atomic.Bool
	taken   atomic.Bool // sent took its answer (in tainted's padding)
	c       *Cache
	q       question
	gen     uint64
	f       *flight   // until the answer is kept (under Cache.mu)
	k       *cacheAsk // the flight's sender, until the answer is kept
}

// conflict drops the answer the hook's flight brought (see
// Cache.invalidate).
func (h *cacheHook) conflict() { h.c.invalidate(h) }

// release lets go of the hook's flight once its answer is kept or
// dropped: a contradiction can no longer stop it from being stored, only
// evict it.
func (h *cacheHook) release() {
	h.c.mu.Lock()
	h.f, h.k = nil, nil
	h.c.mu.Unlock()
}

// sent takes the answer to the hook's question, asked below by its
// flight's sender (cacheAsk.send): a cacheable answer is stored (keep),
// the flight's waiters are released (land) and the sender is answered.
// A method, not a closure in send: the hook holds what the closure
// would, and its method value is the smaller allocation. Only the first
// call does anything: a resolver below that answers twice, against the
// Starter contract, cannot store, land or answer twice, nor find the
// sender let go of.
func (h *cacheHook) sent(a Answer, ttl uint32) {
	if !h.taken.CompareAndSwap(false, true) {
		return
	}
	c, q, f, k := h.c, h.q, h.f, h.k
	if !c.keepSafely(k.ctx, q, f, h, a, ttl) {
		a = Fail(ReasonMalformed)
	}
	h.release()
	c.land(q, f)
	k.answer(a, nil)
}

type hookKey struct{}

// hookOf returns the cacheHook of ctx, or nil.
func hookOf(ctx context.Context) *cacheHook {
	h, _ := ctx.Value(hookKey{}).(*cacheHook)
	return h
}

// CacheStats counts what a Cache did.
type CacheStats struct {
	Hits      uint64 // questions answered from the cache
	Shared    uint64 // questions that joined an identical one in flight
	Misses    uint64 // questions sent below
	Evictions uint64 // answers dropped to stay within the memory bound
	// Invalidated counts answers dropped because a reply that came after
	// them contradicted them (see the package doc, "Sockets and spoofing").
	Invalidated uint64
	Entries     int // answers held now
	Bytes       int // estimated memory of the answers held now
	Large       int // answers held now larger than LargeAnswerBytes
}

// HitRate is the share of questions that did not go below: (Hits +
// Shared) / all questions, or 0 before the first.
func (s CacheStats) HitRate() float64 {
	all := s.Hits + s.Shared + s.Misses
	if all == 0 {
		return 0
	}
	return float64(s.Hits+s.Shared) / float64(all)
}

// NewCache returns a Cache over next holding at most about maxBytes of
// answers (non-positive: DefaultCacheBytes). When next is a TTLResolver
// its TTLs are used; otherwise only Found answers are kept, for the
// smallest TTL of their records.
func NewCache(next Resolver, maxBytes int) *Cache {
	if maxBytes <= 0 {
		maxBytes = DefaultCacheBytes
	}
	c := &Cache{
		next: next, maxBytes: maxBytes, now: time.Now, epoch: time.Now(),
		entries: make(map[question]*cacheEntry), flights: make(map[question]*flight),
	}
	c.ttl = recordTTL{next}
	if t, ok := next.(TTLResolver); ok {
		c.ttl = t
	}
	return c
}

// recordTTL adapts a plain Resolver: a Found answer lives for its
// smallest record TTL, nothing else is kept.
type recordTTL struct{ Resolver }

// LookupTTL implements TTLResolver.
func (r recordTTL) LookupTTL(ctx context.Context, name string, qtype Type) (Answer, uint32) {
	a := r.Lookup(ctx, name, qtype)
	if a.Outcome != Found || len(a.Records) == 0 {
		return a, 0
	}
	ttl := a.Records[0].TTL
	for _, r := range a.Records[1:] {
		ttl = min(ttl, r.TTL)
	}
	return a, ttl
}

// Lookup implements Resolver. A caller whose ctx has ended gets
// ReasonCanceled at once. When the caller that sent a shared question
// gives up, the waiters with live contexts ask again. Every caller gets
// its own copy of the answer's slices.
func (c *Cache) Lookup(ctx context.Context, name string, qtype Type) Answer {
	a, _ := c.LookupMemo(ctx, name, qtype, nil, nil)
	return a
}

// memoReq is a LookupMemo's request for a memo.
type memoReq struct {
	key     any
	compute func(Answer) (any, int)
}

// LookupMemo implements Memoizer; a nil compute asks for no memo (Lookup).
func (c *Cache) LookupMemo(ctx context.Context, name string, qtype Type, key any, compute func(Answer) (any, int)) (Answer, any) {
	w := newLanding[any]()
	c.StartMemo(ctx, name, qtype, key, compute, w.land)
	return w.wait()
}

// Start implements [Starter].
func (c *Cache) Start(ctx context.Context, name string, qtype Type, done func(Answer)) {
	c.StartMemo(ctx, name, qtype, nil, nil, func(a Answer, _ any) { done(a) })
}

// StartMemo is LookupMemo's [Starter.Start]: done gets the answer and
// its memo once, perhaps before StartMemo returns, perhaps from the
// goroutine that received the reply. A caller that finds its question
// in flight is not a goroutine waiting: it waits in the flight's list.
func (c *Cache) StartMemo(ctx context.Context, name string, qtype Type, key any, compute func(Answer) (any, int), done func(Answer, any)) {
	var m *memoReq
	if compute != nil {
		m = &memoReq{key: key, compute: compute}
	}
	q := question{CanonicalName(name), qtype}
	if c.answerHeld(ctx, q, m, done) {
		return // a hit, the common case, answered without a cacheAsk
	}
	k := &cacheAsk{c: c, ctx: ctx, q: q, m: m, done: done}
	k.try()
}

// answerHeld answers a caller whose ctx has ended, and a question whose
// answer the cache holds, and reports whether it did. It is not inlined:
// the answer is in its frame, not in those under which a question is
// sent.
//
//go:noinline
func (c *Cache) answerHeld(ctx context.Context, q question, m *memoReq, done func(Answer, any)) bool {
	if ctx.Err() != nil {
		handOnMemo(done, Fail(ReasonCanceled), nil)
		return true
	}
	c.mu.Lock()
	a, memo, gen, ok := c.heldLocked(q, m)
	c.mu.Unlock()
	if !ok {
		return false
	}
	a, memo = c.served(ctx, q, m, a, memo, gen)
	handOnMemo(done, a, memo)
	return true
}

// served is a held answer a (with memo, for the flight gen that stored
// it) as a caller gets it: the hit noted, and a's memo worked out and
// attached when m asks for one and it has none yet.
func (c *Cache) served(ctx context.Context, q question, m *memoReq, a Answer, memo any, gen uint64) (Answer, any) {
	noteCacheHit(ctx)
	if m != nil && memo == nil {
		memo = c.attach(q, gen, a, m)
	}
	return a, memo
}

// cacheAsk is one caller's question to a Cache (StartMemo).
type cacheAsk struct {
	c     *Cache
	ctx   context.Context
	q     question
	m     *memoReq
	done  func(Answer, any) // nil once answered (see answer)
	again bool              // a suspect answer made it ask once more

	turnWait // while it waits on another caller's flight

	handed atomic.Bool // answered (see answer)
}

// answer hands a and its memo to the caller, once: later calls do
// nothing. It lets go of what the caller's done holds, so that a flight
// that still lists k (a wait its context ended) keeps only k. A panic in
// done is the caller's and is not raised here (see handOn).
func (k *cacheAsk) answer(a Answer, memo any) {
	if !k.handed.CompareAndSwap(false, true) {
		return
	}
	done := k.done
	k.done, k.m = nil, nil
	handOnMemo(done, a, memo)
}

// contain is deferred where k's work runs on a goroutine the Cache does
// not own (a socket's reader, a timer's, a context's): a panic in that
// work answers the caller ReasonMalformed instead of ending the process
// or leaving the caller without an answer.
func (k *cacheAsk) contain() {
	if recover() != nil {
		k.answer(Fail(ReasonMalformed), nil)
	}
}

// try answers the question from the cache, joins the flight that asks
// it, or sends it. A caller whose ctx has ended gets ReasonCanceled.
// When the caller that sent a shared question gives up, the waiters
// with live contexts ask again. Every caller gets its own copy of the
// answer's slices.
func (k *cacheAsk) try() {
	for {
		f, owner := k.claimed()
		switch {
		case f == nil:
			return // answered
		case owner:
			k.send(f)
			return
		case k.wait(f):
			return // the flight's landing or the context's end goes on
		case k.landed(f):
			return
		}
	}
}

// claimed claims k's question once: a caller whose ctx has ended and a
// hit are answered (f nil); else it returns the question's flight and
// whether k owns it and must send it. Not inlined: the answer of a hit
// is in its frame, not in those under which a question is sent.
//
//go:noinline
func (k *cacheAsk) claimed() (f *flight, owner bool) {
	if k.ctx.Err() != nil {
		k.answer(Fail(ReasonCanceled), nil)
		return nil, false
	}
	a, memo, gen, f, owner := k.c.claim(k.q, k.m)
	if f == nil {
		k.answer(k.c.served(k.ctx, k.q, k.m, a, memo, gen))
	}
	return f, owner
}

// send asks q below as f's sender: a cacheable answer is stored (keep),
// f's waiters are released (land) and the sender is answered, also when
// the work on the answer panics (the answer is then ReasonMalformed).
func (k *cacheAsk) send(f *flight) {
	c, q := k.c, k.q
	f.senderEnded = true // until the answer is in
	h := &cacheHook{c: c, q: q, gen: f.gen, f: f, k: k}
	ctx := context.WithValue(k.ctx, hookKey{}, h)
	if t, ok := c.ttl.(ttlStarter); ok {
		t.StartTTL(ctx, q.name, q.qtype, h.sent)
		return
	}
	go func() {
		a, ttl := recoveredTTL(ctx, c.ttl, q.name, q.qtype)
		h.sent(a, ttl)
	}()
}

// keepSafely is keep, and reports whether it returned: a panic in it
// (it runs on the goroutine that received the reply, where a panic would
// end the process) leaves f's answer out, and its waiters ask again.
func (c *Cache) keepSafely(ctx context.Context, q question, f *flight, h *cacheHook, a Answer, ttl uint32) (ok bool) {
	defer func() {
		if !ok {
			_ = recover()
		}
	}()
	c.keep(ctx, q, f, h, a, ttl)
	return true
}

// ttlStarter is a TTLResolver that can start its lookups ([Client]).
type ttlStarter interface {
	StartTTL(ctx context.Context, name string, qtype Type, done func(Answer, uint32))
}

// recoveredTTL is r.LookupTTL, with a panic below it turned into
// ReasonMalformed: it runs in a goroutine of its own, where a panic
// would end the process.
func recoveredTTL(ctx context.Context, r TTLResolver, name string, qtype Type) (a Answer, ttl uint32) {
	defer func() {
		if recover() != nil {
			a, ttl = Fail(ReasonMalformed), 0
		}
	}()
	return r.LookupTTL(ctx, name, qtype)
}

// wait puts k in f's list of waiters, and reports whether it did: false
// when f landed meanwhile (the caller goes on at once). Whichever of
// f's landing and the end of k's context comes first takes the wait;
// the other does nothing. A wait the context ended stays in the list
// until f lands, holding k alone (answer let go of the rest).
func (k *cacheAsk) wait(f *flight) bool {
	c := k.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if f.landed {
		return false
	}
	// Armed under the lock, before the wait is listed (see scanAsk.wait).
	turn := k.arm(k.ctx, func() { k.answer(Fail(ReasonCanceled), nil) })
	f.waiters = append(f.waiters, flightWaiter{k: k, turn: turn})
	return true
}

// flightWaiter is a caller waiting on a flight, for its wait number turn.
type flightWaiter struct {
	k    *cacheAsk
	turn uint32
}

// resume goes on with w's question once its flight f landed, unless
// w's context ended first. It runs on the goroutine that landed f.
func (w flightWaiter) resume(f *flight) {
	k := w.k
	if !k.take(w.turn) {
		return
	}
	defer k.contain()
	if !k.landed(f) {
		k.try()
	}
}

// landed takes f's answer when it can serve k, and reports whether it
// did; false: k asks again.
func (k *cacheAsk) landed(f *flight) bool {
	if f.suspect && !k.again {
		k.again = true // a tainted answer serves only the caller that asked
		return false
	}
	if f.senderEnded {
		return false
	}
	k.answer(cloneAnswer(&f.answer), nil)
	return true
}

// attach computes the memo of a, the answer held for q, and keeps it with
// the entry if the entry is still there and has none for the key.
func (c *Cache) attach(q question, gen uint64, a Answer, m *memoReq) any {
	memo, size := m.compute(a)
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[q]
	if !ok {
		return memo
	}
	if e.memo != nil || e.gen != gen {
		return memo // another answer is held now: a's memo is not its memo
	}
	c.remove(e)
	e.memo, e.size = &entryMemo{key: m.key, val: memo}, e.size+size+memoOverhead
	c.insert(e)
	return memo
}

// claim returns the cached answer for q and its memo for m's key, if any
// (f nil), or the flight to wait on, or a new flight the caller owns and
// must send.
func (c *Cache) claim(q question, m *memoReq) (a Answer, memo any, gen uint64, f *flight, owner bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, memo, gen, ok := c.heldLocked(q, m); ok {
		return a, memo, gen, nil, false
	}
	if f, ok := c.flights[q]; ok {
		c.stats.Shared++
		return Answer{}, nil, 0, f, false
	}
	c.gens++
	f = &flight{gen: c.gens}
	c.flights[q] = f
	c.stats.Misses++
	return Answer{}, nil, 0, f, true
}

// heldLocked returns a copy of the answer held for q, its memo for m's
// key (if any) and the flight that stored it, counting a hit, when the
// cache holds an answer that has not expired (an expired one goes).
// The caller holds c.mu.
func (c *Cache) heldLocked(q question, m *memoReq) (a Answer, memo any, gen uint64, ok bool) {
	e, found := c.entries[q]
	if !found {
		return Answer{}, nil, 0, false
	}
	if c.clock() >= e.expires {
		c.remove(e)
		return Answer{}, nil, 0, false
	}
	c.listOf(e).moveToFront(e)
	c.stats.Hits++
	if m != nil && e.memo != nil && e.memo.key == m.key {
		memo = e.memo.val
	}
	return cloneAnswer(&e.answer), memo, e.gen, true
}

// land ends flight f of q: it is no longer in flight, and its waiters
// are released.
func (c *Cache) land(q question, f *flight) {
	c.mu.Lock()
	if c.flights[q] == f {
		delete(c.flights, q)
	}
	f.landed = true
	waiters := f.waiters
	f.waiters = nil
	c.mu.Unlock()
	resumeAll(waiters, f)
}

// keep hands a, the answer the sender got for q with its ttl, to f's waiters
// and stores it when it may be cached. It is a function of its own, not
// inlined, so that its locals are not in LookupMemo's frame, under which
// the lookup waits.
//
//go:noinline
func (c *Cache) keep(ctx context.Context, q question, f *flight, h *cacheHook, a Answer, ttl uint32) {
	// The waiters and the cache share one copy that nobody changes (each
	// reader clones it); the sender's caller owns a.
	kept := cloneAnswer(&a)
	// A canceled answer is the sender's alone, also when ctx has not
	// reported it yet (Client.LookupTTL answers canceled once the deadline has
	// passed, a moment before ctx's timer fires).
	f.answer, f.senderEnded = kept, ctx.Err() != nil || a.Reason == ReasonCanceled
	c.mu.Lock()
	f.suspect = h.tainted.Load() || f.invalid
	c.mu.Unlock()
	if a.Conclusive() && ttl > 0 && !f.senderEnded {
		c.store(&cacheEntry{q: q, gen: f.gen, answer: kept, size: answerSize(q, kept),
			expires: c.clock() + min(time.Duration(ttl)*time.Second, MaxCacheTTL)}, f)
	}
}

// invalidate drops the answer h's flight brought for its question: a
// reply that came after it contradicted it (one of the two was forged).
// When the flight has not stored it yet, it never will.
func (c *Cache) invalidate(h *cacheHook) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h.f != nil {
		h.f.invalid = true
	}
	if e, ok := c.entries[h.q]; ok && e.gen == h.gen {
		c.remove(e)
		c.stats.Invalidated++
	}
}

// store keeps e, the answer flight f brought unless a later reply
// contradicted it already, and evicts the least recently used answers past the
// memory bound: a large answer (LargeAnswerBytes) evicts large answers
// past their share of the bound first. An answer larger than its list's
// bound is not kept.
func (c *Cache) store(e *cacheEntry, f *flight) {
	if e.size > c.boundOf(e) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if f.invalid {
		return
	}
	if old, ok := c.entries[e.q]; ok {
		c.remove(old)
	}
	c.insert(e)
}

// boundOf is the most that e's list may hold: a tenth of the bound for
// the small answers (the whole cache is theirs), the large answers'
// share for a large one.
func (c *Cache) boundOf(e *cacheEntry) int {
	if e.isLarge() {
		return c.maxBytes / largeShare
	}
	return c.maxBytes / 10
}

// insert adds e, new or removed, at the front of its list and evicts past
// the bounds; the caller holds c.mu.
func (c *Cache) insert(e *cacheEntry) {
	c.listOf(e).pushFront(e)
	c.entries[e.q] = e
	c.bytes += e.size
	if e.isLarge() {
		c.largeBytes += e.size
		for c.largeBytes > c.maxBytes/largeShare {
			c.remove(c.large.back)
			c.stats.Evictions++
		}
	}
	for c.bytes > c.maxBytes {
		back := c.lru.back
		if b := c.large.back; back == nil || b != nil && c.largeBytes > c.bytes/2 {
			back = b // the small answers are gone, or fewer than the large ones
		}
		c.remove(back)
		c.stats.Evictions++
	}
}

// listOf returns the list e lives in.
func (c *Cache) listOf(e *cacheEntry) *entryList {
	if e.isLarge() {
		return &c.large
	}
	return &c.lru
}

// remove drops an entry; the caller holds c.mu.
func (c *Cache) remove(e *cacheEntry) {
	c.listOf(e).remove(e)
	delete(c.entries, e.q)
	c.bytes -= e.size
	if e.isLarge() {
		c.largeBytes -= e.size
	}
}

// answerSize estimates the memory one cached answer costs.
func answerSize(q question, a Answer) int {
	return entryOverhead + len(q.name) + answerBytes(a)
}

// clock returns the time since c's epoch on its clock (monotonic with
// time.Now): what an entry's expiry counts.
func (c *Cache) clock() time.Duration { return c.now().Sub(c.epoch) }

// Purge drops every answer the Cache holds, and returns how many it
// dropped; questions in flight go on, and a flight's answer is stored
// as it lands. The table that held them is made anew, so that its room
// is freed with them: what the answers cost the heap is what a Purge
// frees (the benchmarks measure a cached answer so).
func (c *Cache) Purge() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.entries)
	c.entries = make(map[question]*cacheEntry)
	c.lru, c.large = entryList{}, entryList{}
	c.bytes, c.largeBytes = 0, 0
	return n
}

// Stats returns the Cache's counters.
func (c *Cache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Entries, s.Bytes, s.Large = len(c.entries), c.bytes, c.large.n
	return s
}
