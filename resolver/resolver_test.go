package resolver_test

import (
	"net/netip"
	"reflect"
	"testing"

	"github.com/mailauth/mailauth/resolver"
)

// TestReverseName checks the vectors of doc/rfc-notes.md §8.1 and the edges.
func TestReverseName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   netip.Addr
		want string
	}{
		{addr("198.51.100.7"), "7.100.51.198.in-addr.arpa"},
		{addr("2001:db8::1"), "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa"},
		{addr("::ffff:198.51.100.7"), "7.100.51.198.in-addr.arpa"},
		{addr("0.0.0.0"), "0.0.0.0.in-addr.arpa"},
		{addr("255.255.255.255"), "255.255.255.255.in-addr.arpa"},
		{addr("10.0.0.1"), "1.0.0.10.in-addr.arpa"},
		{addr("2001:DB8:ABCD:12::FEDC"), "c.d.e.f.0.0.0.0.0.0.0.0.0.0.0.0.2.1.0.0.d.c.b.a.8.b.d.0.1.0.0.2.ip6.arpa"},
		{addr("::"), "0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.ip6.arpa"},
		{addr("fe80::1%eth0"), "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.e.f.ip6.arpa"},
		{netip.Addr{}, ""},
	}
	for _, tc := range tests {
		if got := resolver.ReverseName(tc.in); got != tc.want {
			t.Errorf("ReverseName(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCanonicalName(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"example.com", "example.com"},
		{"Example.COM.", "example.com"},
		{"EXAMPLE.COM", "example.com"},
		{"_dmarc.Example.com.", "_dmarc.example.com"},
		{"xn--bcher-kva.Example", "xn--bcher-kva.example"},
		{".", ""},
		{"", ""},
		{"a", "a"},
	}
	for _, tc := range tests {
		if got := resolver.CanonicalName(tc.in); got != tc.want {
			t.Errorf("CanonicalName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCanonicalNameNoAlloc is not parallel: AllocsPerRun forbids it.
func TestCanonicalNameNoAlloc(t *testing.T) {
	var sink string
	if n := testing.AllocsPerRun(100, func() { sink = resolver.CanonicalName("already.lower.") }); n != 0 || sink != "already.lower" {
		t.Errorf("CanonicalName of a lower-case name allocates %v times", n)
	}
}

func TestAnswerPredicates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a                          resolver.Answer
		exists, absent, conclusive bool
	}{
		{resolver.Answer{Outcome: resolver.Found}, true, false, true},
		{resolver.Answer{Outcome: resolver.NoData}, true, true, true},
		{resolver.Answer{Outcome: resolver.NXDomain}, false, true, true},
		{resolver.Fail(resolver.ReasonServFail), false, false, false},
		{resolver.Fail(resolver.ReasonBudgetExhausted), false, false, false},
	}
	for _, tc := range tests {
		if got := tc.a.Exists(); got != tc.exists {
			t.Errorf("%s Exists() = %v", tc.a.Outcome, got)
		}
		if got := tc.a.Absent(); got != tc.absent {
			t.Errorf("%s Absent() = %v", tc.a.Outcome, got)
		}
		if got := tc.a.Conclusive(); got != tc.conclusive {
			t.Errorf("%s Conclusive() = %v", tc.a.Outcome, got)
		}
	}
	want := resolver.Answer{Outcome: resolver.Inconclusive, Reason: resolver.ReasonTimeout, Rcode: -1}
	if got := resolver.Fail(resolver.ReasonTimeout); !reflect.DeepEqual(got, want) {
		t.Errorf("Fail = %+v, want %+v", got, want)
	}
}

func TestAnswerHelpers(t *testing.T) {
	t.Parallel()
	a := resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{
		rrTXT("x", "v=spf1 ", "-all"),
		{Type: resolver.TypeSPF, TXT: []string{"spf", "type"}},
		rrA("x", "192.0.2.1"),
		rrA("x", "2001:db8::1"),
		{Type: resolver.TypeMX, Target: "mx.test"},
		{Type: resolver.TypePTR, Target: "ptr.test"},
		{Type: resolver.TypeCNAME, Target: "cname.test"},
		{Type: resolver.TypeCAA, CAATag: "issue"},
	}}
	if got, want := a.TXTs(), []string{"v=spf1 -all", "spftype"}; !reflect.DeepEqual(got, want) {
		t.Errorf("TXTs() = %q, want %q", got, want)
	}
	if got, want := a.Addrs(), []netip.Addr{addr("192.0.2.1"), addr("2001:db8::1")}; !reflect.DeepEqual(got, want) {
		t.Errorf("Addrs() = %v, want %v", got, want)
	}
	if got, want := a.Targets(), []string{"mx.test", "ptr.test", "cname.test"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Targets() = %q, want %q", got, want)
	}
	var empty resolver.Answer
	if empty.TXTs() != nil || empty.Addrs() != nil || empty.Targets() != nil {
		t.Error("helpers of an empty answer are not nil")
	}
	if got := (resolver.Record{TXT: []string{"a", "", "b"}}).JoinedTXT(); got != "ab" {
		t.Errorf("JoinedTXT = %q", got)
	}
}

func TestTypeString(t *testing.T) {
	t.Parallel()
	tests := map[resolver.Type]string{
		resolver.TypeA: "A", resolver.TypeAAAA: "AAAA", resolver.TypeMX: "MX", resolver.TypeTXT: "TXT",
		resolver.TypePTR: "PTR", resolver.TypeCAA: "CAA", resolver.TypeCNAME: "CNAME", resolver.TypeSPF: "SPF",
		resolver.TypeNS: "NS", resolver.TypeSOA: "SOA", 65: "TYPE65", 0: "TYPE0",
	}
	for typ, want := range tests {
		if got := typ.String(); got != want {
			t.Errorf("Type(%d).String() = %q, want %q", uint16(typ), got, want)
		}
	}
}
