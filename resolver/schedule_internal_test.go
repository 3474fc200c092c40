package resolver

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func defaultSchedule() Schedule {
	return (&Client{}).schedule()
}

// TestScheduleTimeouts: each attempt waits a quarter of the first
// attempt's timeout longer than the one before, capped, and never as long
// as Unbound's 1.9 s discard-timeout.
func TestScheduleTimeouts(t *testing.T) {
	s := defaultSchedule()
	want := []time.Duration{800, 1000, 1200, 1400, 1600, 1600, 1600}
	for k, w := range want {
		assert.Equal(t, w*time.Millisecond, s.Timeout(k), "attempt %d", k)
		assert.Less(t, s.Timeout(k), 1900*time.Millisecond, "attempt %d", k)
	}
	assert.Equal(t, 1600*time.Millisecond, s.Timeout(1<<30), "a huge attempt index stays capped")
	long := (&Client{Timeout: 5 * time.Second}).schedule()
	assert.Equal(t, 5*time.Second, long.Timeout(0))
	assert.Equal(t, 5*time.Second, long.Timeout(3), "a Timeout above the cap is kept, not shortened")
}

// sendTimes runs a retry on a fake clock where no reply ever comes, and
// returns when each attempt was sent and to which server.
func sendTimes(t *testing.T, r *retry) (at []time.Duration, servers []int) {
	t.Helper()
	now := t0
	for i := 0; i < 1000; i++ {
		act := r.next(now)
		switch act.kind {
		case actStop:
			return at, servers
		case actSend:
			at = append(at, now.Sub(t0))
			servers = append(servers, act.server)
		}
		require.True(t, act.until.After(now), "an attempt waits a while")
		now = act.until // the attempt times out
	}
	require.FailNow(t, "the retry never stopped")
	return nil, nil
}

// TestRetryUntilDeadline: without replies, a question is asked again
// until the deadline, rotating over the servers, each attempt's window
// clipped to the deadline; not 2 attempts.
func TestRetryUntilDeadline(t *testing.T) {
	r := newRetry(defaultSchedule(), 2, t0.Add(10*time.Second))
	at, servers := sendTimes(t, r)
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{0, 800 * ms, 1800 * ms, 3000 * ms, 4400 * ms, 6000 * ms, 7600 * ms, 9200 * ms}, at)
	assert.Equal(t, []int{0, 1, 0, 1, 0, 1, 0, 1}, servers)
	assert.Equal(t, actStop, r.next(t0.Add(10*time.Second)).kind, "nothing is sent at the deadline")
}

// TestRetryAttemptsCap: Attempts caps the attempts.
func TestRetryAttemptsCap(t *testing.T) {
	s := defaultSchedule()
	s.Attempts = 2
	at, servers := sendTimes(t, newRetry(s, 1, t0.Add(time.Minute)))
	assert.Equal(t, []time.Duration{0, 800 * time.Millisecond}, at)
	assert.Equal(t, []int{0, 0}, servers)
}

// TestRetryDeadlineClips: the last attempt waits only until the deadline.
func TestRetryDeadlineClips(t *testing.T) {
	r := newRetry(defaultSchedule(), 1, t0.Add(500*time.Millisecond))
	act := r.next(t0)
	require.Equal(t, actSend, act.kind)
	assert.Equal(t, t0.Add(500*time.Millisecond), act.until)
	assert.Equal(t, actStop, r.next(act.until).kind)
	assert.Equal(t, actStop, newRetry(defaultSchedule(), 1, t0).next(t0).kind, "no time, no attempt")
}

// TestRetryErrorReply: a server that replies with an error is not asked
// again, the next attempt goes out at once to the next server, and the
// lookup stops when every server has replied with an error.
func TestRetryErrorReply(t *testing.T) {
	r := newRetry(defaultSchedule(), 3, t0.Add(10*time.Second))
	first := r.next(t0)
	require.Equal(t, actSend, first.kind)
	require.Equal(t, 0, first.server)
	now := t0.Add(5 * time.Millisecond)
	r.fail(0, now)
	second := r.next(now)
	require.Equal(t, actSend, second.kind, "the error reply makes the next attempt due at once")
	assert.Equal(t, 1, second.server)
	// Server 1 times out; server 2 is next, then 1 again, never 0.
	third := r.next(second.until)
	require.Equal(t, actSend, third.kind)
	assert.Equal(t, 2, third.server)
	fourth := r.next(third.until)
	require.Equal(t, actSend, fourth.kind)
	assert.Equal(t, 1, fourth.server, "the failed server 0 is skipped")
	// A late error reply from server 2 does not cut server 1's wait short.
	now = fourth.until.Add(-time.Millisecond)
	r.fail(2, now)
	assert.Equal(t, actWait, r.next(now).kind)
	r.fail(1, now)
	assert.Equal(t, actStop, r.next(now).kind, "every server replied with an error")
	assert.True(t, r.allFailed())
}

