package spf

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

// Attacks on the walk: shapeOf, which reads a record's shape term by term
// rather than through Parse's []Term, and the walk's lookups, which reuse
// its idle goroutines.

// attackZone is a generated set of SPF records, answered by name.
type attackZone map[string][]string

// hostileTerms are the terms a generated record draws from: every kind,
// qualifier, CIDR, prefix length 0, macros, modifiers (known, unknown,
// duplicate), mechanisms after all, upper case and syntax errors.
func hostileTerm(rng *rand.Rand, names []string) string {
	name := func() string { return names[rng.IntN(len(names))] }
	q := []string{"", "", "+", "-", "~", "?"}[rng.IntN(6)]
	switch rng.IntN(24) {
	case 0, 1, 2:
		return q + "include:" + name()
	case 3:
		return "redirect=" + name()
	case 4:
		return q + "all"
	case 5:
		return q + "a"
	case 6:
		return q + "a:" + name() + []string{"", "/24", "/0", "//0", "/32//128"}[rng.IntN(5)]
	case 7:
		return q + "mx" + []string{"", ":" + name(), "/0", ":" + name() + "/24//64"}[rng.IntN(4)]
	case 8:
		return q + "ptr" + []string{"", ":" + name()}[rng.IntN(2)]
	case 9:
		return q + "exists:" + name()
	case 10:
		return q + "ip4:" + []string{"192.0.2.1", "0.0.0.0/0", "198.51.100.0/24", "1.2.3.4/33"}[rng.IntN(4)]
	case 11:
		return q + "ip6:" + []string{"2001:db8::1", "::/0", "2001:db8::/32"}[rng.IntN(3)]
	case 12:
		return "exp=" + name()
	case 13:
		return "foo=" + []string{"bar", "%{d}", ""}[rng.IntN(3)]
	case 14:
		return q + "include:%{d}." + name()
	case 15:
		return q + "exists:%{i}.%{l}." + name()
	case 16:
		return "redirect=%{d}.x." + name()
	case 17:
		return strings.ToUpper(q + "include:" + name())
	case 18:
		return "REDIRECT=" + strings.ToUpper(name())
	case 19:
		return q + "ALL"
	case 20:
		return []string{"garbage!", "include:", "a:", "ip4:", "=x", "v=spf1", "mx:%{z}"}[rng.IntN(7)]
	case 21:
		return q + "include:" + name() + "."
	case 22:
		return q + "a:" + name()
	default:
		return q + "mx:" + name()
	}
}

func genZone(seed uint64) (attackZone, []string) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	n := 3 + rng.IntN(12)
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("d%d.z%d.test", i, seed)
	}
	z := attackZone{}
	for _, name := range names {
		if rng.IntN(10) == 0 {
			continue // no record
		}
		records := 1
		if rng.IntN(12) == 0 {
			records = 2 // multiple records
		}
		for range records {
			terms := []string{}
			for range rng.IntN(9) {
				terms = append(terms, hostileTerm(rng, names))
			}
			sep := " "
			if rng.IntN(8) == 0 {
				sep = "  "
			}
			version := "v=spf1"
			if rng.IntN(10) == 0 {
				version = "V=SPF1"
			}
			rec := version + " " + strings.Join(terms, sep)
			if rng.IntN(6) == 0 {
				rec += " "
			}
			z[name] = append(z[name], rec)
		}
	}
	return z, names
}

// resolve answers from z: TXT from the zone, A/AAAA/MX by a hash of the
// name (found, nodata, nxdomain, or a temporary failure).
func (z attackZone) resolve(name string, qtype resolver.Type) resolver.Answer {
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	if qtype == resolver.TypeTXT {
		recs, ok := z[name]
		if !ok {
			return resolver.Answer{Outcome: resolver.NXDomain}
		}
		a := resolver.Answer{Outcome: resolver.Found}
		for _, r := range recs {
			a.Records = append(a.Records, resolver.Record{Name: name, Type: resolver.TypeTXT, TTL: 300, TXT: []string{r}})
		}
		return a
	}
	h := fnv.New32a()
	fmt.Fprintf(h, "%s/%d", name, qtype)
	switch h.Sum32() % 5 {
	case 0:
		return resolver.Answer{Outcome: resolver.NXDomain}
	case 1:
		return resolver.Answer{Outcome: resolver.NoData}
	case 2:
		return resolver.Fail(resolver.ReasonBudgetExhausted)
	}
	switch qtype {
	case resolver.TypeMX:
		return resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{{Name: name, Type: qtype, Target: "mx." + name}}}
	case resolver.TypeAAAA:
		return resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{{Name: name, Type: qtype, Addr: netip.MustParseAddr("2001:db8::7")}}}
	default:
		return resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{{Name: name, Type: qtype, Addr: netip.MustParseAddr("192.0.2.7")}}}
	}
}

