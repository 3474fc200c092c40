package resolver

import (
	"sync"
	"time"
)

// SetCacheClock replaces the clock of c (tests only).
func SetCacheClock(c *Cache, now func() time.Time) { c.now, c.epoch = now, now() }

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

// SetTombstone sets how long the queries of a lookup that took a UDP
// answer stay registered after it (tests only).
func SetTombstone(c *Client, d time.Duration) { c.pool.tombstone = d }

// SetSocketBatch sets how many queries one UDP socket of c carries (tests
// only; 0: socketBatch).
func SetSocketBatch(c *Client, n int) { c.pool.batch = n }

// SetReaders gives each UDP socket of c a reader goroutine of its own
// until it holds tombstones only, as where there is no watcher (tests
// only).
func SetReaders(c *Client, on bool) { c.pool.readers = on }

// WatchedSockets returns how many sockets of c the watcher reads now
// (tests only).
func WatchedSockets(c *Client) int { return c.pool.watch.count() }
