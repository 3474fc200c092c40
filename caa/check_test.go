package caa

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

type fault = dnstest.FaultAt

type checkCase struct {
	name   string
	domain string // default <name>.caa.test
	faults []fault
	want   Result
}

const zoneFile = "testdata/caa.zone"

// restricted is a set found at the name itself whose issue properties
// name the given number of CAs.
func restricted(props, issuers int, codes ...Code) Set {
	return Set{Outcome: resolver.Found, Lookups: 1, PropertyCount: props, Restricts: true,
		CanIssue: issuers > 0, CanIssueWildcard: issuers > 0, IssuerCount: issuers, Findings: codes}
}

// open is a set found at the name itself that restricts nothing.
func open(props int, codes ...Code) Set {
	return Set{Outcome: resolver.Found, Lookups: 1, PropertyCount: props, CanIssue: true, CanIssueWildcard: true, Findings: codes}
}

func failed(lookups int, reason resolver.Reason) Set {
	return Set{Outcome: resolver.Inconclusive, Reason: reason, Lookups: lookups}
}

// inherit is the MTA-STS host's set when it has no records of its own.
func inherit(s Set) Set {
	s.Lookups++
	s.Inherited = s.Outcome == resolver.Found
	return s
}

// same is the Result for a domain whose MTA-STS host has no own set.
func same(s Set) Result { return Result{Domain: s, MTASTS: inherit(s)} }

func with(s Set, f func(*Set)) Set {
	f(&s)
	return s
}

