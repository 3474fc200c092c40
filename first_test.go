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
// waited since the question was begun, not since the check asked it (the
// scan then answers it at once): a slow verdict says how long the domain
// really took. Other questions are timed from their own start.
func TestFirstQuestionWaitedFromItsBegin(t *testing.T) {
	l := &faultLog{domain: "slow.example"}
	now := time.Now()
	l.begun("Slow.Example", resolver.TypeTXT, now.Add(-5*time.Second))
	a := resolver.Fail(resolver.ReasonTimeout)
	l.note(context.Background(), "slow.example", resolver.TypeTXT, &a, now)
	got := l.logged()
	require.Len(t, got, 1)
	assert.GreaterOrEqual(t, got[0].took, 5*time.Second, "the first question waited from its begin")
	l.mu.Lock()
	defer l.mu.Unlock()
	assert.Equal(t, now.Add(-5*time.Second), l.since("slow.example", resolver.TypeTXT, now), "the begun question")
	assert.Equal(t, now, l.since("slow.example", resolver.TypeMX, now), "another question: from its own start")
	assert.Equal(t, now.Add(-6*time.Second), l.since("slow.example", resolver.TypeTXT, now.Add(-6*time.Second)), "asked before it was begun: from its own start")
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
// goroutine, as a socket's reader would.
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

// TestFirstMXWaitsForExchangeAddresses: the MX check's goroutine starts
// once its MX answer and the A and AAAA answers of the exchanges it
// resolves are in (mx.AddressNames), not on the MX answer: the exchanges'
// lookups are begun by the goroutine that hands the MX answer on, with
// the early TLSA lookups, and the check then finds every answer it asks
// for in the scan. An IP literal is not asked; a NODATA answer asks the
// domain's own addresses.
func TestFirstMXWaitsForExchangeAddresses(t *testing.T) {
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ A 8.8.8.8\n"))})
	notStarted := func(t *testing.T, started chan struct{}, what string) {
		t.Helper()
		select {
		case <-started:
			require.FailNow(t, "the check started "+what)
		default:
		}
	}
	t.Run("exchanges", func(t *testing.T) {
		r := s.newRun()
		r.domain.ASCII = "X.example.com"
		held := &questionStarter{}
		started := make(chan struct{}, 2)
		r.beginFirst(t.Context(), firstMX, &faultLog{next: held}, func() { started <- struct{}{} })
		require.Equal(t, []string{"x.example.com/MX"}, held.asked(), "the MX question alone, first")
		held.answer("x.example.com", resolver.TypeMX, resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{
			{Type: resolver.TypeMX, Preference: 20, Target: "MX2.x.example.com."},
			{Type: resolver.TypeMX, Preference: 10, Target: "mx1.x.example.com"},
			{Type: resolver.TypeMX, Preference: 30, Target: "192.0.2.1"},
		}})
		assert.ElementsMatch(t, []string{"x.example.com/MX",
			"_25._tcp.mx1.x.example.com/TLSA", "_25._tcp.mx2.x.example.com/TLSA", "_25._tcp.192.0.2.1/TLSA",
			"mx1.x.example.com/A", "mx1.x.example.com/AAAA", "mx2.x.example.com/A", "mx2.x.example.com/AAAA"}, held.asked())
		notStarted(t, started, "on the MX answer")
		addrs := resolver.Answer{Outcome: resolver.NoData}
		held.answer("mx1.x.example.com", resolver.TypeA, addrs)
		held.answer("mx1.x.example.com", resolver.TypeAAAA, addrs)
		held.answer("mx2.x.example.com", resolver.TypeA, addrs)
		notStarted(t, started, "before the last exchange's AAAA")
		held.answer("mx2.x.example.com", resolver.TypeAAAA, addrs)
		select {
		case <-started:
		case <-time.After(30 * time.Second): // a goroutine's start, far past any load
			t.Fatal("the check never started")
		}
	})
	t.Run("implicit", func(t *testing.T) {
		r := s.newRun()
		r.domain.ASCII = "x.example.com"
		held := &questionStarter{}
		started := make(chan struct{}, 2)
		r.beginFirst(t.Context(), firstMX, &faultLog{next: held}, func() { started <- struct{}{} })
		held.answer("x.example.com", resolver.TypeMX, resolver.Answer{Outcome: resolver.NoData})
		assert.ElementsMatch(t, []string{"x.example.com/MX", "_25._tcp.x.example.com/TLSA", "x.example.com/A", "x.example.com/AAAA"}, held.asked())
		held.answer("x.example.com", resolver.TypeA, resolver.Answer{Outcome: resolver.NoData})
		notStarted(t, started, "before the domain's AAAA")
		held.answer("x.example.com", resolver.TypeAAAA, resolver.Answer{Outcome: resolver.NoData})
		select {
		case <-started:
		case <-time.After(30 * time.Second): // a goroutine's start, far past any load
			t.Fatal("the check never started")
		}
	})
}

