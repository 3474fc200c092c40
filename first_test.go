package mailauth

import (
	"context"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestFirstQuestionsAreTheChecks: the questions the scan begins for the
// checks before they run (checkSpec.first) are questions the checks ask
// themselves: for each domain shape of the lab (good, missing records,
// SERVFAILs, an NXDOMAIN, a domain too long for its _dmarc, _mta-sts and
// mta-sts names, with and without a sending IP) a scan sends the same
// distinct questions to the lab's DNS server and reports the same result
// with and without them.
func TestFirstQuestionsAreTheChecks(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 44) + ".example.com"
	require.Len(t, long, 248, "a name whose _dmarc, _mta-sts and mta-sts names are longer than 253")
	reqs := []ScanRequest{
		{Domain: "good.example.com", DKIMSelector: "s1", SendingIP: "8.8.8.8"},
		{Domain: "good.example.com", SendingIP: "::ffff:8.8.8.8"},
		{Domain: "Bare.Example.com"},
		{Domain: "weak.example.com", SendingIP: "8.8.4.4"},
		{Domain: "parked.example.com"},
		{Domain: "flaky.example.com", DKIMSelector: "s1"},
		{Domain: "open.example.com"},
		{Domain: "opennet.example.com"},
		{Domain: "nowhere.example.com", SendingIP: "2606:4700::1111"},
		{Domain: long, SendingIP: "8.8.8.8"},
	}
	// scan scans req over a lab of its own and returns the distinct
	// questions its DNS server was asked, and the result.
	scan := func(t *testing.T, req ScanRequest, noFirst bool) ([]string, []byte) {
		lab := testlab.Start(t, []string{scanZone}, policies)
		for _, f := range []string{"_dmarc.flaky.example.com", "_mta-sts.flaky.example.com", "mx1.flaky.example.com"} {
			lab.DNS.SetFault(f, dnstest.AnyType, dnstest.ServFail)
		}
		lab.DNS.SetFault("flaky.example.com", resolver.TypeCAA, dnstest.ServFail)
		s := New(Config{
			Resolver: lab.DNS.Client(5 * time.Second), HTTPSPort: lab.HTTPSPort, RootCAs: lab.RootCAs,
			AllowLoopbackTargets: true, Now: func() time.Time { return fixedNow }, noFirst: noFirst,
		})
		got, err := s.Scan(t.Context(), req)
		require.NoError(t, err, "Scan")
		seen := map[string]bool{}
		for _, q := range lab.DNS.Queries() {
			seen[resolver.CanonicalName(q.Name)+"/"+q.Type.String()] = true
		}
		return slices.Sorted(maps.Keys(seen)), marshal(t, got)
	}
	for _, req := range reqs {
		t.Run(req.Domain[:min(len(req.Domain), 20)]+"/"+req.SendingIP, func(t *testing.T) {
			t.Parallel()
			askedWith, bodyWith := scan(t, req, false)
			askedWithout, bodyWithout := scan(t, req, true)
			assert.Equal(t, askedWithout, askedWith, "the distinct questions sent")
			assert.JSONEq(t, string(bodyWithout), string(bodyWith), "the result")
		})
	}
}

