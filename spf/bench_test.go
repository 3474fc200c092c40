package spf

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver/dnstest"
)

// bench20 is a realistic 20-term record: every mechanism kind, CIDRs,
// macros and modifiers.
const bench20 = "v=spf1 ip4:192.0.2.0/24 ip4:198.51.100.7 ip6:2001:db8::/32 ip6:2001:db8:1::1 " +
	"a a:mail.example.com/28 mx mx:example.net/24//64 include:_spf.example.com " +
	"include:spf.protection.example.net include:%{d2}.relay.example.org exists:%{i}._spf.%{d} " +
	"ptr:example.com ?ip4:203.0.113.0/25 ~a:backup.example.com -mx:old.example.com " +
	"+include:servers.example.org exp=explain.%{d} foo=bar -all"

func BenchmarkParse(b *testing.B) {
	rec, err := Parse(bench20)
	require.NoError(b, err, "bench record")
	require.Len(b, rec.Terms, 20, "bench record terms")
	b.ReportAllocs()
	b.SetBytes(int64(len(bench20)))
	for b.Loop() {
		_, err := Parse(bench20)
		require.NoError(b, err)
	}
}

// BenchmarkCheck expands includes-10.spf.test (ten includes, each a
// record of its own) against the in-memory resolver: 11 TXT lookups.
func BenchmarkCheck(b *testing.B) {
	r := dnstest.NewResolver(loadZones(b))
	want := policy(212, 10, "-")
	b.ReportAllocs()
	for b.Loop() {
		got := Check(b.Context(), r, "includes-10.spf.test")
		require.Equal(b, *want.LookupCount, *got.LookupCount, "Check LookupCount")
		require.True(b, got.LookupComplete, "Check LookupComplete")
	}
}

// BenchmarkShapeLongRecord reads the shape of a record of 40 ip4 and ip6
// mechanisms, as the walk does for each record of a hostile tree.
func BenchmarkShapeLongRecord(b *testing.B) {
	var s strings.Builder
	s.WriteString("v=spf1")
	for k := range 20 {
		fmt.Fprintf(&s, " ip4:198.51.7.%d/32 ip6:2001:db8:7::%x/128", k, k)
	}
	s.WriteString(" include:j0.i0.tree.example.com -all")
	rec := s.String()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := shapeOf(rec); err != nil {
			b.Fatal(err)
		}
	}
}
