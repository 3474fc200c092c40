package dnstest_test

import (
	"context"
	"net/netip"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestResolverApply: Apply injects every fault of a row, in order.
func TestResolverApply(t *testing.T) {
	t.Parallel()
	const name = "host.dnstest.test"
	r := dnstest.NewResolver(testZones(t))
	r.Apply() // nothing to inject
	got := r.Lookup(t.Context(), name, resolver.TypeA)
	require.Equal(t, resolver.Found, got.Outcome, "without faults: %+v", got)
	r.Apply(
		dnstest.FaultAt{name, resolver.TypeA, dnstest.Drop},
		dnstest.FaultAt{Name: name, Type: resolver.TypeTXT, Fault: dnstest.Garbage},
		dnstest.FaultAt{Name: name, Type: resolver.TypeTXT, Fault: dnstest.ServFail}, // replaces Garbage
	)
	for _, tc := range []struct {
		qtype resolver.Type
		want  resolver.Reason
	}{
		{resolver.TypeA, resolver.ReasonTimeout},
		{resolver.TypeTXT, resolver.ReasonServFail},
		{resolver.TypeMX, resolver.ReasonNone},
	} {
		assert.Equal(t, tc.want, r.Lookup(t.Context(), name, tc.qtype).Reason, "%s: reason", tc.qtype)
	}
}

// TestServerApply: Apply on a Server changes what goes over the wire.
func TestServerApply(t *testing.T) {
	t.Parallel()
	const name = "host.dnstest.test"
	srv := dnstest.Start(t, testZones(t))
	srv.Apply(
		dnstest.FaultAt{name, resolver.TypeTXT, dnstest.Truncate},
		dnstest.FaultAt{name, resolver.TypeA, dnstest.Refused},
	)
	c := srv.Client(time.Second)
	got := c.Lookup(t.Context(), name, resolver.TypeTXT)
	assert.Equal(t, resolver.Found, got.Outcome, "truncated TXT: %+v, want the full answer over TCP", got)
	assert.Equal(t, 2, srv.Count(name, resolver.TypeTXT), "truncated TXT: questions, want 2 (UDP then TCP)")
	got = c.Lookup(t.Context(), name, resolver.TypeA)
	assert.Equal(t, resolver.ReasonRefused, got.Reason, "refused A: %+v", got)
}

type inner struct {
	X int
	Y string
}

type sample struct {
	A      int
	B      string
	In     inner
	Addr   netip.Addr
	List   []string
	hidden int
}

func TestDiff(t *testing.T) {
	t.Parallel()
	base := sample{A: 1, B: "x", In: inner{X: 1, Y: "y"}, Addr: netip.MustParseAddr("192.0.2.1"), List: []string{"a"}}
	with := func(f func(*sample)) sample {
		s := base
		f(&s)
		return s
	}
	tests := []struct {
		name      string
		got, want any
		diff      string
	}{
		{"equal", base, base, ""},
		{"nil", nil, nil, ""},
		{"one-field", with(func(s *sample) { s.A = 2 }), base, "  A: got 2, want 1\n"},
		{"two-fields", with(func(s *sample) { s.A, s.B = 2, "z" }), base, "  A: got 2, want 1\n  B: got z, want x\n"},
		{"nested", with(func(s *sample) { s.In.Y = "w" }), base, "  In.Y: got w, want y\n"},
		{"opaque-struct", with(func(s *sample) { s.Addr = netip.MustParseAddr("192.0.2.2") }), base,
			"  Addr: got 192.0.2.2, want 192.0.2.1\n"},
		{"nil-vs-empty", with(func(s *sample) { s.List = nil }), with(func(s *sample) { s.List = []string{} }),
			"  List: got []string(nil), want []string{}\n"},
		{"unexported-only", with(func(s *sample) { s.hidden = 1 }), base,
			"  got {A:1 B:x In:{X:1 Y:y} Addr:192.0.2.1 List:[a] hidden:1}, want {A:1 B:x In:{X:1 Y:y} Addr:192.0.2.1 List:[a] hidden:0}\n"},
		{"ints", 1, 2, "  got 1, want 2\n"},
		{"types", 1, "1", "  got int 1, want string \"1\"\n"},
		{"nil-vs-value", nil, inner{}, "  got <nil> <nil>, want dnstest_test.inner {X:0 Y:}\n"},
		{"pointers", &inner{X: 1}, &inner{X: 2}, "  got &{X:1 Y:}, want &{X:2 Y:}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := dnstest.Diff(tc.got, tc.want)
			assert.Equal(t, tc.diff, got, "Diff")
			assert.Equal(t, reflect.DeepEqual(tc.got, tc.want), got == "", "Diff is %q but DeepEqual is %v", got, reflect.DeepEqual(tc.got, tc.want))
		})
	}
}

// TestServerCountOver: a truncated UDP answer shows as one question over
// each transport.
func TestServerCountOver(t *testing.T) {
	z := dnstest.MustParse(t, "$ORIGIN count.test.\n@ TXT \"x\"\n")
	srv := dnstest.Start(t, z)
	srv.SetFault("count.test", dnstest.AnyType, dnstest.Truncate)
	a := srv.Client(time.Second).Lookup(t.Context(), "count.test", resolver.TypeTXT)
	require.Equal(t, resolver.Found, a.Outcome, "lookup = %+v", a)
	for _, tc := range []struct {
		name, network string
		want          int
	}{{"count.test", "udp", 1}, {"count.test", "tcp", 1}, {"count.test", "", 2}, {"", "tcp", 1}, {"other.test", "tcp", 0}} {
		assert.Equal(t, tc.want, srv.CountOver(tc.name, dnstest.AnyType, tc.network), "CountOver(%q, %q)", tc.name, tc.network)
	}
}

// TestServerDelayAllAndKeepLog: DelayAll delays answers also for names
// the zones lack; with the log off, Received still counts every question
// while Count stays put.
func TestServerDelayAllAndKeepLog(t *testing.T) {
	srv := dnstest.Start(t, dnstest.MustParse(t, "$ORIGIN d.test.\n@ 300 SOA ns h 1 2 3 4 60\nhost 300 A 127.0.0.1\n"))
	srv.DelayAll(30 * time.Millisecond)
	c := srv.Client(time.Second)
	start := time.Now()
	a := c.Lookup(context.Background(), "absent.d.test", resolver.TypeA)
	require.Equal(t, resolver.NXDomain, a.Outcome)
	el := time.Since(start)
	require.GreaterOrEqual(t, el, 30*time.Millisecond, "answered after %v: the delay applies to absent names too", el)
	srv.DelayAll(0)
	srv.KeepLog(false)
	c.Lookup(context.Background(), "host.d.test", resolver.TypeA)
	require.Equal(t, 2, srv.Received(), "received %d, logged %d: want 2 and 1", srv.Received(), srv.Count("", dnstest.AnyType))
	require.Equal(t, 1, srv.Count("", dnstest.AnyType), "received %d, logged %d: want 2 and 1", srv.Received(), srv.Count("", dnstest.AnyType))
}
