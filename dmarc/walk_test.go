package dmarc

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

func TestTargets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		domain string
		want   []string
	}{
		{"tld", "com", []string{"com"}},
		{"two-labels", "example.com", []string{"example.com", "com"}},
		{"four-labels", "a.mail.example.com", []string{"a.mail.example.com", "mail.example.com", "example.com", "com"}},
		{"case-and-dot", "Mail.Example.COM.", []string{"mail.example.com", "example.com", "com"}},
		{"seven-labels", "a.b.c.d.e.example.com", []string{
			"a.b.c.d.e.example.com", "b.c.d.e.example.com", "c.d.e.example.com", "d.e.example.com",
			"e.example.com", "example.com", "com",
		}},
		{"eight-labels", "a.b.c.d.e.f.example.com", []string{
			"a.b.c.d.e.f.example.com", "b.c.d.e.f.example.com", "c.d.e.f.example.com", "d.e.f.example.com",
			"e.f.example.com", "f.example.com", "example.com", "com",
		}},
		// RFC 9989 §4.10, the example of the text.
		{"rfc-example", "a.b.c.d.e.f.g.h.i.j.mail.example.com", []string{
			"a.b.c.d.e.f.g.h.i.j.mail.example.com", "g.h.i.j.mail.example.com", "h.i.j.mail.example.com",
			"i.j.mail.example.com", "j.mail.example.com", "mail.example.com", "example.com", "com",
		}},
		// RFC 9989 §5.1.8: the zone cut b.c.d.e.f.g.example.com is never queried.
		{"rfc-5.1.8", "mail.a.b.c.d.e.f.g.example.com", []string{
			"mail.a.b.c.d.e.f.g.example.com", "c.d.e.f.g.example.com", "d.e.f.g.example.com",
			"e.f.g.example.com", "f.g.example.com", "g.example.com", "example.com", "com",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Targets(tc.domain)
			assert.Equal(t, tc.want, got, "Targets(%q)", tc.domain)
			assert.LessOrEqual(t, len(got), MaxTreeWalk, "Targets(%q) has %d names, more than %d", tc.domain, len(got), MaxTreeWalk)
		})
	}
}

// txtQueries returns the TXT names r was asked for, in order.
func txtQueries(r *dnstest.Resolver, suffix string) []string {
	var out []string
	for _, q := range r.Queries() {
		if q.Type == resolver.TypeTXT && strings.HasSuffix(q.Name, suffix) {
			out = append(out, q.Name)
		}
	}
	return out
}

func TestCheckQueries(t *testing.T) {
	t.Parallel()
	z := zones(t)
	tests := []struct {
		name   string
		domain string
		suffix string // which TXT queries to compare
		want   []string
	}{
		{"deep", "b.c.d.e.f.g.h.deep.dmarc.test", ".test", []string{
			"_dmarc.b.c.d.e.f.g.h.deep.dmarc.test", "_dmarc.e.f.g.h.deep.dmarc.test",
			"_dmarc.f.g.h.deep.dmarc.test", "_dmarc.g.h.deep.dmarc.test", "_dmarc.h.deep.dmarc.test",
			"_dmarc.deep.dmarc.test", "_dmarc.dmarc.test", "_dmarc.test",
			"b.c.d.e.f.g.h.deep.dmarc.test", // the apex lookup, concurrent with the walk
		}},
		{"psd-n", "a.b.psd-n.dmarc.test", "psd-n.dmarc.test", []string{
			"_dmarc.a.b.psd-n.dmarc.test", "_dmarc.b.psd-n.dmarc.test", "a.b.psd-n.dmarc.test",
		}},
		{"direct-stops", "pass.dmarc.test", "pass.dmarc.test", []string{
			"_dmarc.pass.dmarc.test", "pass.dmarc.test",
		}},
		{"rua-internal", "rua-internal.dmarc.test", "._report._dmarc.reports.dmarc.test", nil},
		{"rua-external", "rua-external.dmarc.test", ".invalid", []string{
			"rua-external.dmarc.test._report._dmarc.thirdparty.invalid",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := dnstest.NewResolver(z)
			Check(context.Background(), r, tc.domain)
			got := txtQueries(r, tc.suffix)
			// The apex lookup is concurrent: compare as sets, and the walk
			// (the _dmarc names) in order.
			assert.ElementsMatch(t, tc.want, got, "TXT queries = %q, want %q", got, tc.want)
			assert.Equal(t, only(tc.want, "_dmarc."), only(got, "_dmarc."), "TXT queries = %q, want %q", got, tc.want)
		})
	}
}