// TestRetryLateAnswerWindow: a resolver that answers every question in
// 2.2 s (and ignores repeats) gives a complete answer. On a fake clock,
// the lookup is still open when the answer to its first attempt arrives,
// and the driver keeps every attempt's ID registered until it ends, so
// the answer is taken. Under the old schedule (2 attempts of 2 s) the
// lookup had given up at 4 s but the first attempt's socket was closed
// at 2 s.
func TestRetryLateAnswerWindow(t *testing.T) {
	const answerAfter = 2200 * time.Millisecond
	for _, deadline := range []time.Duration{2300 * time.Millisecond, 5 * time.Second, 15 * time.Second} {
		r := newRetry(defaultSchedule(), 1, t0.Add(deadline))
		now := t0
		var sent []time.Duration
		for now.Sub(t0) < answerAfter {
			act := r.next(now)
			require.NotEqual(t, actStop, act.kind, "deadline %v: stopped at %v, before the answer", deadline, now.Sub(t0))
			if act.kind == actSend {
				sent = append(sent, now.Sub(t0))
			}
			now = act.until
			if now.Sub(t0) > answerAfter {
				now = t0.Add(answerAfter)
			}
		}
		assert.Equal(t, []time.Duration{0, 800 * time.Millisecond, 1800 * time.Millisecond}, sent, "deadline %v", deadline)
		assert.NotEqual(t, actStop, r.next(now).kind, "deadline %v: the lookup is open when the answer comes", deadline)
	}
}

// TestRetryWaitsAfterOneSend: asked again before the first attempt times
// out (a reply came that did not end the lookup, e.g. one for another
// question), the retry waits until that attempt's timeout; it does not
// send a second attempt early.
func TestRetryWaitsAfterOneSend(t *testing.T) {
	r := newRetry(defaultSchedule(), 2, t0.Add(10*time.Second))
	first := r.next(t0)
	require.Equal(t, actSend, first.kind)
	for _, at := range []time.Time{t0, t0.Add(time.Millisecond), first.until.Add(-time.Nanosecond)} {
		act := r.next(at)
		assert.Equal(t, actWait, act.kind, "at %v after the first send", at.Sub(t0))
		assert.Equal(t, first.until, act.until, "at %v: the wait ends when the first attempt times out", at.Sub(t0))
	}
	assert.Equal(t, 1, r.attempts(), "nothing was sent while the first attempt was open")
	second := r.next(first.until)
	assert.Equal(t, actSend, second.kind, "the second attempt goes out when the first times out")
	assert.Equal(t, 1, second.server)
}

// TestRetryFailOutOfRange: an error reply that names no server of the
// lookup (an index outside the list) changes nothing: no server is
// marked failed and the open attempt's wait is not cut short.
func TestRetryFailOutOfRange(t *testing.T) {
	r := newRetry(defaultSchedule(), 2, t0.Add(10*time.Second))
	first := r.next(t0)
	require.Equal(t, actSend, first.kind)
	now := t0.Add(time.Millisecond)
	for _, server := range []int{-1, 2, 1 << 20} {
		require.NotPanics(t, func() { r.fail(server, now) }, "server %d", server)
	}
	assert.False(t, r.allFailed())
	assert.Equal(t, 0, r.nfailed)
	assert.Equal(t, []bool{false, false}, r.failed)
	act := r.next(now)
	assert.Equal(t, actWait, act.kind, "the open attempt still waits")
	assert.Equal(t, first.until, act.until)
}

// TestJitterSpreadsWaits: a Client's attempts wait the schedule's time
// lengthened by at most an eighth, never less (a one-attempt lookup
// waits its whole Timeout), drawn afresh each time, so that questions
// asked in the same instant do not all retry together.
func TestJitterSpreadsWaits(t *testing.T) {
	s := defaultSchedule()
	for k := range 6 {
		base := s.Timeout(k)
		lo, hi := 2*base, time.Duration(0)
		seen := map[time.Duration]bool{}
		for range 2000 {
			w := jitter(base)
			require.GreaterOrEqual(t, w, base, "attempt %d: never shorter than its timeout", k)
			require.LessOrEqual(t, w, base+base/8, "attempt %d", k)
			require.Less(t, w, 1900*time.Millisecond, "below Unbound's discard-timeout")
			lo, hi = min(lo, w), max(hi, w)
			seen[w] = true
		}
		// 2,000 draws over an eighth of the wait: both ends are reached
		// to within a thirty-second with certainty for any test run
		// (the chance of missing is below 2^-100).
		assert.Less(t, lo, base+base/32, "attempt %d: some waits stay near the timeout", k)
		assert.Greater(t, hi, base+base/8-base/32, "attempt %d: some waits are an eighth longer", k)
		assert.Greater(t, len(seen), 1000, "attempt %d: waits are drawn afresh", k)
	}
	assert.Equal(t, time.Duration(5), jitter(5), "a wait too short to spread is kept")
	huge := time.Duration(math.MaxInt64)
	assert.Equal(t, huge, jitter(huge), "a wait past any deadline is kept, not overflowed")
}

// TestClientRetriesAreSpread: the lookups of a Client draw their waits
// with jitter, and every wait stays inside the spread.
func TestClientRetriesAreSpread(t *testing.T) {
	c := &Client{Servers: []string{"127.0.0.1:1"}}
	// the retry is run on the fake clock of sendTimes, from t0
	ctx, cancel := context.WithDeadline(context.Background(), t0.Add(10*time.Second))
	defer cancel()
	l := c.newLookup(ctx, c.Servers, "example.com.", TypeA, false, c.schedule())
	defer l.end()
	require.NotNil(t, l.r.spread, "a Client's lookup spreads its waits")
	at, _ := sendTimes(t, &l.r)
	require.GreaterOrEqual(t, len(at), 6)
	s := defaultSchedule()
	for k := 1; k < len(at)-1; k++ {
		wait := at[k] - at[k-1]
		base := s.Timeout(k - 1)
		assert.GreaterOrEqual(t, wait, base, "attempt %d", k)
		assert.LessOrEqual(t, wait, base+base/8, "attempt %d", k)
	}
}

// newRetry is makeRetry's state on the heap, for the tests that drive it.
func newRetry(sched Schedule, servers int, deadline time.Time) *retry {
	r := makeRetry(sched, servers, deadline)
	return &r
}