// TestFirstMTASTSWaitsForPolicyHost: the MTA-STS check's goroutine
// starts once its announcement and, when the announcement makes it fetch
// the policy, the policy host's A and AAAA answers are in; an answer
// without a valid announcement asks nothing more.
func TestFirstMTASTSWaitsForPolicyHost(t *testing.T) {
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ A 8.8.8.8\n"))})
	announce := func(txt ...string) resolver.Answer {
		return resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{{Type: resolver.TypeTXT, Name: "_mta-sts.x.example.com", TXT: txt}}}
	}
	for _, tc := range []struct {
		name  string
		a     resolver.Answer
		fetch bool
	}{
		{"valid", announce("v=STSv1; id=20261129"), true},
		{"invalid", announce("v=STSv1; id=bad-id!"), false},
		{"other", announce("v=spf1 -all"), false},
		{"nxdomain", resolver.Answer{Outcome: resolver.NXDomain}, false},
		{"servfail", resolver.Fail(resolver.ReasonServFail), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.newRun()
			r.domain.ASCII = "x.example.com"
			held := &questionStarter{}
			started := make(chan struct{}, 2)
			r.beginFirst(t.Context(), firstMTASTS, &faultLog{next: held}, func() { started <- struct{}{} })
			held.answer("_mta-sts.x.example.com", resolver.TypeTXT, tc.a)
			if tc.fetch {
				assert.Equal(t, []string{"_mta-sts.x.example.com/TXT", "mta-sts.x.example.com/A", "mta-sts.x.example.com/AAAA"}, held.asked())
				held.answer("mta-sts.x.example.com", resolver.TypeAAAA, resolver.Answer{Outcome: resolver.NoData})
				select {
				case <-started:
					require.FailNow(t, "the check started before the policy host's A answer")
				default:
				}
				held.answer("mta-sts.x.example.com", resolver.TypeA, resolver.Answer{Outcome: resolver.NoData})
			} else {
				assert.Equal(t, []string{"_mta-sts.x.example.com/TXT"}, held.asked())
			}
			select {
			case <-started:
			case <-time.After(30 * time.Second): // a goroutine's start, far past any load
				t.Fatal("the check never started")
			}
		})
	}
}

// TestFirstCAAClimbs: the CAA check's first questions are its whole
// search: the domain's name and the MTA-STS host's at once, each parent
// as the answer below it calls for it (an empty set climbs, a record set
// or a failure ends the climb), and the check's goroutine starts when
// the last of them is in.
func TestFirstCAAClimbs(t *testing.T) {
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ A 8.8.8.8\n"))})
	r := s.newRun()
	r.domain.ASCII = "a.x.example.com"
	held := &questionStarter{}
	started := make(chan struct{}, 2)
	r.beginFirst(t.Context(), firstCAA, &faultLog{next: held}, func() { started <- struct{}{} })
	notStarted := func(what string) {
		t.Helper()
		select {
		case <-started:
			require.FailNow(t, "the check started "+what)
		default:
		}
	}
	require.Equal(t, []string{"a.x.example.com/CAA", "mta-sts.a.x.example.com/CAA"}, held.asked())
	held.answer("mta-sts.a.x.example.com", resolver.TypeCAA, resolver.Answer{Outcome: resolver.NXDomain})
	held.answer("a.x.example.com", resolver.TypeCAA, resolver.Answer{Outcome: resolver.NoData})
	require.Equal(t, []string{"a.x.example.com/CAA", "mta-sts.a.x.example.com/CAA", "x.example.com/CAA"}, held.asked(), "an empty set climbs")
	notStarted("mid-climb")
	held.answer("x.example.com", resolver.TypeCAA, resolver.Answer{Outcome: resolver.NXDomain})
	require.Equal(t, []string{"a.x.example.com/CAA", "mta-sts.a.x.example.com/CAA", "x.example.com/CAA", "example.com/CAA"}, held.asked())
	notStarted("mid-climb")
	held.answer("example.com", resolver.TypeCAA, resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{
		{Type: resolver.TypeCAA, Name: "example.com", CAATag: "issue", CAAValue: "ca.example"}}})
	assert.Len(t, held.asked(), 4, "a record set ends the climb")
	select {
	case <-started:
	case <-time.After(30 * time.Second): // a goroutine's start, far past any load
		t.Fatal("the check never started")
	}
}