// TestFirstQuestionWaitedFromItsBegin: a check's lookup of a question
// the scan began for it before it ran (beginFirst) is noted as having
// waited from when the question was begun to when its answer came (the
// check, started later by its other first questions, gets that answer
// from the scan at once), and as late only when the deadline had passed
// by then: a slow verdict says how long the domain really took, and a
// failure answered in time stays a failure. Other questions are timed
// from their own start to now.
func TestFirstQuestionWaitedFromItsBegin(t *testing.T) {
	l := &faultLog{domain: "slow.example"}
	now := time.Now()
	servfail := resolver.Fail(resolver.ReasonServFail)
	l.begun("Slow.Example", resolver.TypeTXT, now.Add(-10*time.Second))
	l.firstAnswered("slow.example", resolver.TypeTXT, &servfail, now.Add(-8*time.Second))
	l.begun("slow.example", resolver.TypeMX, now.Add(-5*time.Second))
	// The check starts now, past its deadline (a sibling first question
	// held it back), and asks both again.
	ctx, cancel := context.WithDeadline(context.Background(), now.Add(-time.Second))
	defer cancel()
	l.note(ctx, "slow.example", resolver.TypeTXT, &servfail, now)
	timeout := resolver.Fail(resolver.ReasonTimeout)
	l.note(context.Background(), "slow.example", resolver.TypeMX, &timeout, now)
	got := l.logged()
	require.Len(t, got, 2)
	assert.Equal(t, 2*time.Second, got[0].took, "the first question waited from its begin to its answer")
	assert.False(t, got[0].late, "answered before the deadline: not cut by it")
	assert.GreaterOrEqual(t, got[1].took, 5*time.Second, "not answered yet when noted: from its begin to now")
	l.mu.Lock()
	defer l.mu.Unlock()
	from, to, landed := l.span("slow.example", resolver.TypeTXT, now, now)
	assert.Equal(t, []any{now.Add(-10 * time.Second), now.Add(-8 * time.Second), true}, []any{from, to, landed}, "the begun and answered question")
	from, to, landed = l.span("slow.example", resolver.TypeA, now, now)
	assert.Equal(t, []any{now, now, false}, []any{from, to, landed}, "another question: from its own start")
	from, _, _ = l.span("slow.example", resolver.TypeTXT, now.Add(-11*time.Second), now)
	assert.Equal(t, now.Add(-11*time.Second), from, "asked before it was begun: from its own start")
}

// TestFirstFaultStartsTheControlQuestion: an inconclusive answer to a
// first question starts the control question at once, as the check's
// own lookup would have, not when the check starts (which another first
// question, still unanswered, holds back).
func TestFirstFaultStartsTheControlQuestion(t *testing.T) {
	control := dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ A 8.8.8.8\n"))
	r := New(Config{Resolver: control}).newRun()
	r.domain.ASCII = "x.example.com"
	held := &questionStarter{}
	started := make(chan struct{}, 2)
	r.beginFirst(t.Context(), firstCAA, &faultLog{next: held, early: r}, func() { started <- struct{}{} })
	held.answer("x.example.com", resolver.TypeCAA, resolver.Fail(resolver.ReasonServFail))
	require.Eventually(t, func() bool { return control.Count(r.controlName(), resolver.TypeSOA) == 1 }, 30*time.Second, time.Millisecond,
		"the control question, asked on the first fault") // an event awaited, not a verdict on speed
	select {
	case <-started:
		require.FailNow(t, "the check started before the MTA-STS host's answer")
	default:
	}
}

// TestFirstPanicStartsTheCheckOnce: a panic in a check's first function
// after it began a question leaves the check to ask the rest itself: the
// check starts once, when the question begun is answered.
func TestFirstPanicStartsTheCheckOnce(t *testing.T) {
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ TXT \"v=spf1 -all\"\n"))})
	r := s.newRun()
	log := r.faultLog(CheckSPF)
	started := make(chan struct{}, 2)
	r.beginFirst(t.Context(), func(_ *run, _ context.Context, _ resolver.Resolver, ask askFunc) {
		ask("x.example.com", resolver.TypeTXT, nil)
		panic("a bug")
	}, log, func() { started <- struct{}{} })
	<-started
	select {
	case <-started:
		t.Fatal("the check started twice")
	case <-time.After(100 * time.Millisecond): // a second start would come at once; not a verdict on speed
	}
}

// TestFirstSeenPanicStartsTheCheck: a panic in the function that sees a
// first answer (earlyDANE.seen's kind) does not keep the check from
// starting.
func TestFirstSeenPanicStartsTheCheck(t *testing.T) {
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ MX 10 mx\n"))})
	r := s.newRun()
	started := make(chan struct{}, 2)
	r.beginFirst(t.Context(), func(_ *run, _ context.Context, _ resolver.Resolver, ask askFunc) {
		ask("x.example.com", resolver.TypeMX, func(resolver.Answer) { panic("a bug") })
	}, r.faultLog(CheckMX), func() { started <- struct{}{} })
	select {
	case <-started:
	case <-time.After(30 * time.Second): // a goroutine's start, far past any load
		t.Fatal("the check never started")
	}
}

