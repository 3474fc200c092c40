//go:build !linux

package resolver

// canWatch: sockets holding tombstones only keep their reader (see the
// Linux watcher).
const canWatch = false

// watcher is the Linux watcher's stand-in: it never watches.
type watcher struct{}

// add never watches s.
func (w *watcher) add(s *socket) bool { return false }

// forget has nothing to forget.
func (w *watcher) forget(s *socket) {}

// count is 0: nothing is watched.
func (w *watcher) count() int { return 0 }