// TestAttackShapeMatchesParseHostile: shapeOf against the former reading
// of a parsed record on every generated hostile record.
func TestAttackShapeMatchesParseHostile(t *testing.T) {
	for seed := range uint64(3000) {
		z, _ := genZone(seed)
		for _, recs := range z {
			for _, rec := range recs {
				checkShape(t, rec)
			}
		}
	}
	for _, s := range []string{
		"v=spf1 all", "v=spf1 ip4:0.0.0.0/0 redirect=x.example", "v=spf1 redirect=x.example all",
		"v=spf1 exp=x.example -all redirect=y.example", "v=spf1 -all +ip4:0.0.0.0/0", "v=spf1 ?ip4:0.0.0.0/0 +ip6:::/0 -all",
		"v=spf1 a:x/0 mx/0 include:y", "v=spf1 foo=bar foo=baz", "v=spf1 redirect=%{d}", "v=spf1 REDIRECT=X.example ALL",
		"v=spf1 -all redirect=a redirect=b", "v=spf1 exp=a -all exp=b", "v=spf1 ptr:x ptr -all ptr",
		"v=spf1\tall", "v=spf1 ip6:::/0", "v=spf1 +ip6:0::/0 -all", "v=spf1 ip4:0.0.0.0/00", "v=spf1 ip4:0.0.0.0/0/0",
		"v=spf1 include:a include:a include:a -all", strings.Repeat("v=spf1 ", 1) + strings.Repeat("include:x ", 200),
	} {
		checkShape(t, s)
	}
}

// slowZoneResolver answers from z after rtt of fake time, canceling
// cancel (the caller's context) at its k-th lookup, and tracks the
// lookups in flight.
type slowZoneResolver struct {
	z      attackZone
	k      int
	cancel context.CancelFunc

	mu       sync.Mutex
	n        int
	inFlight int
}

func (s *slowZoneResolver) Lookup(ctx context.Context, name string, qt resolver.Type) resolver.Answer {
	s.mu.Lock()
	s.n++
	s.inFlight++
	if s.n == s.k {
		s.cancel()
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	select {
	case <-time.After(rtt):
	case <-ctx.Done():
		return resolver.Fail(resolver.ReasonCanceled)
	}
	return s.z.resolve(name, qt)
}

// wideZone is a tree of includes, redirects and a, mx and exists terms,
// wide enough that many lookups run at once and goroutines go idle and
// are reused.
func wideZone() attackZone {
	z := attackZone{}
	var top []string
	for i := range 8 {
		var mid []string
		for j := range 4 {
			leaf := fmt.Sprintf("l%d-%d.wide.test", i, j)
			z[leaf] = []string{fmt.Sprintf("v=spf1 a mx exists:e.%s redirect=r.%s", leaf, leaf)}
			z["r."+leaf] = []string{"v=spf1 a:x." + leaf + " -all"}
			mid = append(mid, "include:"+leaf)
		}
		name := fmt.Sprintf("m%d.wide.test", i)
		z[name] = []string{"v=spf1 " + strings.Join(mid, " ") + " a ~all"}
		top = append(top, "include:"+name)
	}
	z["wide.test"] = []string{"v=spf1 " + strings.Join(top, " ") + " mx -all"}
	return z
}

// TestAttackWalkCancelAtEveryLookup: the caller cancels its context at
// the k-th lookup of a wide walk, for every k: Check returns, no lookup
// outlives it, and no goroutine of the walk is left (synctest fails a
// bubble that ends with goroutines blocked).
func TestAttackWalkCancelAtEveryLookup(t *testing.T) {
	z := wideZone()
	for k := 1; k <= 140; k += 3 {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			r := &slowZoneResolver{z: z, k: k, cancel: cancel}
			res := Check(ctx, r, "wide.test")
			synctest.Wait()
			r.mu.Lock()
			require.Zero(t, r.inFlight, "k=%d: a lookup outlived Check", k)
			r.mu.Unlock()
			_ = res
		})
	}
}

// TestAttackWalkBudgetAndCanceledHostile: every generated hostile zone,
// walked through a slow resolver in a bubble (ahead and sequential):
// the same result, and no goroutine left.
func TestAttackWalkBudgetAndCanceledHostile(t *testing.T) {
	for seed := range uint64(300) {
		z, names := genZone(seed)
		synctest.Test(t, func(t *testing.T) {
			for _, name := range names {
				seqR := &slowZoneResolver{z: z, cancel: func() {}}
				aheadR := &slowZoneResolver{z: z, cancel: func() {}}
				want := check(t.Context(), seqR, name, false)
				got := check(t.Context(), aheadR, name, true)
				require.Equal(t, want, got, "seed %d name %s", seed, name)
			}
		})
	}
}