// questionStarter is a resolver.Starter that answers nothing until the
// test answers a question: Start keeps each question's done, and answer
// hands the given answer to those of one question, from the test's
// goroutine, as a socket's reader would (the first questions' tests, and
// the begun checks' in begin_check_test.go).
type questionStarter struct {
	resolver.Resolver
	mu    sync.Mutex
	dones map[string][]func(resolver.Answer)
	order []string
}

func questionKey(name string, qtype resolver.Type) string {
	return resolver.CanonicalName(name) + "/" + qtype.String()
}

func (q *questionStarter) Start(_ context.Context, name string, qtype resolver.Type, done func(resolver.Answer)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.dones == nil {
		q.dones = map[string][]func(resolver.Answer){}
	}
	k := questionKey(name, qtype)
	q.dones[k] = append(q.dones[k], done)
	q.order = append(q.order, k)
}

// asked returns the questions started so far, in order.
func (q *questionStarter) asked() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.order)
}

// answer hands a to the dones of the question name, qtype.
func (q *questionStarter) answer(name string, qtype resolver.Type, a resolver.Answer) {
	q.mu.Lock()
	k := questionKey(name, qtype)
	dones := q.dones[k]
	delete(q.dones, k)
	q.mu.Unlock()
	for _, d := range dones {
		d(a)
	}
}

// heldFirst is a check's first questions begun (beginFirst) over a
// questionStarter, and whether the check has started.
type heldFirst struct {
	*questionStarter
	started chan struct{}
}

// beginHeld begins first for a run of domain (and the sending IP ip,
// when valid) over a questionStarter.
func beginHeld(t *testing.T, first firstFunc, domain string, ip netip.Addr) heldFirst {
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ A 8.8.8.8\n"))})
	r := s.newRun()
	r.domain.ASCII, r.ip = domain, ip
	h := heldFirst{questionStarter: &questionStarter{}, started: make(chan struct{}, 2)}
	r.beginFirst(t.Context(), first, &faultLog{next: h.questionStarter}, func() { h.started <- struct{}{} })
	return h
}

// notStarted fails the test if the check has started.
func (h heldFirst) notStarted(t *testing.T, when string) {
	t.Helper()
	select {
	case <-h.started:
		require.FailNow(t, "the check started "+when)
	default:
	}
}

// waitStarted fails the test if the check does not start.
func (h heldFirst) waitStarted(t *testing.T) {
	t.Helper()
	select {
	case <-h.started:
	case <-time.After(30 * time.Second): // a goroutine's start, far past any load
		t.Fatal("the check never started")
	}
}

// records is a Found answer with recs.
func records(recs ...resolver.Record) resolver.Answer {
	return resolver.Answer{Outcome: resolver.Found, Records: recs}
}

var (
	noData   = resolver.Answer{Outcome: resolver.NoData}
	nxDomain = resolver.Answer{Outcome: resolver.NXDomain}
)

