package ptr

import (
	"context"
	"fmt"
	"net/netip"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

type fault = dnstest.FaultAt

type checkCase struct {
	name   string
	addr   string
	faults []fault
	want   Result
}

const zoneFile = "testdata/ptr.zone"

// v4 returns the Result of a found PTR RRset for an IPv4 address.
func v4(names, queries, completed, addrs int, c Confirmation, codes ...Code) Result {
	r := Result{IPVersion: 4, Outcome: resolver.Found, NameCount: new(names), ForwardType: resolver.TypeA,
		ForwardQueries: queries, ForwardCompleted: completed, Confirmed: c, Findings: codes}
	if completed > 0 {
		r.ForwardAddresses = new(addrs)
	}
	return r
}

func v6(names, queries, completed, addrs int, c Confirmation, codes ...Code) Result {
	r := v4(names, queries, completed, addrs, c, codes...)
	r.IPVersion, r.ForwardType = 6, resolver.TypeAAAA
	return r
}

func failed(version int, reason resolver.Reason) Result {
	t := resolver.TypeA
	if version == 6 {
		t = resolver.TypeAAAA
	}
	return Result{IPVersion: version, Outcome: resolver.Inconclusive, Reason: reason, ForwardType: t, Confirmed: Unknown}
}

func absent(version int, o resolver.Outcome) Result {
	r := failed(version, resolver.ReasonNone)
	r.Outcome, r.Confirmed, r.Findings, r.NameCount = o, NotConfirmed, []Code{CodeNoPTR}, new(0)
	return r
}

func rev(n int) string { return fmt.Sprintf("%d.100.51.198.in-addr.arpa", n) }

var checkCases = []checkCase{
	{name: "confirmed", addr: "198.51.100.1", want: v4(1, 1, 1, 1, Confirmed)},
	{name: "mapped", addr: "::ffff:198.51.100.1", want: v4(1, 1, 1, 1, Confirmed)},
	{name: "no-ptr", addr: "198.51.100.2", want: absent(4, resolver.NXDomain)},
	{name: "nodata", addr: "198.51.100.3", want: absent(4, resolver.NoData)},
	{name: "servfail", addr: "198.51.100.4", faults: []fault{{Name: rev(4), Type: resolver.TypePTR, Fault: dnstest.ServFail}},
		want: failed(4, resolver.ReasonServFail)},
	{name: "timeout", addr: "198.51.100.5", faults: []fault{{Name: rev(5), Type: resolver.TypePTR, Fault: dnstest.Drop}},
		want: failed(4, resolver.ReasonTimeout)},
	{name: "mismatch", addr: "198.51.100.6", want: v4(1, 1, 1, 1, NotConfirmed)},
	{name: "ten-names", addr: "198.51.100.7", want: v4(10, 8, 8, 8, NotConfirmed, CodeTooManyNames)},
	{name: "forward-servfail-no-match", addr: "198.51.100.8",
		faults: []fault{{Name: "a.fwd-fail.ptr.test", Type: resolver.TypeA, Fault: dnstest.ServFail}},
		want:   v4(2, 2, 1, 1, Unknown, CodeForwardInconclusive)},
	{name: "forward-servfail-match", addr: "198.51.100.9",
		faults: []fault{{Name: "a.fwd-match.ptr.test", Type: resolver.TypeA, Fault: dnstest.ServFail}},
		want:   v4(2, 2, 1, 1, Confirmed, CodeForwardInconclusive)},
	{name: "mixed-case", addr: "198.51.100.10", want: v4(1, 1, 1, 1, Confirmed)},
	{name: "classless-cname", addr: "198.51.100.11", want: func() Result {
		r := v4(1, 1, 1, 1, Confirmed)
		r.ReverseAliased = true
		return r
	}()},
	{name: "localhost", addr: "198.51.100.12", want: v4(1, 0, 0, 0, NotConfirmed, CodeLocalhostName)},
	{name: "forward-nxdomain", addr: "198.51.100.13", want: v4(1, 1, 1, 0, NotConfirmed)},
	{name: "generic", addr: "198.51.100.14", want: v4(1, 1, 1, 1, Confirmed, CodeGenericName)},
	{name: "invalid-name", addr: "198.51.100.15", want: func() Result {
		r := v4(2, 1, 1, 1, Confirmed, CodeInvalidName)
		r.InvalidNameCount = 1
		return r
	}()},
	{name: "multiple", addr: "198.51.100.16", want: v4(2, 2, 2, 2, Confirmed)},
	{name: "forward-timeout", addr: "198.51.100.17", faults: []fault{{Name: "slow.ptr.test", Type: resolver.TypeA, Fault: dnstest.Drop}},
		want: v4(1, 1, 0, 0, Unknown, CodeForwardInconclusive)},
	{name: "garbage", addr: "198.51.100.18", faults: []fault{{Name: rev(18), Type: resolver.TypePTR, Fault: dnstest.Garbage}},
		want: failed(4, resolver.ReasonMalformed)},
	// The in-memory resolver answers a truncated question in full; the
	// TCP fallback is covered over the real server below.
	{name: "truncated", addr: "198.51.100.19", faults: []fault{{Name: rev(19), Type: resolver.TypePTR, Fault: dnstest.Truncate}},
		want: v4(1, 1, 1, 1, Confirmed)},
	{name: "forward-alias", addr: "198.51.100.20", want: v4(1, 1, 1, 1, Confirmed)},
	{name: "a-for-ipv4-only", addr: "198.51.100.21", want: v4(1, 1, 1, 0, NotConfirmed)},
	{name: "several-addresses", addr: "198.51.100.22", want: v4(1, 1, 1, 3, Confirmed)},
	{name: "address-as-name", addr: "198.51.100.23", want: func() Result {
		r := v4(1, 0, 0, 0, NotConfirmed, CodeInvalidName, CodeGenericName)
		r.InvalidNameCount = 1
		return r
	}()},
	{name: "root-name", addr: "198.51.100.24", want: func() Result {
		r := v4(1, 0, 0, 0, NotConfirmed, CodeInvalidName)
		r.InvalidNameCount = 1
		return r
	}()},
	{name: "refused", addr: "198.51.100.25", faults: []fault{{Name: rev(25), Type: resolver.TypePTR, Fault: dnstest.Refused}},
		want: failed(4, resolver.ReasonRefused)},
	{name: "ipv6-confirmed", addr: "2001:db8::1", want: v6(1, 1, 1, 1, Confirmed)},
	{name: "aaaa-for-ipv6-only", addr: "2001:db8::2", want: v6(1, 1, 1, 0, NotConfirmed)},
	{name: "ipv6-no-ptr", addr: "2001:db8::3", want: absent(6, resolver.NXDomain)},
	{name: "ipv6-zone-ignored", addr: "2001:db8::1%eth0", want: v6(1, 1, 1, 1, Confirmed)},
}

// run checks tc's address through r and reports a Result other than tc.want.
func (tc checkCase) run(t *testing.T, r resolver.Resolver) {
	t.Helper()
	got := Check(t.Context(), r, netip.MustParseAddr(tc.addr))
	assert.Equal(t, tc.want, got, "Check(%s)", tc.addr)
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
	cases := []checkCase{
		byName["confirmed"], byName["truncated"], byName["timeout"], byName["forward-timeout"],
		byName["classless-cname"], byName["ipv6-confirmed"],
		{name: "forward-truncated", addr: "198.51.100.22", faults: []fault{{Name: "multi-a.ptr.test", Type: resolver.TypeA, Fault: dnstest.Truncate}},
			want: v4(1, 1, 1, 3, Confirmed)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := dnstest.Start(t, z)
			srv.Apply(tc.faults...)
			tc.run(t, srv.PatientResolver())
			if tc.name == "truncated" {
				assert.Equal(t, 2, srv.Count(rev(19), resolver.TypePTR), "truncated: PTR queries, want 2 (UDP then TCP)")
			}
		})
	}
}