var checkCases = []checkCase{
	{name: "none", want: same(emptySet(3))},
	{name: "absent", want: same(emptySet(3))},
	{name: "apex", want: same(restricted(1, 1))},
	{name: "inherited", domain: "sub.inherited.caa.test",
		want: same(with(restricted(2, 2), func(s *Set) { s.Lookups, s.Inherited = 2, true }))},
	{name: "cname-target", want: Result{Domain: restricted(1, 0),
		MTASTS: with(restricted(1, 1), func(s *Set) { s.ViaCNAME = true })}},
	{name: "cname-climb", want: same(restricted(1, 1))},
	{name: "critical", want: same(with(restricted(2, 1, CodeCriticalUnknown), func(s *Set) {
		s.CanIssue, s.CanIssueWildcard, s.CriticalUnknown = false, false, true
	}))},
	{name: "critical-known", want: same(restricted(1, 1))},
	{name: "critical-reserved", want: same(with(restricted(1, 0, CodeCriticalUnknown), func(s *Set) { s.CriticalUnknown = true }))},
	{name: "forbid", want: same(restricted(1, 0))},
	{name: "malformed", want: same(restricted(1, 0, CodeIssueMalformed))},
	{name: "issuewild-only", want: same(with(open(1), func(s *Set) { s.Restricts, s.WildcardIssuerCount = true, 1 }))},
	{name: "issue-wild-forbid", want: same(with(restricted(2, 1), func(s *Set) { s.CanIssueWildcard = false }))},
	{name: "iodef-only", want: same(open(1))},
	{name: "iodef-ftp", want: same(restricted(2, 1, CodeIodefInvalid))},
	{name: "issuemail-only", want: same(with(open(1), func(s *Set) { s.MailIssuerCount = 1 }))},
	{name: "params", want: same(restricted(1, 1))},
	{name: "bad-tag", want: same(open(1, CodeInvalidTag))},
	{name: "www-and-apex", domain: "www.www-and-apex.caa.test",
		want: same(with(restricted(2, 1), func(s *Set) { s.WildcardIssuerCount = 1 }))},
	{name: "trailing-dot", want: same(restricted(1, 0, CodeIssueMalformed, CodeIssuerTrailingDot))},
	{name: "case", want: same(restricted(1, 1))},
	{name: "issuer-case", want: same(restricted(1, 1, CodeIssuerCase))},
	{name: "critical-contact", want: same(restricted(2, 1, CodeCriticalOptional))},
	{name: "critical-phone", want: same(restricted(2, 1, CodeCriticalOptional))},
	{name: "critical-issuemail", want: same(with(restricted(2, 1, CodeCriticalOptional), func(s *Set) { s.MailIssuerCount = 1 }))},
	{name: "additive", want: same(restricted(2, 1))},
	{name: "mta-sts-own", want: Result{Domain: restricted(1, 0), MTASTS: restricted(1, 1)}},
	{name: "reserved-flags", want: same(restricted(1, 1, CodeReservedFlags))},
	{name: "duplicate-issuers", want: same(restricted(4, 2, CodeIssuerCase))},
	{name: "unknown-tag", want: same(open(1, CodeUnknownTag))},
	{name: "contact", want: same(restricted(3, 1))},
	{name: "malformed-others", want: same(with(open(2, CodeIssueWildMalformed, CodeIssueMailMalformed),
		func(s *Set) { s.Restricts, s.CanIssueWildcard = true, false }))},
	{name: "climb-fail", domain: "deep.climb-fail.caa.test",
		faults: []fault{{Name: "climb-fail.caa.test", Type: resolver.TypeCAA, Fault: dnstest.ServFail}},
		want:   same(failed(2, resolver.ReasonServFail))},
	{name: "servfail", faults: []fault{{Name: "servfail.caa.test", Type: resolver.TypeCAA, Fault: dnstest.ServFail}},
		want: same(failed(1, resolver.ReasonServFail))},
	{name: "refused", faults: []fault{{Name: "refused.caa.test", Type: resolver.TypeCAA, Fault: dnstest.Refused}},
		want: same(failed(1, resolver.ReasonRefused))},
	{name: "timeout", faults: []fault{{Name: "timeout.caa.test", Type: resolver.TypeCAA, Fault: dnstest.Drop}},
		want: same(failed(1, resolver.ReasonTimeout))},
	{name: "garbage", faults: []fault{{Name: "garbage.caa.test", Type: resolver.TypeCAA, Fault: dnstest.Garbage}},
		want: same(failed(1, resolver.ReasonMalformed))},
	// The in-memory resolver answers a truncated question in full; the
	// TCP fallback is covered over the real server below.
	{name: "truncated", faults: []fault{{Name: "truncated.caa.test", Type: resolver.TypeCAA, Fault: dnstest.Truncate}},
		want: same(restricted(1, 1))},
	{name: "mta-sts-servfail", faults: []fault{{Name: "mta-sts.mta-sts-servfail.caa.test", Type: resolver.TypeCAA, Fault: dnstest.ServFail}},
		want: Result{Domain: restricted(1, 1), MTASTS: failed(1, resolver.ReasonServFail)}},
	{name: "single-label", domain: "test", want: same(emptySet(1))},
	{name: "at-limit", domain: labels(MaxClimb-2) + "caa.test", want: same(emptySet(MaxClimb))},
	{name: "over-limit", domain: labels(MaxClimb-1) + "caa.test", want: same(Set{Outcome: resolver.Inconclusive,
		Reason: resolver.ReasonBudgetExhausted, Lookups: MaxClimb, Findings: []Code{CodeClimbTruncated}})},
	{name: "host-too-long", domain: strings.Repeat("x", 63) + "." + strings.Repeat("x", 63) + "." + strings.Repeat("x", 63) + "." + strings.Repeat("x", 47) + ".apex.caa.test",
		want: Result{Domain: with(restricted(1, 1), func(s *Set) { s.Lookups, s.Inherited = 5, true }), MTASTS: Set{Outcome: resolver.NXDomain}}},
	{name: "empty-domain", domain: ".", want: Result{Domain: failed(0, resolver.ReasonInvalidName), MTASTS: failed(0, resolver.ReasonInvalidName)}},
}

// labels returns n labels "l1.l2.….ln." to prepend to a name.
func labels(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "l%d.", i)
	}
	return b.String()
}

func (tc checkCase) target() string {
	if tc.domain != "" {
		return tc.domain
	}
	return tc.name + ".caa.test"
}

// run checks tc's target through r and reports a Result other than tc.want.
func (tc checkCase) run(t *testing.T, r resolver.Resolver) {
	t.Helper()
	got := Check(t.Context(), r, tc.target())
	assert.Equal(t, tc.want, got, "Check(%s)", tc.target())
}