// TestFirstMXWaitsForExchangeAddresses: the MX check's goroutine starts
// once its MX answer and the A and AAAA answers of the exchanges it
// resolves are in (mx.AddressNames), not on the MX answer: the exchanges'
// lookups are begun by the goroutine that hands the MX answer on, with
// the early TLSA lookups, and the check then finds every answer it asks
// for in the scan. An IP literal is not asked; a NODATA answer asks the
// domain's own addresses.
func TestFirstMXWaitsForExchangeAddresses(t *testing.T) {
	t.Run("exchanges", func(t *testing.T) {
		h := beginHeld(t, firstMX, "X.example.com", netip.Addr{})
		require.Equal(t, []string{"x.example.com/MX"}, h.asked(), "the MX question alone, first")
		h.answer("x.example.com", resolver.TypeMX, records(
			resolver.Record{Type: resolver.TypeMX, Preference: 20, Target: "MX2.x.example.com."},
			resolver.Record{Type: resolver.TypeMX, Preference: 10, Target: "mx1.x.example.com"},
			resolver.Record{Type: resolver.TypeMX, Preference: 30, Target: "192.0.2.1"}))
		assert.ElementsMatch(t, []string{"x.example.com/MX",
			"_25._tcp.mx1.x.example.com/TLSA", "_25._tcp.mx2.x.example.com/TLSA", // none for the IP literal
			"mx1.x.example.com/A", "mx1.x.example.com/AAAA", "mx2.x.example.com/A", "mx2.x.example.com/AAAA"}, h.asked())
		h.notStarted(t, "on the MX answer")
		h.answer("mx1.x.example.com", resolver.TypeA, noData)
		h.answer("mx1.x.example.com", resolver.TypeAAAA, noData)
		h.answer("mx2.x.example.com", resolver.TypeA, noData)
		h.notStarted(t, "before the last exchange's AAAA")
		h.answer("mx2.x.example.com", resolver.TypeAAAA, noData)
		h.waitStarted(t)
	})
	t.Run("implicit", func(t *testing.T) {
		h := beginHeld(t, firstMX, "x.example.com", netip.Addr{})
		h.answer("x.example.com", resolver.TypeMX, noData)
		assert.ElementsMatch(t, []string{"x.example.com/MX", "_25._tcp.x.example.com/TLSA", "x.example.com/A", "x.example.com/AAAA"}, h.asked())
		h.answer("x.example.com", resolver.TypeA, noData)
		h.notStarted(t, "before the domain's AAAA")
		h.answer("x.example.com", resolver.TypeAAAA, noData)
		h.waitStarted(t)
	})
}

// TestFirstMTASTSWaitsForPolicyHost: the MTA-STS check's goroutine
// starts once its announcement and, when the announcement makes it fetch
// the policy, the policy host's A and AAAA answers are in; an answer
// without a valid announcement asks nothing more.
func TestFirstMTASTSWaitsForPolicyHost(t *testing.T) {
	announce := func(txt ...string) resolver.Answer {
		return records(resolver.Record{Type: resolver.TypeTXT, Name: "_mta-sts.x.example.com", TXT: txt})
	}
	for _, tc := range []struct {
		name  string
		a     resolver.Answer
		fetch bool
	}{
		{"valid", announce("v=STSv1; id=20261129"), true},
		{"invalid", announce("v=STSv1; id=bad-id!"), false},
		{"other", announce("v=spf1 -all"), false},
		{"nxdomain", nxDomain, false},
		{"servfail", resolver.Fail(resolver.ReasonServFail), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := beginHeld(t, firstMTASTS, "x.example.com", netip.Addr{})
			h.answer("_mta-sts.x.example.com", resolver.TypeTXT, tc.a)
			if tc.fetch {
				assert.Equal(t, []string{"_mta-sts.x.example.com/TXT", "mta-sts.x.example.com/A", "mta-sts.x.example.com/AAAA"}, h.asked())
				h.answer("mta-sts.x.example.com", resolver.TypeAAAA, noData)
				h.notStarted(t, "before the policy host's A answer")
				h.answer("mta-sts.x.example.com", resolver.TypeA, noData)
			} else {
				assert.Equal(t, []string{"_mta-sts.x.example.com/TXT"}, h.asked())
			}
			h.waitStarted(t)
		})
	}
}

// TestFirstCAAClimbs: the CAA check's first questions are its whole
// search: the domain's name and the MTA-STS host's at once, each parent
// as the answer below it calls for it (an empty set climbs, a record set
// or a failure ends the climb), and the check's goroutine starts when
// the last of them is in.
func TestFirstCAAClimbs(t *testing.T) {
	h := beginHeld(t, firstCAA, "a.x.example.com", netip.Addr{})
	asked := []string{"a.x.example.com/CAA", "mta-sts.a.x.example.com/CAA"}
	require.Equal(t, asked, h.asked())
	h.answer("mta-sts.a.x.example.com", resolver.TypeCAA, nxDomain)
	h.answer("a.x.example.com", resolver.TypeCAA, noData)
	asked = append(asked, "x.example.com/CAA")
	require.Equal(t, asked, h.asked(), "an empty set climbs")
	h.notStarted(t, "mid-climb")
	h.answer("x.example.com", resolver.TypeCAA, nxDomain)
	asked = append(asked, "example.com/CAA")
	require.Equal(t, asked, h.asked())
	h.notStarted(t, "mid-climb")
	h.answer("example.com", resolver.TypeCAA, records(resolver.Record{Type: resolver.TypeCAA, Name: "example.com", CAATag: "issue", CAAValue: "ca.example"}))
	assert.Equal(t, asked, h.asked(), "a record set ends the climb")
	h.waitStarted(t)
}

