package resolver

import (
	"sync"
	"time"
)

// SetCacheClock replaces the clock of c (tests only).
func SetCacheClock(c *Cache, now func() time.Time) { c.now = now }

// ManualClock is a clock a test moves by hand (tests only).
type ManualClock struct {
	mu sync.Mutex
	t  time.Time
}

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock by d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Drops returns how many datagrams and ICMP errors c's sockets dropped,
// of every kind (tests only).
func Drops(c *Client) int64 {
	var n uint64
	for _, v := range c.SpoofDrops() {
		n += v
	}
	return int64(n)
}
