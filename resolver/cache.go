package resolver

import (
	"container/list"
	"context"
	"sync"
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
	// non-positive size: about 80,000 typical answers (an A or MX record
	// costs about 400 bytes, see answerSize).
	DefaultCacheBytes = 32 << 20
	// entryOverhead estimates the bytes one entry costs beyond its answer
	// (see answerBytes) and its name: the map slot, the list element and
	// the entry's key, expiry and size.
	entryOverhead = 96
)

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
// without an SOA, an answer with TTL 0 and every inconclusive answer are
// never kept. Identical questions asked at the same time go below once
// and share the answer (singleflight), so concurrent scans of domains
// that include the same provider's SPF cost one query. Records keep the
// TTLs they arrived with.
//
// A Cache serves one upstream: put it directly above the resolver that
// asks the wire, below each scan's [Scan]. It is safe for concurrent use.
type Cache struct {
	next     Resolver
	ttl      func(ctx context.Context, name string, qtype Type) (Answer, uint32)
	maxBytes int
	now      func() time.Time

	mu      sync.Mutex
	entries map[question]*list.Element // of *cacheEntry
	lru     list.List                  // most recently used first
	bytes   int
	flights map[question]*flight
	stats   CacheStats
}

type cacheEntry struct {
	q       question
	answer  Answer
	expires time.Time
	size    int
}

type flight struct {
	done        chan struct{}
	answer      Answer
	senderEnded bool // the sender gave up (its ctx ended, or it was answered canceled): waiters ask again
}

// CacheStats counts what a Cache did.
type CacheStats struct {
	Hits      uint64 // questions answered from the cache
	Shared    uint64 // questions that joined an identical one in flight
	Misses    uint64 // questions sent below
	Evictions uint64 // answers dropped to stay within the memory bound
	Entries   int    // answers held now
	Bytes     int    // estimated memory of the answers held now
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
		next: next, maxBytes: maxBytes, now: time.Now,
		entries: make(map[question]*list.Element), flights: make(map[question]*flight),
	}
	c.ttl = recordTTL(next)
	if t, ok := next.(TTLResolver); ok {
		c.ttl = t.LookupTTL
	}
	return c
}

// recordTTL adapts a plain Resolver: a Found answer lives for its
// smallest record TTL, nothing else is kept.
func recordTTL(next Resolver) func(context.Context, string, Type) (Answer, uint32) {
	return func(ctx context.Context, name string, qtype Type) (Answer, uint32) {
		a := next.Lookup(ctx, name, qtype)
		if a.Outcome != Found || len(a.Records) == 0 {
			return a, 0
		}
		ttl := a.Records[0].TTL
		for _, r := range a.Records[1:] {
			ttl = min(ttl, r.TTL)
		}
		return a, ttl
	}
}

// Lookup implements Resolver. A caller whose ctx has ended gets
// ReasonCanceled at once. When the caller that sent a shared question
// gives up, the waiters with live contexts ask again. Every caller gets
// its own copy of the answer's slices.
func (c *Cache) Lookup(ctx context.Context, name string, qtype Type) Answer {
	q := question{CanonicalName(name), qtype}
	for {
		if ctx.Err() != nil {
			return Fail(ReasonCanceled)
		}
		a, f, owner := c.claim(q)
		if f == nil {
			noteCacheHit(ctx)
			return a
		}
		if owner {
			return c.send(ctx, q, f)
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			return Fail(ReasonCanceled)
		}
		if !f.senderEnded {
			return cloneAnswer(f.answer)
		}
	}
}

// claim returns the cached answer for q (f nil), or the flight to wait
// on, or a new flight the caller owns and must send.
func (c *Cache) claim(q question) (a Answer, f *flight, owner bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[q]; ok {
		e := el.Value.(*cacheEntry)
		if c.now().Before(e.expires) {
			c.lru.MoveToFront(el)
			c.stats.Hits++
			return cloneAnswer(e.answer), nil, false
		}
		c.remove(el)
	}
	if f, ok := c.flights[q]; ok {
		c.stats.Shared++
		return Answer{}, f, false
	}
	f = &flight{done: make(chan struct{})}
	c.flights[q] = f
	c.stats.Misses++
	return Answer{}, f, true
}

// send asks q below, stores a cacheable answer and releases the waiters,
// also when the resolver below panics (the panic goes on up).
func (c *Cache) send(ctx context.Context, q question, f *flight) Answer {
	f.senderEnded = true // until the answer is in
	defer func() {
		c.mu.Lock()
		delete(c.flights, q)
		c.mu.Unlock()
		close(f.done)
	}()
	a, ttl := c.ttl(ctx, q.name, q.qtype)
	// The waiters and the cache share one copy that nobody changes (each
	// reader clones it); the sender's caller owns a.
	kept := cloneAnswer(a)
	// A canceled answer is the sender's alone, also when ctx has not
	// reported it yet (Client.ask answers canceled once the deadline has
	// passed, a moment before ctx's timer fires).
	f.answer, f.senderEnded = kept, ctx.Err() != nil || a.Reason == ReasonCanceled
	if a.Conclusive() && ttl > 0 && !f.senderEnded {
		c.store(q, kept, min(time.Duration(ttl)*time.Second, MaxCacheTTL))
	}
	return a
}

// store keeps a for ttl and evicts the least recently used answers past
// the memory bound. An answer larger than a tenth of the bound is not
// kept.
func (c *Cache) store(q question, a Answer, ttl time.Duration) {
	size := answerSize(q, a)
	if size > c.maxBytes/10 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[q]; ok {
		c.remove(el)
	}
	e := &cacheEntry{q: q, answer: a, expires: c.now().Add(ttl), size: size}
	c.entries[q] = c.lru.PushFront(e)
	c.bytes += size
	for c.bytes > c.maxBytes {
		c.remove(c.lru.Back())
		c.stats.Evictions++
	}
}

// remove drops an entry; the caller holds c.mu.
func (c *Cache) remove(el *list.Element) {
	e := c.lru.Remove(el).(*cacheEntry)
	delete(c.entries, e.q)
	c.bytes -= e.size
}

// answerSize estimates the memory one cached answer costs.
func answerSize(q question, a Answer) int {
	return entryOverhead + len(q.name) + answerBytes(a)
}

// Stats returns the Cache's counters.
func (c *Cache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Entries, s.Bytes = len(c.entries), c.bytes
	return s
}