// TestFirstDMARCWalks: the DMARC check's first questions are its whole
// discovery: the walk's first name with the domain's MX and TXT, then
// each next name as the answer before it calls for it, then the
// authorization record of a destination in another organization; the
// check's goroutine starts when the last of them is in.
func TestFirstDMARCWalks(t *testing.T) {
	dmarcRecord := func(name, txt string) resolver.Answer {
		return records(resolver.Record{Type: resolver.TypeTXT, Name: name, TXT: []string{txt}})
	}
	t.Run("walk", func(t *testing.T) {
		h := beginHeld(t, firstDMARC, "a.x.example.com", netip.Addr{})
		asked := []string{"_dmarc.a.x.example.com/TXT", "a.x.example.com/MX", "a.x.example.com/TXT"}
		require.Equal(t, asked, h.asked())
		h.answer("a.x.example.com", resolver.TypeMX, nxDomain)
		h.answer("a.x.example.com", resolver.TypeTXT, nxDomain)
		h.answer("_dmarc.a.x.example.com", resolver.TypeTXT, nxDomain)
		asked = append(asked, "_dmarc.x.example.com/TXT")
		require.Equal(t, asked, h.asked(), "no record: the walk goes on")
		h.notStarted(t, "mid-walk")
		h.answer("_dmarc.x.example.com", resolver.TypeTXT, dmarcRecord("_dmarc.x.example.com", "v=DMARC1; p=reject; psd=n"))
		require.Equal(t, asked, h.asked(), "a psd=n record ends the walk")
		h.waitStarted(t)
	})
	t.Run("authorization", func(t *testing.T) {
		// The authorization is asked when the walk is over and the MX
		// and TXT answers are in, as dmarc.Check asks it.
		h := beginHeld(t, firstDMARC, "x.example.com", netip.Addr{})
		asked := []string{"_dmarc.x.example.com/TXT", "x.example.com/MX", "x.example.com/TXT"}
		h.answer("_dmarc.x.example.com", resolver.TypeTXT, dmarcRecord("_dmarc.x.example.com", "v=DMARC1; p=reject; rua=mailto:d@reports.example.net"))
		h.answer("x.example.com", resolver.TypeMX, noData)
		require.Equal(t, asked, h.asked(), "not before the domain's TXT answer")
		h.answer("x.example.com", resolver.TypeTXT, noData)
		require.Equal(t, append(asked, "x.example.com._report._dmarc.reports.example.net/TXT"), h.asked())
		h.notStarted(t, "before the authorization's answer")
		h.answer("x.example.com._report._dmarc.reports.example.net", resolver.TypeTXT, nxDomain)
		h.waitStarted(t)
	})
}

// TestFirstPTRConfirmsForward: the PTR check's goroutine starts once the
// PTR answer and the forward lookups of the names it gives are in.
func TestFirstPTRConfirmsForward(t *testing.T) {
	h := beginHeld(t, firstPTR, "x.example.com", netip.MustParseAddr("192.0.2.7"))
	require.Equal(t, []string{"7.2.0.192.in-addr.arpa/PTR"}, h.asked())
	h.answer("7.2.0.192.in-addr.arpa", resolver.TypePTR, records(
		resolver.Record{Type: resolver.TypePTR, Target: "Mail.x.example.com."}, resolver.Record{Type: resolver.TypePTR, Target: "localhost."}))
	require.Equal(t, []string{"7.2.0.192.in-addr.arpa/PTR", "mail.x.example.com/A"}, h.asked(), "the valid name, forward")
	h.notStarted(t, "before the forward answer")
	h.answer("mail.x.example.com", resolver.TypeA, noData)
	h.waitStarted(t)
}
