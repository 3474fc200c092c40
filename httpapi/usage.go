package httpapi

import (
	"math"
	"time"
)

// Admission by behaviour (RELIABILITY.md, "The admission model").
const (
	// usageDecay is the time constant of a group's recent slot time: what
	// a diagnostic held counts e^(-t/usageDecay) of its length t later,
	// so about the last two rate windows count.
	usageDecay = 2 * DefaultRateWindow
	// quickHold is the part of every diagnostic's slot time that is not
	// counted as recent slot time: a scan of a domain that answers takes
	// well under it, so a visitor scanning often stays fresh; only slow
	// diagnostics count, by what they held beyond it.
	quickHold = time.Second
	// freshLimit is the recent slow slot time under which a source (and
	// its /56 and /48) with nothing in flight is fresh and may take the
	// reserve: a small share (1/60) of DefaultSourceBudget. One scan held
	// for seconds by a slow domain puts its source over it for minutes (a
	// scan cut after 3.5 s counts 2.5 s: fresh again after usageDecay ×
	// ln 2.5, about 110 s; one held for the whole 16 s deadline, after
	// usageDecay × ln 15, about 5 minutes 25 s).
	freshLimit = time.Second
	// forgetBelow is the recent slot time under which a group is
	// forgotten (it counts as none): a 15 s hold is forgotten after
	// about 15 minutes.
	forgetBelow = 10 * time.Millisecond
	// maxUsageKeys bounds the groups whose slot time is kept (about 100
	// bytes each). Past it a new group evicts the least of evictSample
	// groups taken at random, which then counts as fresh: the table
	// degrades towards leniency, but a group with seconds of slot time is
	// kept while a sample holds one with less (a spray of new sources
	// with quick scans evicts each other, not a heavy /48).
	maxUsageKeys = 1 << 16
	// evictSample is the number of groups looked at for an eviction.
	evictSample = 8
)

// usage is the recent slow slot time of every group (source, IPv6 /56
// and /48): what each diagnostic held beyond quickHold, decayed
// exponentially. It is not safe for concurrent use: the
// scheduler's mu guards it.
type usage struct {
	m         map[string]used
	peak      int
	lastSweep time.Time
}

// used is a group's slot time in seconds as of at.
type used struct {
	secs float64
	at   time.Time
}

func newUsage() *usage { return &usage{m: map[string]used{}} }

// decayed returns u's value at now.
func (u used) decayed(now time.Time) float64 {
	dt := now.Sub(u.at)
	if dt <= 0 {
		return u.secs
	}
	return u.secs * math.Exp(-dt.Seconds()/usageDecay.Seconds())
}

// last returns when a diagnostic of any of groups last gave its slot back
// within the memory of the table (about the last usageDecay to twice
// that), the zero Time when none did.
func (u *usage) last(groups []capKey) time.Time {
	var t time.Time
	for _, g := range groups {
		if e, ok := u.m[g.key]; ok && e.at.After(t) {
			t = e.at
		}
	}
	return t
}

// recent returns the most recent slot time of any of groups, in seconds.
func (u *usage) recent(groups []capKey, now time.Time) float64 {
	worst := 0.0
	for _, g := range groups {
		if e, ok := u.m[g.key]; ok {
			worst = max(worst, e.decayed(now))
		}
	}
	return worst
}

// add charges held to every group and notes now as its last use: a group
// is remembered for at least usageDecay after its last diagnostic, even
// one charged nothing, so that fresh waiters can be ordered by how
// recently they were served.
func (u *usage) add(groups []capKey, held time.Duration, now time.Time) {
	u.sweep(now)
	for _, g := range groups {
		v := held.Seconds()
		e, ok := u.m[g.key]
		if ok {
			v += e.decayed(now)
		}
		if !ok && len(u.m) >= maxUsageKeys {
			u.evict(now)
		}
		u.m[g.key] = used{secs: v, at: now}
	}
	u.peak = max(u.peak, len(u.m))
}

// evict forgets, of evictSample groups taken at random (Go's map order),
// the one with the least slot time at now, the least recently used among
// equals.
func (u *usage) evict(now time.Time) {
	victim, least, at, n := "", math.Inf(1), time.Time{}, 0
	for k, e := range u.m {
		if v := e.decayed(now); v < least || (v == least && e.at.Before(at)) {
			victim, least, at = k, v, e.at
		}
		if n++; n >= evictSample {
			break
		}
	}
	delete(u.m, victim)
}

// sweep forgets, at most once per usageDecay, the groups decayed under
// forgetBelow and last used usageDecay ago or more, and rebuilds the map when it fell to a quarter of its
// peak (Go maps never shrink).
func (u *usage) sweep(now time.Time) {
	if now.Sub(u.lastSweep) < usageDecay {
		return
	}
	u.lastSweep = now
	for k, e := range u.m {
		if e.decayed(now) < forgetBelow.Seconds() && now.Sub(e.at) >= usageDecay {
			delete(u.m, k)
		}
	}
	if u.peak > rebuildMin && len(u.m) < u.peak/4 {
		m := make(map[string]used, len(u.m))
		for k, e := range u.m {
			m[k] = e
		}
		u.m, u.peak = m, len(m)
	}
}
