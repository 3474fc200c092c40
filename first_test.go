package mailauth

import (
	"context"
	"maps"
	"slices"
	"strings"
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
		ask("x.example.com", resolver.TypeTXT, firstWaits, nil)
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
		ask("x.example.com", resolver.TypeMX, firstWaits, func(resolver.Answer) { panic("a bug") })
	}, r.faultLog(CheckMX), func() { started <- struct{}{} })
	select {
	case <-started:
	case <-time.After(30 * time.Second): // a goroutine's start, far past any load
		t.Fatal("the check never started")
	}
}