// TestCheckQueries proves which names are looked up forward, with which
// type: the first MaxForward sorted names, never an invalid or localhost
// name, and A or AAAA by the address family only.
func TestCheckQueries(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, zoneFile)
	for _, tc := range []struct {
		addr string
		want []string // "type name" of every question, sorted
	}{
		{"198.51.100.7", append(nNames(8), "PTR "+rev(7))},
		{"198.51.100.12", []string{"PTR " + rev(12)}},
		{"198.51.100.15", []string{"A valid.ptr.test", "PTR " + rev(15)}},
		{"198.51.100.10", []string{"A mixed.ptr.test", "PTR " + rev(10)}},
		{"::ffff:198.51.100.1", []string{"A confirmed.ptr.test", "PTR " + rev(1)}},
		{"2001:db8::2", []string{"AAAA v4only.ptr.test", "PTR 2.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa"}},
	} {
		r := dnstest.NewResolver(z)
		Check(t.Context(), r, netip.MustParseAddr(tc.addr))
		var got []string
		for _, q := range r.Queries() {
			got = append(got, q.Type.String()+" "+q.Name)
		}
		sort.Strings(got)
		assert.Equal(t, tc.want, got, "%s: questions", tc.addr)
	}
}

func nNames(n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("A n%02d.many.ptr.test", i))
	}
	return out
}

func TestCheckInvalidAddress(t *testing.T) {
	t.Parallel()
	r := dnstest.NewResolver(dnstest.MustLoad(t, zoneFile))
	got := Check(t.Context(), r, netip.Addr{})
	want := Result{Outcome: resolver.Inconclusive, Reason: resolver.ReasonInvalidName, Confirmed: Unknown}
	assert.Equal(t, want, got, "invalid address")
	assert.Empty(t, r.Queries(), "invalid address: queries, want 0")
}

func TestCheckCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	got := Check(ctx, dnstest.NewResolver(dnstest.MustLoad(t, zoneFile)), netip.MustParseAddr("198.51.100.1"))
	assert.Equal(t, failed(4, resolver.ReasonCanceled), got, "canceled")
}

// TestForwardQuestionsAreTheChecks: for every scenario, the forward
// questions Check asks are ForwardQuestions of its PTR answer, each once:
// what the scan asks before the check runs is what the check asks.
func TestForwardQuestionsAreTheChecks(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, zoneFile)
	for _, tc := range checkCases {
		addr := netip.MustParseAddr(tc.addr)
		r := dnstest.NewResolver(z)
		r.Apply(tc.faults...)
		Check(t.Context(), r, addr)
		var asked []string
		for _, q := range r.Queries() {
			if q.Type != resolver.TypePTR {
				asked = append(asked, resolver.CanonicalName(q.Name)+"/"+q.Type.String())
			}
		}
		name, ok := Question(addr)
		if !ok {
			continue
		}
		rev := dnstest.NewResolver(z)
		rev.Apply(tc.faults...)
		names, qtype := ForwardQuestions(addr, rev.Lookup(t.Context(), name, resolver.TypePTR))
		var want []string
		for _, n := range names {
			want = append(want, n+"/"+qtype.String())
		}
		assert.ElementsMatch(t, want, asked, "%s: forward questions", tc.name)
	}
	names, _ := ForwardQuestions(netip.Addr{}, resolver.Answer{Outcome: resolver.Found})
	assert.Empty(t, names, "no address: nothing to confirm")
}
