package httpapi

import (
	"runtime/debug"
	"sync"
	"time"
)

// Returns of memory are coalesced: the first request arms a timer of
// returnMemoryDelay (the other tables swept at about the same time join
// it), and two returns are at least returnMemoryEvery apart.
const (
	returnMemoryDelay = 5 * time.Second
	returnMemoryEvery = 30 * time.Second
)

// MemoryReturner returns to the system the memory a flood left behind,
// when a Listener's connections drain after a flood (and again when the
// connections that outlived it close), a limiter's table shrinks to an
// eighth after a spray of addresses, or the diagnostics in flight fall
// after a burst of scans: it runs a collection that frees it
// (debug.FreeOSMemory), coalescing the requests that come at about the
// same time into one, and at most one every 30 seconds. The zero value is
// ready to use; it must not be copied after first use.
//
// A service shares one between its Listener
// ([ListenerOptions].MemoryReturner), its handler ([Options].MemoryReturner)
// and the limiters it builds ([MemoryLimiterOptions].MemoryReturner,
// [FallbackOptions].MemoryReturner), so that a flood which drains them all
// at once costs one collection, not one each. Each of those left nil gets
// one of its own.
type MemoryReturner struct {
	mu       sync.Mutex
	armed    bool
	last     time.Time
	requests int // calls of request, for tests
}

// orOwnReturner is m, or a new MemoryReturner when m is nil.
func orOwnReturner(m *MemoryReturner) *MemoryReturner {
	if m == nil {
		return &MemoryReturner{}
	}
	return m
}

// request schedules a collection that returns the freed memory to the
// system (debug.FreeOSMemory), unless one is already scheduled. It
// collects twice: the first collection only moves what sync.Pools cache
// (net/http's connection buffers, 8 KiB or more per connection a flood
// left behind) to their victim caches, the second frees it.
func (m *MemoryReturner) request() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests++
	if m.armed {
		return
	}
	m.armed = true
	wait := max(returnMemoryDelay, time.Until(m.last.Add(returnMemoryEvery)))
	time.AfterFunc(wait, func() {
		debug.FreeOSMemory()
		debug.FreeOSMemory()
		m.mu.Lock()
		m.armed, m.last = false, time.Now()
		m.mu.Unlock()
	})
}
