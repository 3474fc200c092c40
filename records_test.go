package mailauth

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver/dnstest"
	"github.com/mailauth/mailauth/spf"
)

const recordsZone = "testdata/zones/records.zone"

// TestRecords: Scanner.Records returns the raw records of a domain, and
// the include tree's costs are the SPF check's at every level.
func TestRecords(t *testing.T) {
	mem := dnstest.NewResolver(dnstest.MustLoad(t, recordsZone))
	s := New(Config{Resolver: mem})
	got, err := s.Records(context.Background(), ScanRequest{Domain: "https://www.tree.example.org/", DKIMSelector: "k1", SendingIP: "8.8.4.4"})
	require.NoError(t, err)

	assert.Equal(t, "tree.example.org", got.Domain)
	assert.Equal(t, []string{"v=spf1 ip4:127.0.0.1 include:a.spf.tree.example.org include:b.spf.tree.example.org mx -all"}, got.SPF)

	res := spf.Check(context.Background(), mem, "tree.example.org")
	require.Len(t, got.SPFIncludes, len(res.Includes))
	require.Len(t, got.SPFIncludes, 2)
	assert.Equal(t, res.LookupCount, got.SPFLookups)
	for i, inc := range res.Includes {
		assert.Equal(t, inc.Lookups, got.SPFIncludes[i].Lookups, "include %d", i+1)
	}
	a := got.SPFIncludes[0]
	assert.Equal(t, "a.spf.tree.example.org", a.Target)
	assert.Equal(t, 6, a.Lookups, "include a itself, include c with its a and mx, include d, and a")
	sub := spf.Check(context.Background(), mem, "a.spf.tree.example.org")
	require.Len(t, a.Includes, len(sub.Includes))
	for i, inc := range sub.Includes {
		assert.Equal(t, inc.Lookups, a.Includes[i].Lookups)
	}
	assert.Equal(t, []string{"c.spf.tree.example.org", "d.spf.tree.example.org"}, []string{a.Includes[0].Target, a.Includes[1].Target})
	assert.Equal(t, 3, a.Includes[0].Lookups)
	assert.Equal(t, 1, got.SPFIncludes[1].Lookups)

	assert.Equal(t, "_dmarc.example.org", got.DMARCAt)
	assert.Equal(t, []string{"v=DMARC1; p=quarantine; rua=mailto:d@example.org"}, got.DMARC)
	assert.Equal(t, []string{"v=STSv1; id=20261125"}, got.MTASTS)
	assert.Nil(t, got.MTASTSPolicy, "no policy server in this test")
	assert.Equal(t, []string{"v=TLSRPTv1; rua=mailto:tls@example.org"}, got.TLSRPT)
	assert.Equal(t, "k1._domainkey.tree.example.org", got.DKIMAt)
	require.Len(t, got.DKIM, 1)
	assert.Equal(t, "v=DKIM1; k=rsa; p=(392 characters elided)", got.DKIM[0])
	assert.NotContains(t, got.DKIM[0], "MIIB")
	assert.Equal(t, []MXRecord{{10, "mx1.tree.example.org"}, {20, "mx2.tree.example.org"}}, got.MX)
	assert.Equal(t, []TLSARecord{
		{Host: "mx1.tree.example.org", Usage: 3, Selector: 1, MatchingType: 1, DataLength: 32},
		{Host: "mx1.tree.example.org", Usage: 2, Selector: 0, MatchingType: 2, DataLength: 64},
	}, got.TLSA, "the TLSA records of the MX hosts, in an unsigned zone")
	assert.False(t, got.Inconclusive.TLSA)
	assert.Equal(t, []string{"mx1.tree.example.org"}, got.PTR)
	assert.Equal(t, "example.org", got.CAAAt)
	assert.Equal(t, []CAARecord{{0, "issue", "letsencrypt.org"}, {0, "iodef", "mailto:caa@example.org"}}, got.CAA)
}

// TestRecordsRejectsInput: Records validates its request like Scan, by
// ScanRequest.Validate (the same error, in the same order of fields).
func TestRecordsRejectsInput(t *testing.T) {
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustLoad(t, recordsZone))})
	for _, req := range []ScanRequest{{Domain: "localhost"}, {Domain: "tree.example.org", DKIMSelector: "-x"}, {Domain: "tree.example.org", SendingIP: "10.0.0.1"},
		{Domain: "tree.example.org", DKIMSelector: "-x", SendingIP: "10.0.0.1"}} {
		_, err := s.Records(context.Background(), req)
		var ie *InputError
		assert.ErrorAs(t, err, &ie, req)
		_, want := req.Validate()
		assert.Equal(t, want, err, req)
	}
}

// TestElideDKIMKey: the key is never shown; a revoked key stays empty.
func TestElideDKIMKey(t *testing.T) {
	assert.Equal(t, "v=DKIM1; p=(4 characters elided); t=y", ElideDKIMKey("v=DKIM1; p=AB CD; t=y"))
	assert.Equal(t, "v=DKIM1; p=", ElideDKIMKey("v=DKIM1; p="))
	assert.Equal(t, "k=ed25519;p=(8 characters elided)", ElideDKIMKey("k=ed25519;p=abcdefgh"))
	assert.False(t, strings.Contains(ElideDKIMKey("p=secret"), "secret"))
}

// FuzzElideDKIMKey: whatever the record, the value of its p= tag never
// survives elision.
func FuzzElideDKIMKey(f *testing.F) {
	f.Add("v=DKIM1; k=rsa", "MIIBIjANBgkq")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, prefix, key string) {
		key = strings.Map(func(r rune) rune {
			if r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '/' {
				return r
			}
			return -1
		}, key)
		if len(key) < 12 || strings.Contains(prefix, key) || strings.ContainsAny(prefix, "=") {
			return
		}
		out := ElideDKIMKey(prefix + "; p=" + key)
		require.NotContains(t, out, key, "ElideDKIMKey kept the key: %q", out)
	})
}
