package dane

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

func sha(n int) []byte { return bytes.Repeat([]byte{0xab}, n) }

func rdata(u, s, m uint8, data []byte) []byte { return append([]byte{u, s, m}, data...) }

func TestParse(t *testing.T) {
	t.Parallel()
	got, err := Parse(rdata(3, 1, 1, sha(32)))
	require.NoError(t, err)
	assert.Equal(t, TLSA{Usage: 3, Selector: 1, MatchingType: 1, Data: sha(32)}, got)
	for _, bad := range [][]byte{nil, {3}, {3, 1, 1}} {
		_, err := Parse(bad)
		assert.ErrorIs(t, err, ErrSyntax, "%x", bad)
	}
}

func TestProblem(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		tlsa TLSA
		want Problem
	}{
		{"DANE-EE SPKI SHA-256", TLSA{3, 1, 1, sha(32)}, ProblemNone},
		{"DANE-TA Cert SHA-512", TLSA{2, 0, 2, sha(64)}, ProblemNone},
		{"DANE-EE full", TLSA{3, 1, 0, sha(91)}, ProblemNone},
		{"PKIX-TA", TLSA{0, 0, 1, sha(32)}, ProblemPKIX},
		{"PKIX-EE", TLSA{1, 1, 1, sha(32)}, ProblemPKIX},
		{"usage 4", TLSA{4, 1, 1, sha(32)}, ProblemParameters},
		{"selector 2", TLSA{3, 2, 1, sha(32)}, ProblemParameters},
		{"matching 3", TLSA{3, 1, 3, sha(32)}, ProblemParameters},
		{"SHA-256 of 31 octets", TLSA{3, 1, 1, sha(31)}, ProblemParameters},
		{"SHA-512 of 32 octets", TLSA{3, 1, 2, sha(32)}, ProblemParameters},
		{"PKIX with a short hash", TLSA{1, 1, 1, sha(20)}, ProblemParameters},
	} {
		assert.Equal(t, tc.want, tc.tlsa.Problem(), tc.name)
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "_25._tcp.mx.example", Name("mx.example"))
	assert.Equal(t, "DANE-EE SPKI SHA2-256", UsageName(3)+" "+SelectorName(1)+" "+MatchingName(1))
	assert.Equal(t, "PKIX-TA Cert Full", UsageName(0)+" "+SelectorName(0)+" "+MatchingName(0))
	assert.Equal(t, "9 9 9", UsageName(9)+" "+SelectorName(9)+" "+MatchingName(9))
}

const hash = "8cb0fc6c527506a053f4f14c8464bebbd6dede2738d11468dd953d7d6a3021f1"

// zone: signed.test is signed (DNSKEY at its apex), plain.test is not.
func zone(t *testing.T) *dnstest.Zones {
	return dnstest.MustParse(t, `
$ORIGIN signed.test.
@ SOA ns hostmaster 1 3600 600 86400 300
@ DNSKEY 257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==
_25._tcp.ee  TLSA 3 1 1 `+hash+`
_25._tcp.ta  TLSA 2 0 1 `+hash+`
_25._tcp.pkix TLSA 1 1 1 `+hash+`
_25._tcp.pkix TLSA 0 0 1 `+hash+`
_25._tcp.bad TLSA 3 1 1 8cb0fc
_25._tcp.mixed TLSA 3 1 1 `+hash+`
_25._tcp.mixed TLSA 3 1 2 `+hash+`
none A 127.0.0.1
$ORIGIN plain.test.
@ SOA ns hostmaster 1 3600 600 86400 300
_25._tcp.ee  TLSA 3 1 1 `+hash+`
none A 127.0.0.1
`)
}

func TestCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		hosts     []string
		validated bool
		bogus     string // a host whose TLSA answer is DNSSEC-bogus
		usable    bool
		counts    Counts
		findings  []Code
	}{
		{name: "usable", hosts: []string{"ee.signed.test", "ta.signed.test"}, validated: true, usable: true,
			counts: Counts{Published: 2, Validated: 2, Usable: 2}},
		{name: "usable with a broken record beside", hosts: []string{"mixed.signed.test"}, validated: true, usable: true,
			counts: Counts{Published: 1, Validated: 1, Usable: 1}, findings: []Code{CodeParameters}},
		{name: "PKIX only", hosts: []string{"pkix.signed.test"}, validated: true,
			counts: Counts{Published: 1, Validated: 1}, findings: []Code{CodePKIXOnly}},
		{name: "broken parameters", hosts: []string{"bad.signed.test"}, validated: true,
			counts: Counts{Published: 1, Validated: 1}, findings: []Code{CodeParameters}},
		{name: "unsigned zone", hosts: []string{"ee.plain.test"}, validated: true,
			counts: Counts{Published: 1}, findings: []Code{CodeUnsigned}},
		{name: "MX not validated", hosts: []string{"ee.signed.test"}, validated: false,
			counts: Counts{Published: 1, Validated: 1, Usable: 1}, findings: []Code{CodeMXUnsigned}},
		{name: "some hosts without TLSA", hosts: []string{"ee.signed.test", "none.signed.test"}, validated: true,
			counts: Counts{Published: 1, Validated: 1, Usable: 1, Absent: 1}, findings: []Code{CodePartial}},
		{name: "no TLSA anywhere", hosts: []string{"none.signed.test", "none.plain.test", "gone.plain.test"}, validated: true,
			counts: Counts{Absent: 3}},
		{name: "bogus", hosts: []string{"ee.signed.test", "ta.signed.test"}, validated: true, bogus: "_25._tcp.ta.signed.test",
			counts: Counts{Published: 1, Validated: 1, Usable: 1, Inconclusive: 1}, findings: []Code{CodeBogus}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := dnstest.NewResolver(zone(t))
			if tc.bogus != "" {
				r.SetFault(tc.bogus, resolver.TypeTLSA, dnstest.Fault{Bogus: true})
			}
			res := Check(context.Background(), r, tc.hosts, tc.validated)
			assert.Equal(t, tc.usable, res.Usable(), "usable")
			assert.Equal(t, tc.counts, res.Counts, "counts")
			assert.Equal(t, tc.findings, res.Findings, "findings")
			assert.Equal(t, len(tc.hosts), res.Hosts)
			assert.Equal(t, tc.counts.Published > 0, res.Published())
		})
	}
}

func TestCheckBounded(t *testing.T) {
	t.Parallel()
	r := dnstest.NewResolver(zone(t))
	hosts := make([]string, MaxHosts+5)
	for i := range hosts {
		hosts[i] = strings.Repeat("x", i+1) + ".plain.test"
	}
	res := Check(context.Background(), r, hosts, true)
	assert.Equal(t, MaxHosts, res.Hosts)
	assert.Len(t, r.Queries(), MaxHosts, "lookups")
}

// TestCheckOverTheWire: the TLSA records and the AD bit survive the real
// server and Client.
func TestCheckOverTheWire(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, zone(t))
	res := Check(context.Background(), srv.Client(0), []string{"ee.signed.test", "pkix.signed.test", "ee.plain.test"}, true)
	assert.Equal(t, Counts{Published: 3, Validated: 2, Usable: 1}, res.Counts)
	assert.Equal(t, []Code{CodeUnsigned, CodePKIXOnly}, res.Findings)
}

// panicky is a Resolver that panics.
type panicky struct{}

func (panicky) Lookup(context.Context, string, resolver.Type) resolver.Answer { panic("boom") }

// TestCheckPanicReachesCaller: a panic in a lookup goroutine is raised
// again in the caller's goroutine, where the scanner recovers it.
func TestCheckPanicReachesCaller(t *testing.T) {
	t.Parallel()
	assert.PanicsWithValue(t, "boom", func() { Check(context.Background(), panicky{}, []string{"a.test", "b.test"}, true) })
}