func TestCheck(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, zoneFile)
	for _, tc := range checkCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := dnstest.NewResolver(z)
			r.Apply(tc.faults...)
			tc.run(t, r)
		})
	}
}

// TestCheckServer runs scenarios over real UDP and TCP: truncation makes
// the client retry over TCP, a dropped reply times out.
func TestCheckServer(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, zoneFile)
	byName := map[string]checkCase{}
	for _, tc := range checkCases {
		byName[tc.name] = tc
	}
	for _, name := range []string{"apex", "truncated", "timeout", "cname-target", "cname-climb", "none", "critical"} {
		tc := byName[name]
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := dnstest.Start(t, z)
			srv.Apply(tc.faults...)
			tc.run(t, srv.PatientResolver())
			if tc.name == "truncated" {
				assert.Equal(t, 2, srv.Count("truncated.caa.test", resolver.TypeCAA), "truncated: CAA queries, want 2 (UDP then TCP)")
			}
		})
	}
}

// TestCheckQueries proves the climb: the names asked, in no other type,
// each once, never an alias target's parent, never the root.
func TestCheckQueries(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, zoneFile)
	for _, tc := range []struct {
		domain string
		want   []string
	}{
		{"none.caa.test", []string{"caa.test", "mta-sts.none.caa.test", "none.caa.test", "test"}},
		{"apex.caa.test", []string{"apex.caa.test", "mta-sts.apex.caa.test"}},
		{"cname-climb.caa.test", []string{"cname-climb.caa.test", "mta-sts.cname-climb.caa.test"}},
		{"sub.inherited.caa.test", []string{"inherited.caa.test", "mta-sts.sub.inherited.caa.test", "sub.inherited.caa.test"}},
	} {
		r := dnstest.NewResolver(z)
		Check(t.Context(), r, tc.domain)
		var got []string
		for _, q := range r.Queries() {
			assert.Equal(t, resolver.TypeCAA, q.Type, "%s: asked %s %s", tc.domain, q.Type, q.Name)
			got = append(got, q.Name)
		}
		sort.Strings(got)
		assert.Equal(t, tc.want, got, "%s: names asked", tc.domain)
	}
}

func TestCheckCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	got := Check(ctx, dnstest.NewResolver(dnstest.MustLoad(t, zoneFile)), "apex.caa.test")
	want := Result{Domain: failed(1, resolver.ReasonCanceled), MTASTS: failed(1, resolver.ReasonCanceled)}
	assert.Equal(t, want, got, "canceled")
}

// TestClimbNextIsTheClimb: for every scenario, the names Check's search
// for the domain asks are the chain ClimbNext gives from the same
// answers: what the scan asks before the check runs is what the check
// asks.
func TestClimbNextIsTheClimb(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, zoneFile)
	deep := checkCase{name: "deep", domain: strings.Repeat("x.", MaxClimb+2) + "none.caa.test"} // past MaxClimb
	for _, tc := range append(slices.Clip(checkCases), deep) {
		domain := resolver.CanonicalName(tc.target())
		if domain == "" || len(domain) > MaxNameLen {
			continue
		}
		r := dnstest.NewResolver(z)
		r.Apply(tc.faults...)
		Check(t.Context(), r, domain)
		var asked []string
		for _, q := range r.Queries() {
			if name := resolver.CanonicalName(q.Name); name != MTASTSHost(domain) {
				asked = append(asked, name)
			}
		}
		chain := dnstest.NewResolver(z)
		chain.Apply(tc.faults...)
		want := []string{domain}
		for i, name := 0, domain; ; i++ {
			next, ok := ClimbNext(domain, i, chain.Lookup(t.Context(), name, resolver.TypeCAA))
			if !ok {
				break
			}
			want, name = append(want, next), next
		}
		assert.ElementsMatch(t, want, asked, "%s: the climb's names", tc.name)
		if tc.name == "deep" {
			assert.Len(t, want, MaxClimb, "deep: the climb stops at MaxClimb")
		}
	}
	for _, i := range []int{-1, -2, -100} {
		next, ok := ClimbNext("a.b.example.com", i, resolver.Answer{Outcome: resolver.NoData})
		assert.False(t, ok, "question %d: no such question", i)
		assert.Empty(t, next)
	}
}
