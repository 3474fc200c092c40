package resolver

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestTombQueueReleasesWhenDue: in fake time, each lookup's tombstones
// stay registered until their time is up, not a moment less, and go
// then, in the order buried; one buried with a shorter time behind a
// longer one goes with it, never before its own time.
func TestTombQueueReleasesWhenDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A socket with no descriptor, marked closed so that releasing
		// its last query does not close it again.
		s := &socket{closed: true}
		for _, id := range []uint16{1, 2, 3, 99} {
			s.pending = append(s.pending, pendingQuery{id: id, e: entry{tomb: id != 99}})
		}
		held := func(id uint16) bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.find(id) >= 0
		}
		var q tombQueue
		q.add(2*time.Second, []ticket{{s: s, id: 1}})
		time.Sleep(time.Second)
		q.add(2*time.Second, []ticket{{s: s, id: 2}})
		q.add(time.Second/2, []ticket{{s: s, id: 3}}) // behind 2, which falls due later
		time.Sleep(time.Second - time.Nanosecond)
		synctest.Wait()
		assert.True(t, held(1), "1 released before its time")
		assert.True(t, held(3), "3 released before 1, ahead of it")
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		assert.False(t, held(1), "1 kept past its time")
		assert.True(t, held(2), "2 released before its time")
		assert.True(t, held(3), "3 released before 2, ahead of it")
		time.Sleep(time.Second - time.Nanosecond)
		synctest.Wait()
		assert.True(t, held(2), "2 released before its time")
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		assert.False(t, held(2), "2 kept past its time")
		assert.False(t, held(3), "3 kept past 2's time")
		assert.True(t, held(99), "the keeper is not a tombstone")
		q.add(time.Second, []ticket{{s: s, id: 99}})
		time.Sleep(time.Second)
		synctest.Wait()
		assert.False(t, held(99), "the timer is set again once the queue emptied")
	})
}
