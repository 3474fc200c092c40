package resolver

import "time"

// SetCacheClock replaces the clock of c (tests only).
func SetCacheClock(c *Cache, now func() time.Time) { c.now = now }
