package mtasts

import (
	"container/list"
	"crypto/tls"
	"sync"
	"time"
)

// MaxSessionAge is how long a TLS session of a policy host may be
// resumed. A resumed handshake does not verify the certificate again, so
// the age is capped like the DNS answers a scan reuses
// (resolver.MaxCacheTTL): a host whose certificate broke or was fixed is
// seen as it is within five minutes.
const MaxSessionAge = 5 * time.Minute

// DefaultSessionBytes bounds the memory of a SessionCache made by
// NewSessionCache. A Go TLS session keeps the server's certificate chain
// (parsed, with the chain it was verified with), 2–3 KB in practice, so
// the bound, not the count, decides how many a cache holds: about 700
// within 2 MiB. A policy host is fetched again only when its domain is
// scanned again within MaxSessionAge (one domain, one host), so a few
// hundred recent hosts cover the reuse that happens; a workload of
// distinct domains never resumes, and 4,096 sessions held about 11 MB of
// chains for nothing.
const DefaultSessionBytes = 2 << 20

// SessionCache keeps the TLS sessions of policy hosts, so that repeated
// fetches from one host resume TLS instead of running a full handshake
// (no certificate chain to verify, no signature). It holds at most its
// capacity of sessions and about its byte bound (sessionSize), least
// recently used first out, each for at most MaxSessionAge. It is safe
// for concurrent use; share one across fetches (a Scanner does).
type SessionCache struct {
	capacity int
	maxBytes int
	now      func() time.Time

	mu      sync.Mutex
	entries map[string]*list.Element // of *sessionEntry
	lru     list.List                // most recently used first
	bytes   int
}

type sessionEntry struct {
	key    string
	cs     *tls.ClientSessionState
	stored time.Time
	size   int
}

// NewSessionCache returns a SessionCache for capacity sessions (at least
// 1) within DefaultSessionBytes.
func NewSessionCache(capacity int) *SessionCache {
	return NewSessionCacheBytes(capacity, DefaultSessionBytes)
}

// NewSessionCacheBytes returns a SessionCache for capacity sessions (at
// least 1) within about maxBytes (non-positive: DefaultSessionBytes).
func NewSessionCacheBytes(capacity, maxBytes int) *SessionCache {
	if maxBytes <= 0 {
		maxBytes = DefaultSessionBytes
	}
	return &SessionCache{
		capacity: max(capacity, 1), maxBytes: maxBytes, now: time.Now,
		entries: make(map[string]*list.Element),
	}
}

// Get implements tls.ClientSessionCache: a session older than
// MaxSessionAge is a miss (and is dropped).
func (c *SessionCache) Get(key string) (*tls.ClientSessionState, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*sessionEntry)
	if c.now().Sub(e.stored) >= MaxSessionAge {
		c.remove(el)
		return nil, false
	}
	c.lru.MoveToFront(el)
	return e.cs, true
}

// Put implements tls.ClientSessionCache; a nil session forgets the key.
func (c *SessionCache) Put(key string, cs *tls.ClientSessionState) {
	size := 0
	if cs != nil {
		size = sessionSize(key, cs) // outside the lock: it serializes the session
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.remove(el)
	}
	if cs == nil || size > c.maxBytes {
		return
	}
	c.entries[key] = c.lru.PushFront(&sessionEntry{key: key, cs: cs, stored: c.now(), size: size})
	c.bytes += size
	for len(c.entries) > c.capacity || c.bytes > c.maxBytes {
		c.remove(c.lru.Back())
	}
}

// Len returns the number of sessions held and their estimated bytes.
func (c *SessionCache) Len() (sessions, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries), c.bytes
}

// remove drops an entry; the caller holds c.mu.
func (c *SessionCache) remove(el *list.Element) {
	e := c.lru.Remove(el).(*sessionEntry)
	delete(c.entries, e.key)
	c.bytes -= e.size
}

// sessionOverhead estimates what a held session costs beyond its
// serialized form: the entry, the map slot and the parsed certificates'
// structures (a parsed x509.Certificate keeps its DER and its decoded
// fields, about as much again).
const sessionOverhead = 256

// sessionSize estimates the memory a session keeps alive: twice its
// serialized form (which carries the certificates' DER) plus the entry.
// A session that cannot be serialized counts as 4 KB.
func sessionSize(key string, cs *tls.ClientSessionState) int {
	n := sessionOverhead + len(key)
	_, st, err := cs.ResumptionState()
	if err != nil || st == nil {
		return n + 4<<10
	}
	b, err := st.Bytes()
	if err != nil {
		return n + 4<<10
	}
	return n + 2*len(b)
}