// TestFirstDMARCWalks: the DMARC check's first questions are its whole
// discovery: the walk's first name with the domain's MX and TXT, then
// each next name as the answer before it calls for it, and the check's
// goroutine starts when the last of them is in.
func TestFirstDMARCWalks(t *testing.T) {
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ A 8.8.8.8\n"))})
	r := s.newRun()
	r.domain.ASCII = "a.x.example.com"
	held := &questionStarter{}
	started := make(chan struct{}, 2)
	r.beginFirst(t.Context(), firstDMARC, &faultLog{next: held}, func() { started <- struct{}{} })
	notStarted := func(what string) {
		t.Helper()
		select {
		case <-started:
			require.FailNow(t, "the check started "+what)
		default:
		}
	}
	asked := []string{"_dmarc.a.x.example.com/TXT", "a.x.example.com/MX", "a.x.example.com/TXT"}
	require.Equal(t, asked, held.asked())
	held.answer("a.x.example.com", resolver.TypeMX, resolver.Answer{Outcome: resolver.NXDomain})
	held.answer("a.x.example.com", resolver.TypeTXT, resolver.Answer{Outcome: resolver.NXDomain})
	held.answer("_dmarc.a.x.example.com", resolver.TypeTXT, resolver.Answer{Outcome: resolver.NXDomain})
	asked = append(asked, "_dmarc.x.example.com/TXT")
	require.Equal(t, asked, held.asked(), "no record: the walk goes on")
	notStarted("mid-walk")
	held.answer("_dmarc.x.example.com", resolver.TypeTXT, resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{
		{Type: resolver.TypeTXT, Name: "_dmarc.x.example.com", TXT: []string{"v=DMARC1; p=reject; psd=n"}}}})
	require.Equal(t, asked, held.asked(), "a psd=n record ends the walk")
	select {
	case <-started:
	case <-time.After(30 * time.Second): // a goroutine's start, far past any load
		t.Fatal("the check never started")
	}
}

// TestFirstPTRConfirmsForward: the PTR check's goroutine starts once the
// PTR answer and the forward lookups of the names it gives are in.
func TestFirstPTRConfirmsForward(t *testing.T) {
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ A 8.8.8.8\n"))})
	r := s.newRun()
	r.ip = netip.MustParseAddr("192.0.2.7")
	held := &questionStarter{}
	started := make(chan struct{}, 2)
	r.beginFirst(t.Context(), firstPTR, &faultLog{next: held}, func() { started <- struct{}{} })
	require.Equal(t, []string{"7.2.0.192.in-addr.arpa/PTR"}, held.asked())
	held.answer("7.2.0.192.in-addr.arpa", resolver.TypePTR, resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{
		{Type: resolver.TypePTR, Target: "Mail.x.example.com."}, {Type: resolver.TypePTR, Target: "localhost."}}})
	require.Equal(t, []string{"7.2.0.192.in-addr.arpa/PTR", "mail.x.example.com/A"}, held.asked(), "the valid name, forward")
	select {
	case <-started:
		require.FailNow(t, "the check started before the forward answer")
	default:
	}
	held.answer("mail.x.example.com", resolver.TypeA, resolver.Answer{Outcome: resolver.NoData})
	select {
	case <-started:
	case <-time.After(30 * time.Second): // a goroutine's start, far past any load
		t.Fatal("the check never started")
	}
}

// TestFirstDMARCAsksAuthorizations: when the walk selects a record that
// sends aggregate reports to another organization, the DMARC check's
// first questions include that destination's authorization record, and
// the check starts once it is in.
func TestFirstDMARCAsksAuthorizations(t *testing.T) {
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ A 8.8.8.8\n"))})
	r := s.newRun()
	r.domain.ASCII = "x.example.com"
	held := &questionStarter{}
	started := make(chan struct{}, 2)
	r.beginFirst(t.Context(), firstDMARC, &faultLog{next: held}, func() { started <- struct{}{} })
	held.answer("x.example.com", resolver.TypeMX, resolver.Answer{Outcome: resolver.NoData})
	held.answer("x.example.com", resolver.TypeTXT, resolver.Answer{Outcome: resolver.NoData})
	held.answer("_dmarc.x.example.com", resolver.TypeTXT, resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{
		{Type: resolver.TypeTXT, Name: "_dmarc.x.example.com", TXT: []string{"v=DMARC1; p=reject; rua=mailto:d@reports.example.net"}}}})
	require.Equal(t, []string{"_dmarc.x.example.com/TXT", "x.example.com/MX", "x.example.com/TXT",
		"x.example.com._report._dmarc.reports.example.net/TXT"}, held.asked())
	select {
	case <-started:
		require.FailNow(t, "the check started before the authorization's answer")
	default:
	}
	held.answer("x.example.com._report._dmarc.reports.example.net", resolver.TypeTXT, resolver.Answer{Outcome: resolver.NXDomain})
	select {
	case <-started:
	case <-time.After(30 * time.Second): // a goroutine's start, far past any load
		t.Fatal("the check never started")
	}
}
