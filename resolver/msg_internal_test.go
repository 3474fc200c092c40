package resolver

import (
	"fmt"
	"net"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
)

// TestIsCanonicalOf: isCanonicalOf(s, c) is CanonicalName(s) == c for
// every pair of names, capitals, a trailing dot and non-ASCII included.
func TestIsCanonicalOf(t *testing.T) {
	names := []string{"", ".", "a", "A", "a.", "example.com", "Example.COM.", "example.com..", "exampl.com",
		"xn--bcher-kva.example", "\u212aey.example", "key.example", "KEY.example.", "\u023a.example", "\u2c65.example",
		"a\\.b.example", "A\\046B.example", "_dmarc.Example.com", "example.co", "example.comm"}
	for _, s := range names {
		for _, c := range names {
			canon := CanonicalName(c)
			assert.Equal(t, CanonicalName(s) == canon, isCanonicalOf(s, canon), "isCanonicalOf(%q, %q)", s, canon)
		}
	}
}

// FuzzIsCanonicalOf: isCanonicalOf agrees with CanonicalName.
func FuzzIsCanonicalOf(f *testing.F) {
	f.Add("Example.COM.", "example.com")
	f.Add("\u212aey.example", "key.example")
	f.Fuzz(func(t *testing.T, s, c string) {
		canon := CanonicalName(c)
		if got, want := isCanonicalOf(s, canon), CanonicalName(s) == canon; got != want {
			t.Fatalf("isCanonicalOf(%q, %q) = %v, want %v", s, canon, got, want)
		}
	})
}

// TestRecordsAtRoom: the records recordsAt returns take no more room
// than their number, whatever else the section holds: records of the
// type at another owner, records that do not decode.
func TestRecordsAtRoom(t *testing.T) {
	a := func(owner, ip string) dns.RR {
		return &dns.A{Hdr: dns.RR_Header{Name: owner, Rrtype: dns.TypeA, Class: dns.ClassINET}, A: net.ParseIP(ip)}
	}
	broken := &dns.A{Hdr: dns.RR_Header{Name: "a.example.", Rrtype: dns.TypeA, Class: dns.ClassINET}}
	ten := []dns.RR{broken} // ten that decode after one that does not: 10 Records round up to 11 in an append
	for i := range 10 {
		ten = append(ten, a("a.example.", fmt.Sprintf("192.0.2.%d", i+1)))
	}
	for _, tc := range []struct {
		name string
		rrs  []dns.RR
		want int
	}{
		{"one", []dns.RR{a("a.example.", "192.0.2.1")}, 1},
		{"others-after", []dns.RR{a("A.Example.", "192.0.2.1"), a("b.example.", "192.0.2.2"), a("b.example.", "192.0.2.3")}, 1},
		{"broken", []dns.RR{a("a.example.", "192.0.2.1"), broken, broken, a("a.example.", "192.0.2.4")}, 2},
		{"all-broken", []dns.RR{broken, broken}, 0},
		{"broken-first", []dns.RR{broken, a("a.example.", "192.0.2.1"), a("a.example.", "192.0.2.2")}, 2},
		{"ten-after-broken", ten, 10},
		{"none", []dns.RR{a("b.example.", "192.0.2.2")}, 0},
	} {
		var recs []Record
		recordsAt(&recs, tc.rrs, "a.example", TypeA)
		assert.Len(t, recs, tc.want, tc.name)
		assert.Equal(t, len(recs), cap(recs), "%s: room", tc.name)
		if tc.want == 0 {
			assert.Nil(t, recs, tc.name)
		}
	}
}

// TestIsCanonicalOfNonASCIIDoubleDot: a name with a non-ASCII octet is
// held to CanonicalName too when it ends in two dots: isCanonicalOf
// trims one dot and CanonicalName another, so "\u00e9.example.." passed
// for "\u00e9.example", which CanonicalName says it is not.
func TestIsCanonicalOfNonASCIIDoubleDot(t *testing.T) {
	for _, s := range []string{"\u00e9.example..", "\u00c9.Example..", "\xff.example.."} {
		for _, canon := range []string{CanonicalName(s), CanonicalName(CanonicalName(s))} {
			assert.Equal(t, CanonicalName(s) == canon, isCanonicalOf(s, canon), "isCanonicalOf(%q, %q)", s, canon)
		}
	}
}
