package syncbuf

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
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
				n, err := b.Write([]byte("ab\n"))
				assert.Equal(t, 3, n, "Write = %d, %v", n, err)
				assert.NoError(t, err, "Write = %d, %v", n, err)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, writers*each, strings.Count(b.String(), "ab\n"), "whole writes")
}
