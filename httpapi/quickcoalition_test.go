package httpapi

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// quickSiege simulates, on the scheduler's own code with a fake clock
// stepped 10 ms at a time, n IPv4 addresses each asking for a diagnostic
// every 2 s and holding its slot for hold (just under quickHold: never
// charged, so always fresh), and, after a 30 s warm-up, a new visitor
// every 7 s over 5 minutes. It returns the visitors and how many of them
// were admitted within DefaultQueueWait.
func quickSiege(n int, hold time.Duration) (visitors, admitted int) {
	clock := NewTestClock()
	s := newScheduler(DefaultMaxInFlight)
	s.now = clock.Now
	type attacker struct {
		ad      admission
		w       *waiter
		queued  time.Time
		sl      *slot
		endAt   time.Time
		nextReq time.Time
	}
	as := make([]*attacker, n)
	for i := range n {
		as[i] = &attacker{ad: admissionFor(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), DefaultSourceInFlight),
			nextReq: clock.Now().Add(time.Duration(i%200) * 10 * time.Millisecond)}
	}
	var vw *waiter
	var vAt time.Time
	const step = 10 * time.Millisecond
	for el := time.Duration(0); el < 5*time.Minute; el += step {
		now := clock.Now()
		s.mu.Lock()
		for _, a := range as {
			if a.sl != nil && !now.Before(a.endAt) {
				s.giveBack(a.sl)
				s.dispatch()
				a.sl = nil
			}
		}
		for _, a := range as {
			if a.w != nil {
				select {
				case <-a.w.ready:
					a.sl, a.endAt, a.w = a.w.granted, now.Add(hold), nil
				default:
					if now.Sub(a.queued) >= DefaultQueueWait {
						s.dequeue(a.w)
						a.w = nil
					}
				}
			}
			if a.sl == nil && a.w == nil && !now.Before(a.nextReq) {
				a.nextReq = now.Add(2 * time.Second)
				if len(s.queues[a.ad.source]) == 0 && s.admissible(a.ad, now) {
					a.sl, _ = s.take(a.ad, nil)
					a.endAt = now.Add(hold)
				} else {
					a.w = &waiter{ad: a.ad, ready: make(chan struct{})}
					a.queued = now
					s.enqueue(a.w)
				}
			}
		}
		if vw != nil {
			select {
			case <-vw.ready:
				admitted++
				s.giveBack(vw.granted)
				s.dispatch()
				vw = nil
			default:
				if now.Sub(vAt) >= DefaultQueueWait {
					s.dequeue(vw)
					vw = nil
				}
			}
		}
		if el > 30*time.Second && el%(7*time.Second) == 0 && vw == nil {
			visitors++
			ad := admissionFor(netip.AddrFrom4([4]byte{198, 51, byte(visitors >> 8), byte(visitors)}), DefaultSourceInFlight)
			if len(s.queues[ad.source]) == 0 && s.admissible(ad, now) {
				sl, _ := s.take(ad, nil)
				s.giveBack(sl)
				admitted++
			} else {
				vw = &waiter{ad: ad, ready: make(chan struct{})}
				vAt = now
				s.enqueue(vw)
			}
		}
		s.mu.Unlock()
		clock.Advance(step)
	}
	return visitors, admitted
}

// TestQuickScanCoalitionCannotDenyVisitors: addresses whose scans hold a
// slot just under quickHold are charged nothing and stay as fresh as a
// visitor; a visitor, never served before, still goes before every one of
// them that was served in the last minutes, so each is admitted within
// the queue wait however many there are.
func TestQuickScanCoalitionCannotDenyVisitors(t *testing.T) {
	for _, n := range []int{250, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			if testing.Short() && n > 250 {
				t.Skip("a long simulation")
			}
			visitors, admitted := quickSiege(n, quickHold-10*time.Millisecond)
			assert.Equal(t, 38, visitors)
			assert.Equal(t, visitors, admitted, "%d addresses scanning quickly: visitors admitted within the queue wait", n)
		})
	}
}

// TestUsageEvictionKeepsHeavyGroups: at the key cap, a spray of new
// sources with quick scans (an IPv6 attacker has /64s to spare) evicts
// groups with little slot time, not a /48 that held a slot for 15 s,
// which would otherwise read as fresh again.
func TestUsageEvictionKeepsHeavyGroups(t *testing.T) {
	t.Parallel()
	now := NewTestClock().Now()
	u := newUsage()
	u.lastSweep = now
	for i := range maxUsageKeys {
		u.add([]capKey{{fmt.Sprint("src spray", i), 3}}, 100*time.Millisecond, now)
	}
	forgotten := 0
	for trial := range 20 {
		heavy := []capKey{{fmt.Sprint("net heavy", trial), 12}}
		u.add(heavy, 15*time.Second, now)
		for i := range 20000 { // about a minute of spray at 330 new /64s a second
			u.add([]capKey{{fmt.Sprint("src new", trial, " ", i), 3}}, 100*time.Millisecond, now)
		}
		if u.recent(heavy, now) < freshLimit.Seconds() {
			forgotten++
		}
	}
	assert.Zero(t, forgotten, "heavy groups forgotten after 20,000 new keys, of 20")
	assert.LessOrEqual(t, len(u.m), maxUsageKeys)
}
