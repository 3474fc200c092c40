package resolver

import (
	"math"
	"math/rand/v2"
	"time"
)

// Schedule says how long each attempt of one question waits for its reply
// (see the package doc, "Retries"). Attempt k (0-based) waits First plus a
// quarter of First for every attempt before it, capped at Max, and never
// past the lookup's deadline. A Client lengthens each of these waits by
// a random amount up to an eighth of it (see jitter).
type Schedule struct {
	// First is the timeout of the first attempt.
	First time.Duration
	// Max caps the timeout of one attempt; it is at least First.
	Max time.Duration
	// Attempts caps the attempts; 0 means as many as the deadline allows.
	Attempts int
}

// Timeout returns how long attempt k (0-based) waits for its reply.
func (s Schedule) Timeout(k int) time.Duration {
	step := s.First / 4
	t := s.First + time.Duration(min(k, 1<<16))*step
	return max(min(t, s.Max), s.First)
}

// actKind is what a retry tells its driver to do next.
type actKind int

const (
	actSend actKind = iota // send an attempt to server, then wait until until
	actWait                // wait for a reply until until
	actStop                // give up: no attempt is left
)

// action is one decision of a retry.
type action struct {
	kind   actKind
	server int       // actSend: the index of the server to ask
	until  time.Time // actSend, actWait: when the latest attempt times out
}

// retry decides, for one question, when which server is asked and when
// the lookup gives up. It is pure: the driver (Client.attempts) feeds it
// the time and the error replies, and does what it says. Attempts rotate
// over the servers that have not replied with an error; an attempt is
// sent when the previous one timed out, or at once when the server of the
// previous one replied with an error. The lookup ends when every server
// has replied with an error, when Attempts attempts have timed out, or at
// the deadline. Replies to earlier attempts are taken until then (the
// driver keeps their IDs registered).
type retry struct {
	sched    Schedule
	deadline time.Time
	failed   []bool // servers that replied with an error
	nfailed  int
	sent     int       // attempts sent
	rot      int       // next server in the rotation
	last     int       // server of the latest attempt
	waitEnd  time.Time // when the latest attempt times out
	// spread, when set, lengthens each attempt's wait at random (a
	// Client's lookups set jitter); nil: the schedule's own waits.
	spread func(time.Duration) time.Duration
}

// jitterShare: jitter lengthens a wait by up to 1/jitterShare of it. No
// RFC sets it; the bound that matters is Unbound's discard-timeout (1.9
// s), which the longest default wait, MaxAttemptTimeout plus an eighth
// (1.8 s), stays under (TestJitterSpreadsWaits).
const jitterShare = 8

// jitter returns t lengthened by a random amount of at most an eighth of
// it. The attempts of questions asked together (the scans a burst of
// requests starts in the same millisecond) then fall due spread over an
// eighth of their wait, not all at once, and do not come back together at
// every attempt: hundreds of goroutines made runnable in one millisecond
// would queue a visitor's behind them. Only lengthened: an attempt waits
// at least its timeout (Client.Timeout is what the first waits, and a
// one-attempt lookup's whole wait). With the default Timeout the longest
// wait, 1.6 s plus an eighth, is 1.8 s: under Unbound's discard-timeout
// (1.9 s).
func jitter(t time.Duration) time.Duration {
	if t < jitterShare || t > math.MaxInt64/2 {
		return t // nothing to spread, or past any deadline anyway
	}
	return t + rand.N(t/jitterShare+1)
}

// makeRetry returns the retry state of a lookup (kept inside the
// lookup's own) asking servers servers by sched until deadline.
func makeRetry(sched Schedule, servers int, deadline time.Time) retry {
	return retry{sched: sched, deadline: deadline, failed: make([]bool, servers), last: -1}
}

// next returns what to do at now.
func (r *retry) next(now time.Time) action {
	switch {
	case r.nfailed == len(r.failed) || !now.Before(r.deadline):
		return action{kind: actStop}
	case r.sent > 0 && now.Before(r.waitEnd):
		return action{kind: actWait, until: r.waitEnd}
	case r.sched.Attempts > 0 && r.sent >= r.sched.Attempts:
		return action{kind: actStop}
	}
	for r.failed[r.rot%len(r.failed)] {
		r.rot++
	}
	server := r.rot % len(r.failed)
	r.rot++
	wait := r.sched.Timeout(r.sent)
	if r.spread != nil {
		wait = r.spread(wait)
	}
	end := now.Add(wait)
	if end.After(r.deadline) {
		end = r.deadline
	}
	r.sent++
	r.last, r.waitEnd = server, end
	return action{kind: actSend, server: server, until: end}
}

// fail records that server replied with an error (an error RCODE twice,
// a failed TCP retry, a socket it could not open): it is not asked again,
// and when it was asked last the next attempt is due at once.
func (r *retry) fail(server int, now time.Time) {
	if server < 0 || server >= len(r.failed) {
		return
	}
	if !r.failed[server] {
		r.failed[server] = true
		r.nfailed++
	}
	if server == r.last && now.Before(r.waitEnd) {
		r.waitEnd = now
	}
}

// allFailed reports whether every server replied with an error.
func (r *retry) allFailed() bool { return r.nfailed == len(r.failed) }

// attempts returns how many attempts were sent.
func (r *retry) attempts() int { return r.sent }
