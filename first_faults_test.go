package mailauth

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// slowNames answers from zone, each question in slow after its delay
// (honouring ctx).
func slowNames(t *testing.T, slow map[string]time.Duration) resolver.Resolver {
	zone := dnstest.MustLoad(t, scanZone)
	mem := dnstest.NewResolver(zone)
	return resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
		if d, ok := slow[resolver.CanonicalName(name)+"/"+qtype.String()]; ok {
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return resolver.Fail(resolver.ReasonSlow)
			}
		}
		return mem.Lookup(ctx, name, qtype)
	})
}

// TestFirstQuestionsBesideDoNotHoldTheCheck: a check starts once the
// question it waits on first is answered, not the questions it begins
// beside it: with the domain's TXT and the MTA-STS host's CAA each 9 s
// slow, the DMARC walk's second name and the CAA climb's second name
// (9 s each too) still end inside the 15 s deadline, as they do without
// checkSpec.first (fake time).
func TestFirstQuestionsBesideDoNotHoldTheCheck(t *testing.T) {
	for _, noFirst := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			r := slowNames(t, map[string]time.Duration{
				"sub.good.example.com/TXT":         9 * time.Second,
				"_dmarc.good.example.com/TXT":      9 * time.Second,
				"mta-sts.sub.good.example.com/CAA": 9 * time.Second,
				"good.example.com/CAA":             9 * time.Second,
			})
			got, err := New(Config{Resolver: r, noFirst: noFirst}).Scan(context.Background(), ScanRequest{Domain: "sub.good.example.com"})
			require.NoError(t, err)
			for _, id := range []CheckID{CheckDMARC, CheckCAA} {
				c := checkOf(t, got, id)
				assert.Equal(t, Determined, c.Determination, "noFirst=%v %s: %+v", noFirst, id, c.Summary.EN)
			}
		})
	}
}

// TestFirstQuestionFaultsSameVerdicts: a first question that fails (a
// time-out after 4 s, SERVFAIL, or no answer until the deadline) gives
// the same result and the same OnInconclusive calls with and without
// checkSpec.first (fake time; canceled counted as slow, see below).
func TestFirstQuestionFaultsSameVerdicts(t *testing.T) {
	questions := []string{"good.example.com/MX", "good.example.com/TXT", "_dmarc.good.example.com/TXT",
		"_mta-sts.good.example.com/TXT", "8.8.8.8.in-addr.arpa/PTR", "good.example.com/CAA", "mta-sts.good.example.com/CAA"}
	type fault int
	const (
		timeout fault = iota
		servfail
		hang
	)
	zone := dnstest.MustLoad(t, scanZone)
	for _, q := range questions {
		for _, f := range []fault{timeout, servfail, hang} {
			t.Run(q+"/"+[]string{"timeout", "servfail", "hang"}[f], func(t *testing.T) {
				var bodies [2]string
				var counts [2]map[string]int
				for i, noFirst := range []bool{true, false} {
					synctest.Test(t, func(t *testing.T) {
						mem := dnstest.NewResolver(zone)
						r := resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
							if resolver.CanonicalName(name)+"/"+qtype.String() == q {
								switch f {
								case timeout:
									time.Sleep(4 * time.Second)
									return resolver.Fail(resolver.ReasonTimeout)
								case servfail:
									return resolver.Fail(resolver.ReasonServFail)
								case hang:
									<-ctx.Done()
									return resolver.Fail(resolver.ReasonSlow)
								}
							}
							return mem.Lookup(ctx, name, qtype)
						})
						n := map[string]int{}
						var mu sync.Mutex
						s := New(Config{Resolver: r, noFirst: noFirst, Now: func() time.Time { return fixedNow },
							OnInconclusive: func(reason resolver.Reason, side resolver.Side) {
								if reason == resolver.ReasonCanceled {
									// A question the deadline ended is slow to the
									// lookup that sent it and canceled to one that
									// waited on it; the first questions change
									// which check sends it.
									reason = resolver.ReasonSlow
								}
								mu.Lock()
								n[fmt.Sprint(reason, "/", side)]++
								mu.Unlock()
							}})
						got, err := s.Scan(context.Background(), ScanRequest{Domain: "good.example.com", SendingIP: "8.8.8.8"})
						require.NoError(t, err)
						bodies[i] = string(marshal(t, got))
						counts[i] = n
					})
				}
				if !assert.Equal(t, compact(t, bodies[0]), compact(t, bodies[1]), "result without/with first") || bodies[0] != bodies[1] {
					t.Logf("without: %s", compact(t, bodies[0]))
					t.Logf("with:    %s", compact(t, bodies[1]))
				}
				assert.Equal(t, counts[0], counts[1], "OnInconclusive without/with first")
			})
		}
	}
}

// compact is each check's id, status and the seconds of a slow
// verdict's details, for a readable difference.
func compact(t *testing.T, body string) string {
	var v struct {
		Checks []struct {
			ID      string
			Status  string
			Summary struct{ EN string }
			Details struct{ EN string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &v))
	out := ""
	for _, c := range v.Checks {
		d := c.Details.EN
		if i := strings.Index(d, " s "); i > 0 && strings.HasPrefix(d, "The lookup waited") {
			d = d[:i+2]
		} else {
			d = ""
		}
		out += fmt.Sprintf("%s=%s[%s] ", c.ID, c.Status, d)
	}
	return out
}

// panicStarter is a Starter whose Start panics for one question, at
// once or in done's goroutine.
type panicStarter struct {
	next resolver.Resolver
	q    string
}

func (p panicStarter) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	if resolver.CanonicalName(name)+"/"+qtype.String() == p.q {
		panic("boom")
	}
	return p.next.Lookup(ctx, name, qtype)
}

