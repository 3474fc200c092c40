package mtasts

import (
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

// SessionCache keeps the TLS sessions of policy hosts, so that repeated
// fetches from one host resume TLS instead of running a full handshake
// (no certificate chain to verify, no signature). It holds at most its
// capacity of sessions, least recently used first out, each for at most
// MaxSessionAge. It is safe for concurrent use; share one across fetches
// (a Scanner does).
type SessionCache struct {
	lru      tls.ClientSessionCache
	capacity int
	now      func() time.Time

	mu     sync.Mutex
	stored map[string]time.Time // when each key's session was stored
}

// NewSessionCache returns a SessionCache for capacity sessions (at least
// 1).
func NewSessionCache(capacity int) *SessionCache {
	capacity = max(capacity, 1)
	return &SessionCache{
		lru: tls.NewLRUClientSessionCache(capacity), capacity: capacity, now: time.Now,
		stored: make(map[string]time.Time),
	}
}

// Get implements tls.ClientSessionCache: a session older than
// MaxSessionAge is a miss.
func (c *SessionCache) Get(key string) (*tls.ClientSessionState, bool) {
	c.mu.Lock()
	at, ok := c.stored[key]
	fresh := ok && c.now().Sub(at) < MaxSessionAge
	c.mu.Unlock()
	if !fresh {
		return nil, false
	}
	return c.lru.Get(key)
}

// Put implements tls.ClientSessionCache.
func (c *SessionCache) Put(key string, cs *tls.ClientSessionState) {
	c.lru.Put(key, cs)
	c.mu.Lock()
	defer c.mu.Unlock()
	if cs == nil {
		delete(c.stored, key)
		return
	}
	c.stored[key] = c.now()
	if len(c.stored) > 2*c.capacity {
		c.prune()
	}
}

// prune drops the times of expired sessions, or all of them when that is
// not enough (their sessions then count as expired): the map stays
// within twice the capacity. The caller holds c.mu.
func (c *SessionCache) prune() {
	now := c.now()
	for k, at := range c.stored {
		if now.Sub(at) >= MaxSessionAge {
			delete(c.stored, k)
		}
	}
	if len(c.stored) > 2*c.capacity {
		clear(c.stored)
	}
}