func TestCheckExternalBound(t *testing.T) {
	t.Parallel()
	r := dnstest.NewResolver(zones(t))
	Check(context.Background(), r, "rua-many.dmarc.test")
	got := txtQueries(r, ".invalid")
	require.Len(t, got, MaxExternalDestinations, "external lookups")
	for _, want := range []string{"one", "two", "three", "four"} {
		name := "rua-many.dmarc.test._report._dmarc." + want + ".invalid"
		assert.Equal(t, 1, r.Count(name, resolver.TypeTXT), "%s asked, want once", name)
	}
}

// The existence question is the mx check's: through a shared Scan it
// reaches the DNS once.
func TestCheckSharesMXLookup(t *testing.T) {
	t.Parallel()
	mem := dnstest.NewResolver(zones(t))
	scan := resolver.NewScan(mem, 0)
	ctx := context.Background()
	res := Check(ctx, scan, "mail.inherit-sp.dmarc.test")
	mx := scan.Lookup(ctx, "MAIL.inherit-sp.dmarc.test.", resolver.TypeMX)
	assert.Equal(t, 1, mem.Count("mail.inherit-sp.dmarc.test", resolver.TypeMX), "MX asked, want once")
	assert.Equal(t, Exists, res.DomainExistence, "existence %q, mx outcome %q", res.DomainExistence, mx.Outcome)
	assert.Equal(t, resolver.NoData, mx.Outcome, "existence %q, mx outcome %q", res.DomainExistence, mx.Outcome)
	assert.Equal(t, 6, scan.Queries(), "scan sent questions") // 4 walk targets + MX + apex TXT
}

// Odd names never panic and always report 1..8 queries.
func TestCheckOddNames(t *testing.T) {
	t.Parallel()
	r := dnstest.NewResolver(zones(t))
	long := strings.Repeat("a.", 130) + "test"
	for _, d := range []string{"", ".", "a..b", long, strings.Repeat("x", 70) + ".test", "_dmarc.pass.dmarc.test"} {
		res := Check(context.Background(), r, d)
		assert.GreaterOrEqual(t, res.TreeWalkQueries, 1, "Check(%q).TreeWalkQueries", d)
		assert.LessOrEqual(t, res.TreeWalkQueries, MaxTreeWalk, "Check(%q).TreeWalkQueries", d)
	}
	res := Check(context.Background(), r, long)
	assert.Equal(t, DiscoveryInconclusive, res.Discovery, "Check(long name) = %+v, want inconclusive invalid_name", res)
	assert.Equal(t, resolver.ReasonInvalidName, res.Reason, "Check(long name) = %+v, want inconclusive invalid_name", res)
}

// TestCheckOwnNameTooLong: a valid domain of 247 to 253 octets cannot
// have a "_dmarc." name of its own (it would exceed 253 octets). That
// name holds no record, is not asked, and the walk goes on with the
// shorter names, whose record applies.
func TestCheckOwnNameTooLong(t *testing.T) {
	t.Parallel()
	for n := 240; n <= MaxNameLen; n++ {
		domain := longName(n, "pass.dmarc.test")
		require.Len(t, domain, n)
		r := dnstest.NewResolver(zones(t))
		res := Check(context.Background(), r, domain)
		own := n+len("_dmarc.") > MaxNameLen
		for _, q := range r.Queries() {
			assert.LessOrEqual(t, len(q.Name), MaxNameLen, "%d octets: asked %s", n, q.Name)
		}
		assert.Equal(t, DiscoveryFound, res.Discovery, "%d octets: %+v", n, res)
		assert.Equal(t, "pass.dmarc.test", res.PolicyDomain, "%d octets: %+v", n, res)
		assert.Equal(t, own, slices.Contains(res.Findings, CodeNameTooLong), "%d octets: findings %v", n, res.Findings)
		if own {
			assert.Equal(t, resolver.NXDomain, res.Outcome, "%d octets: the own name cannot exist", n)
		}
	}
}

// longName returns a name of exactly n octets ending in suffix, made of
// labels of at most 63 octets.
func longName(n int, suffix string) string {
	rest := n - len(suffix) - 1
	var labels []string
	for rest > 0 {
		l := min(63, rest)
		if rest-l == 1 { // a label needs at least one octet after its dot
			l--
		}
		if l == rest {
			labels = append(labels, strings.Repeat("x", l))
			break
		}
		labels = append(labels, strings.Repeat("x", l))
		rest -= l + 1
	}
	return strings.Join(append(labels, suffix), ".")
}

// A canceled context yields an inconclusive result, never "absent".
func TestCheckCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := Check(ctx, dnstest.NewResolver(zones(t)), "pass.dmarc.test")
	want := Result{
		Domain: "pass.dmarc.test", Outcome: resolver.Inconclusive, Reason: resolver.ReasonCanceled,
		Discovery: DiscoveryInconclusive, TreeWalkQueries: 1, DomainExistence: ExistenceUnknown,
	}
	assert.Equal(t, want, res, "Check(canceled)")
}

func only(list []string, prefix string) []string {
	var out []string
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			out = append(out, s)
		}
	}
	return out
}
