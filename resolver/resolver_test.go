package resolver_test

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"

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
		assert.Equal(t, tc.want, resolver.ReverseName(tc.in), "ReverseName(%v)", tc.in)
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
		assert.Equal(t, tc.want, resolver.CanonicalName(tc.in), "CanonicalName(%q)", tc.in)
	}
}

// TestCanonicalNameNoAlloc is not parallel: AllocsPerRun forbids it.
func TestCanonicalNameNoAlloc(t *testing.T) {
	var sink string
	n := testing.AllocsPerRun(100, func() { sink = resolver.CanonicalName("already.lower.") })
	assert.Zero(t, n, "CanonicalName of a lower-case name allocates %v times", n)
	assert.Equal(t, "already.lower", sink, "CanonicalName of a lower-case name")
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
		assert.Equal(t, tc.exists, tc.a.Exists(), "%s Exists()", tc.a.Outcome)
		assert.Equal(t, tc.absent, tc.a.Absent(), "%s Absent()", tc.a.Outcome)
		assert.Equal(t, tc.conclusive, tc.a.Conclusive(), "%s Conclusive()", tc.a.Outcome)
	}
	want := resolver.Answer{Outcome: resolver.Inconclusive, Reason: resolver.ReasonTimeout, Rcode: -1}
	assert.Equal(t, want, resolver.Fail(resolver.ReasonTimeout), "Fail")
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
	assert.Equal(t, []string{"v=spf1 -all", "spftype"}, a.TXTs(), "TXTs()")
	assert.Equal(t, []netip.Addr{addr("192.0.2.1"), addr("2001:db8::1")}, a.Addrs(), "Addrs()")
	assert.Equal(t, []string{"mx.test", "ptr.test", "cname.test"}, a.Targets(), "Targets()")
	var empty resolver.Answer
	assert.Nil(t, empty.TXTs(), "helpers of an empty answer are not nil")
	assert.Nil(t, empty.Addrs(), "helpers of an empty answer are not nil")
	assert.Nil(t, empty.Targets(), "helpers of an empty answer are not nil")
	assert.Equal(t, "ab", (resolver.Record{TXT: []string{"a", "", "b"}}).JoinedTXT(), "JoinedTXT")
}

func TestTypeString(t *testing.T) {
	t.Parallel()
	tests := map[resolver.Type]string{
		resolver.TypeA: "A", resolver.TypeAAAA: "AAAA", resolver.TypeMX: "MX", resolver.TypeTXT: "TXT",
		resolver.TypePTR: "PTR", resolver.TypeCAA: "CAA", resolver.TypeCNAME: "CNAME", resolver.TypeSPF: "SPF",
		resolver.TypeNS: "NS", resolver.TypeSOA: "SOA", 65: "TYPE65", 0: "TYPE0",
	}
	for typ, want := range tests {
		assert.Equal(t, want, typ.String(), "Type(%d).String()", uint16(typ))
	}
}
