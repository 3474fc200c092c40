package syncbuf

import (
	"strings"
	"sync"
	"testing"
)

// TestConcurrentWrites: every write from many goroutines lands whole (run
// with -race, which also catches an unguarded buffer).
func TestConcurrentWrites(t *testing.T) {
	const writers, each = 8, 100
	var b Buffer
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if n, err := b.Write([]byte("ab\n")); n != 3 || err != nil {
					t.Errorf("Write = %d, %v", n, err)
				}
			}
		}()
	}
	wg.Wait()
	if got := strings.Count(b.String(), "ab\n"); got != writers*each {
		t.Errorf("%d whole writes, want %d", got, writers*each)
	}
}
