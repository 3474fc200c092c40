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
		// Time-outs that bound a hang, not speed, and the resolver known
		// before the first scan: a loaded machine changes neither result.
		return knowsResolver(t, New(Config{
			Resolver:  lab.DNS.PatientClient(),
			HTTPSPort: lab.HTTPSPort, RootCAs: lab.RootCAs, AllowLoopbackTargets: true, DNSCacheBytes: 1 << 20,
			FetchTimeout: dnstest.PatientTimeout, ScanTimeout: time.Minute,
			Now: func() time.Time { return fixedNow }, noFirst: noFirst,
		}))
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

// slowZone is the zone of TestFirstQuestionsUnderSlowAnswers: every
// policy host is private (nothing is dialed), reports go to another
// organization, and the sending IP's PTR names two hosts.
const slowZone = `$ORIGIN example.com.
@ SOA ns.example.com. h.example.com. 1 3600 600 86400 300
t MX 10 mx1.t
t MX 20 mx2.t
mx1.t A 192.0.2.1
mx1.t AAAA 2001:db8::1
mx2.t A 192.0.2.2
t TXT "v=spf1 mx ip4:8.8.4.4 -all"
_dmarc.t TXT "v=DMARC1; p=reject; rua=mailto:b@other.net"
_mta-sts.t TXT "v=STSv1; id=1"
mta-sts.t A 10.0.0.1
mta-sts.t AAAA fd00::1
t CAA 0 issue "ca.example"
ptr1.t A 8.8.4.4
ptr2.t A 8.8.4.4
u MX 10 mx1.t
_dmarc.u TXT "v=DMARC1; p=reject; rua=mailto:x@other.net"
sts MX 10 mx1.t
_mta-sts.sts TXT "v=STSv1; id=ok1"
mta-sts.sts A 10.0.0.1
$ORIGIN other.net.
@ SOA ns.other.net. h.other.net. 1 3600 600 86400 300
t.example.com._report._dmarc TXT "v=DMARC1"
$ORIGIN 4.4.8.8.in-addr.arpa.
@ PTR ptr1.t.example.com.
@ PTR ptr2.t.example.com.
`

// TestFirstQuestionsUnderSlowAnswers: with one or two questions slow,
// the scan's result is the same with the first questions as without
// them, where the first questions change when a check starts and when a
// question is asked:
//   - the MTA-STS policy host's questions end by the fetch's deadline,
//     which starts when they are begun (3 s and 11 s against the 10 s
//     fetch time-out);
//   - DMARC asks its authorizations once the MX and TXT answers are in,
//     as dmarc.Check does (an MX and an authorization 8 s slow each: 16 s
//     after the start, past the deadline, in both);
//   - a first question that timed out is noted as having waited until its
//     answer came, not until its check started after a slower sibling;
//   - a first question that failed starts the control question at once.
//
// Fake time (synctest): no verdict here rests on the machine's speed.
// Delays never equal a deadline: at a tie the order of the two timers
// decides, with or without the first questions.
func TestFirstQuestionsUnderSlowAnswers(t *testing.T) {
	z := dnstest.MustParse(t, slowZone)
	type fault struct {
		name  string
		qtype resolver.Type
		f     dnstest.Fault
	}
	slow := func(name string, qtype resolver.Type, d time.Duration) fault {
		return fault{name, qtype, dnstest.Delay(d)}
	}
	timesOut := func(name string, qtype resolver.Type, d time.Duration) fault {
		return fault{name, qtype, dnstest.Fault{Delay: d, Drop: true}}
	}
	for _, tc := range []struct {
		name   string
		domain string
		ip     string
		faults []fault
	}{
		{"mta-sts host 3 s", "sts.example.com", "", []fault{slow("mta-sts.sts.example.com", resolver.TypeA, 3*time.Second)}},
		{"mta-sts host 11 s", "sts.example.com", "", []fault{slow("mta-sts.sts.example.com", resolver.TypeA, 11*time.Second)}},
		{"mta-sts AAAA times out at 2 s, A at 9 s", "t.example.com", "", []fault{
			timesOut("mta-sts.t.example.com", resolver.TypeAAAA, 2*time.Second), slow("mta-sts.t.example.com", resolver.TypeA, 9*time.Second)}},
		{"dmarc MX and authorization 8 s", "t.example.com", "", []fault{
			slow("t.example.com", resolver.TypeMX, 8*time.Second), slow("t.example.com._report._dmarc.other.net", resolver.TypeTXT, 8*time.Second)}},
		{"dmarc MX 8 s, no authorization", "u.example.com", "", []fault{
			slow("u.example.com", resolver.TypeMX, 8*time.Second), slow("u.example.com._report._dmarc.other.net", resolver.TypeTXT, 8*time.Second)}},
		{"dmarc MX hangs", "u.example.com", "", []fault{slow("u.example.com", resolver.TypeMX, time.Minute)}},
		{"mx AAAA times out at 5 s, A at 12 s", "t.example.com", "", []fault{
			timesOut("mx1.t.example.com", resolver.TypeAAAA, 5*time.Second), slow("mx1.t.example.com", resolver.TypeA, 12*time.Second)}},
		{"caa host times out at 4 s, domain at 13 s", "t.example.com", "", []fault{
			timesOut("mta-sts.t.example.com", resolver.TypeCAA, 4*time.Second), slow("t.example.com", resolver.TypeCAA, 13*time.Second)}},
		{"ptr forward 7 s", "t.example.com", "8.8.4.4", []fault{slow("ptr2.t.example.com", resolver.TypeA, 7*time.Second)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got [2]string
			for i, noFirst := range []bool{true, false} {
				synctest.Test(t, func(t *testing.T) {
					r := dnstest.NewResolver(z)
					for _, f := range tc.faults {
						r.SetFault(f.name, f.qtype, f.f)
					}
					s := New(Config{Resolver: r, noFirst: noFirst, Now: func() time.Time { return fixedNow }})
					res, err := s.Scan(t.Context(), ScanRequest{Domain: tc.domain, SendingIP: tc.ip})
					require.NoError(t, err)
					got[i] = string(marshal(t, res))
				})
			}
			assert.JSONEq(t, got[0], got[1], "the result without and with the first questions")
		})
	}
}