func (p panicStarter) Start(ctx context.Context, name string, qtype resolver.Type, done func(resolver.Answer)) {
	if resolver.CanonicalName(name)+"/"+qtype.String() == p.q {
		panic("boom")
	}
	resolver.Start(ctx, p.next, name, qtype, done)
}

// TestFirstQuestionPanicBelow: a resolver that panics in Start for a
// first question does not end the scan, and gives the same result as
// without checkSpec.first.
func TestFirstQuestionPanicBelow(t *testing.T) {
	zone := dnstest.MustLoad(t, scanZone)
	for _, q := range []string{"good.example.com/MX", "good.example.com/TXT", "_dmarc.good.example.com/TXT", "good.example.com/CAA"} {
		t.Run(q, func(t *testing.T) {
			var bodies [2]string
			for i, noFirst := range []bool{true, false} {
				synctest.Test(t, func(t *testing.T) {
					r := panicStarter{next: dnstest.NewResolver(zone), q: q}
					s := New(Config{Resolver: r, noFirst: noFirst, Now: func() time.Time { return fixedNow }})
					got, err := s.Scan(context.Background(), ScanRequest{Domain: "good.example.com", SendingIP: "8.8.8.8"})
					require.NoError(t, err)
					bodies[i] = string(marshal(t, got))
				})
			}
			assert.Equal(t, compact(t, bodies[0]), compact(t, bodies[1]))
			assert.JSONEq(t, bodies[0], bodies[1])
		})
	}
}

// TestFirstQuestionsOverASharedCache: scans of the same domains at once
// over a shared cache (answers handed on inside Start: cache hits) give
// the same results as without checkSpec.first (the suite runs it with
// -race).
func TestFirstQuestionsOverASharedCache(t *testing.T) {
	lab := testlab.Start(t, []string{scanZone}, policies)
	lab.DNS.SetFault("_dmarc.flaky.example.com", dnstest.AnyType, dnstest.ServFail)
	scanner := func(noFirst bool) *Scanner {
		return New(Config{
			Resolver:  &resolver.Client{Servers: []string{lab.DNS.Addr()}, Timeout: 5 * time.Second, Attempts: 2},
			HTTPSPort: lab.HTTPSPort, RootCAs: lab.RootCAs, AllowLoopbackTargets: true, DNSCacheBytes: 1 << 20,
			Now: func() time.Time { return fixedNow }, noFirst: noFirst,
		})
	}
	reqs := []ScanRequest{
		{Domain: "good.example.com", DKIMSelector: "s1", SendingIP: "8.8.8.8"},
		{Domain: "flaky.example.com"},
		{Domain: "weak.example.com", SendingIP: "8.8.4.4"},
	}
	want := map[string]string{}
	ref := scanner(true)
	for _, req := range reqs {
		got, err := ref.Scan(t.Context(), req)
		require.NoError(t, err)
		want[req.Domain] = string(marshal(t, got))
	}
	s := scanner(false)
	var wg sync.WaitGroup
	for range 8 {
		for _, req := range reqs {
			wg.Go(func() {
				got, err := s.Scan(t.Context(), req)
				if assert.NoError(t, err) {
					assert.JSONEq(t, want[req.Domain], string(marshal(t, got)), req.Domain)
				}
			})
		}
	}
	wg.Wait()
}

// TestFirstMTASTSFetchTimedFromItsBegin: the policy host's questions
// asked ahead of the MTA-STS check end by the fetch's deadline, which
// starts when they were begun: a host whose address answer comes after
// the fetch's time-out (11 s against 10 s) leaves the check where its own
// lookup under the fetch's time-out left it, and one within it the same
// as well. Fake time (synctest): no verdict here rests on the machine's
// speed. The host's address is private: nothing is dialed.
func TestFirstMTASTSFetchTimedFromItsBegin(t *testing.T) {
	z := dnstest.MustParse(t, `$ORIGIN sts.example.com.
@ MX 10 mx
mx A 192.0.2.52
_mta-sts TXT "v=STSv1; id=ok1"
mta-sts A 10.0.0.1
`)
	for _, delay := range []time.Duration{3 * time.Second, 11 * time.Second} {
		t.Run(delay.String(), func(t *testing.T) {
			var got [2]string
			for i, noFirst := range []bool{true, false} {
				synctest.Test(t, func(t *testing.T) {
					r := dnstest.NewResolver(z)
					r.SetFault("mta-sts.sts.example.com", resolver.TypeA, dnstest.Delay(delay))
					s := New(Config{Resolver: r, noFirst: noFirst, Now: func() time.Time { return fixedNow }})
					res, err := s.Scan(t.Context(), ScanRequest{Domain: "sts.example.com"})
					require.NoError(t, err)
					for _, c := range res.Checks {
						if c.ID == CheckMTASTS {
							got[i] = fmt.Sprintf("%s %s %s", c.Status, c.Determination, c.Summary.EN)
						}
					}
				})
			}
			require.NotEmpty(t, got[0])
			assert.Equal(t, got[0], got[1], "the MTA-STS verdict without and with the first questions")
		})
	}
}
