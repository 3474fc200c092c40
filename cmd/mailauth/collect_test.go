package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/caa"
	"github.com/mailauth/mailauth/dane"
	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/mx"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
	"github.com/mailauth/mailauth/spf"
)

// TestCollectRecords: collectRecords returns the raw records of a domain,
// and the include tree's costs are the SPF check's at every level.
func TestCollectRecords(t *testing.T) {
	mem := dnstest.NewResolver(dnstest.MustLoad(t, recordsZoneFile))
	got, err := collectRecords(context.Background(), mailauth.Config{Resolver: mem}, mailauth.ScanRequest{Domain: "https://www.tree.example.org/", DKIMSelector: "k1", SendingIP: "8.8.4.4"})
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
	assert.Equal(t, []mxRecord{{10, "mx1.tree.example.org"}, {20, "mx2.tree.example.org"}}, got.MX)
	assert.Equal(t, []tlsaRecord{
		{Host: "mx1.tree.example.org", Usage: 3, Selector: 1, MatchingType: 1, DataLength: 32},
		{Host: "mx1.tree.example.org", Usage: 2, Selector: 0, MatchingType: 2, DataLength: 64},
	}, got.TLSA, "the TLSA records of the MX hosts, in an unsigned zone")
	assert.False(t, got.Inconclusive.TLSA)
	assert.Equal(t, []string{"mx1.tree.example.org"}, got.PTR)
	assert.Equal(t, "example.org", got.CAAAt)
	assert.Equal(t, []caaRecord{{0, "issue", "letsencrypt.org"}, {0, "iodef", "mailto:caa@example.org"}}, got.CAA)
}

// TestCollectRecordsRejectsInput: collectRecords validates its request
// like a scan, by ScanRequest.Validate (the same error, in the same order
// of fields).
func TestCollectRecordsRejectsInput(t *testing.T) {
	cfg := mailauth.Config{Resolver: dnstest.NewResolver(dnstest.MustLoad(t, recordsZoneFile))}
	for _, req := range []mailauth.ScanRequest{{Domain: "localhost"}, {Domain: "tree.example.org", DKIMSelector: "-x"}, {Domain: "tree.example.org", SendingIP: "10.0.0.1"},
		{Domain: "tree.example.org", DKIMSelector: "-x", SendingIP: "10.0.0.1"}} {
		_, err := collectRecords(context.Background(), cfg, req)
		var ie *mailauth.InputError
		assert.ErrorAs(t, err, &ie, req)
		_, want := req.Validate()
		assert.Equal(t, want, err, req)
	}
}

// TestElideDKIMKey: the key is never shown; a revoked key stays empty.
func TestElideDKIMKey(t *testing.T) {
	assert.Equal(t, "v=DKIM1; p=(4 characters elided); t=y", elideDKIMKey("v=DKIM1; p=AB CD; t=y"))
	assert.Equal(t, "v=DKIM1; p=", elideDKIMKey("v=DKIM1; p="))
	assert.Equal(t, "k=ed25519;p=(8 characters elided)", elideDKIMKey("k=ed25519;p=abcdefgh"))
	assert.False(t, strings.Contains(elideDKIMKey("p=secret"), "secret"))
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
		out := elideDKIMKey(prefix + "; p=" + key)
		require.NotContains(t, out, key, "elideDKIMKey kept the key: %q", out)
	})
}

// agreeZone adds near misses and duplicates to the lab: records a loose
// reading would show but the checks ignore, and names with two records.
const agreeZone = `$ORIGIN example.net.
@                 SOA ns.example.net. hostmaster.example.net. 1 3600 600 86400 300
near              MX 10 mx.near
mx.near           A 127.0.0.1
near              TXT "v=spf1 -all"
near              TXT "v=spf1x ip4:192.0.2.1 -all"
near              TXT "spf1 -all"
_dmarc.near       TXT "v=DMARC1; p=reject"
_dmarc.near       TXT "v=DMARC1x; p=none"
_mta-sts.near     TXT "v=STSv1; id=1"
_mta-sts.near     TXT "v=STSv1x; id=2"
mta-sts.near      A 127.0.0.1
_smtp._tls.near   TXT "v=TLSRPTv1; rua=mailto:tls@example.net"
_smtp._tls.near   TXT "v=TLSRPTv1x; rua=mailto:x@example.net"
_smtp._tls.near   TXT "v=TLSRPT1; rua=mailto:y@example.net"
s2._domainkey.near TXT "v=DKIM1; k=ed25519; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="
s2._domainkey.near TXT "not a key"
two               MX 10 mx.near
two               MX 10 MX.NEAR.example.net.
two               TXT "v=spf1 -all"
two               TXT "v=spf1 ~all"
_dmarc.two        TXT "v=DMARC1; p=reject"
_dmarc.two        TXT "v=DMARC1; p=none"
_mta-sts.two      TXT "v=STSv1; id=1"
_mta-sts.two      TXT "v=STSv1; id=2"
_smtp._tls.two    TXT "v=TLSRPTv1; rua=mailto:a@example.net"
_smtp._tls.two    TXT "v=TLSRPTv1; rua=mailto:b@example.net"
two               CAA 0 issue "letsencrypt.org"
two               CAA 0 issuewild ";"
`

// TestRecordsAgreeWithChecks: scan -records and the checks agree on every
// record of the loopback lab. Each domain is scanned, and its records
// collected, through the same resolver; every section of the records
// holds exactly what its check counted (SPF, DMARC, MTA-STS with its
// policy, TLS-RPT, DKIM, PTR from the scan's diagnostics; MX, TLSA and
// CAA, which have none, from the protocol packages' own Check). The
// near misses (v=TLSRPTv1x and the like) are in neither.
func TestRecordsAgreeWithChecks(t *testing.T) {
	t.Parallel()
	extra := filepath.Join(t.TempDir(), "agree.zone")
	require.NoError(t, os.WriteFile(extra, []byte(agreeZone), 0o600))
	policy := "version: STSv1\nmode: enforce\nmx: *.example.com\nmx: mx1.tree.example.org\nmax_age: 86400\n"
	lab := testlab.Start(t, []string{scanZoneFile, recordsZoneFile, extra}, map[string]string{
		"mta-sts.good.example.com": policy, "mta-sts.tree.example.org": policy,
		"mta-sts.near.example.net": "version: STSv1\nmode: testing\nmx: mx.near.example.net\nmax_age: 600\n",
	})
	dns := lab.DNS.PatientClient()
	cfg := mailauth.Config{Resolver: dns, HTTPSPort: lab.HTTPSPort, RootCAs: lab.RootCAs, AllowLoopbackTargets: true,
		FetchTimeout: dnstest.PatientTimeout, ScanTimeout: time.Minute} // hang guards, not measurements
	for _, req := range []mailauth.ScanRequest{
		{Domain: "good.example.com", DKIMSelector: "s1", SendingIP: "8.8.8.8"},
		{Domain: "bare.example.com"}, {Domain: "weak.example.com"}, {Domain: "parked.example.com"},
		{Domain: "flaky.example.com"}, {Domain: "open.example.com"}, {Domain: "opennet.example.com"},
		{Domain: "tree.example.org", DKIMSelector: "k1", SendingIP: "8.8.4.4"}, {Domain: "redir.example.org"},
		{Domain: "near.example.net", DKIMSelector: "s2"}, {Domain: "two.example.net", DKIMSelector: "none"},
	} {
		sum, err := mailauth.New(cfg).Scan(t.Context(), req)
		require.NoError(t, err, req.Domain)
		recs, err := collectRecords(t.Context(), cfg, req)
		require.NoError(t, err, req.Domain)
		checkRecordsAgree(t, req, sum, recs, dns)
	}
}

// checkRecordsAgree compares one domain's records with its scan.
func checkRecordsAgree(t *testing.T, req mailauth.ScanRequest, sum mailauth.ScanSummary, r rawRecords, dns resolver.Resolver) {
	t.Helper()
	d := req.Domain
	diag := map[mailauth.CheckID]mailauth.Diagnostics{}
	for _, c := range sum.Checks {
		require.NotEqual(t, "Could not be determined: a DNS lookup gave no conclusive answer.", c.Summary.EN, "%s %s: the lab answers everything", d, c.ID)
		diag[c.ID] = c.Diagnostics
	}
	s := diag[mailauth.CheckSPF].(*mailauth.SPFDiagnostics)
	assert.Len(t, r.SPF, s.SPFRecordCount, "%s: SPF records", d)
	assert.Equal(t, s.DNSLookupCount, r.SPFLookups, "%s: SPF lookups", d)

	dm := diag[mailauth.CheckDMARC].(*mailauth.DMARCDiagnostics)
	found := dm.PolicyFound != nil && *dm.PolicyFound
	assert.Equal(t, found, r.DMARCAt != "", "%s: a DMARC policy found", d)
	if found {
		assert.Equal(t, "_dmarc."+*dm.PolicyDomain, r.DMARCAt, "%s: where DMARC was found", d)
		if !*dm.Inherited {
			assert.Len(t, r.DMARC, *dm.DirectRecordCount, "%s: DMARC records", d)
		} else {
			assert.Len(t, r.DMARC, 1, "%s: the inherited DMARC record", d)
		}
	}

	sts := diag[mailauth.CheckMTASTS].(*mailauth.MTASTSDiagnostics)
	assert.Len(t, r.MTASTS, *sts.AnnouncementRecordCount, "%s: MTA-STS records", d)
	assert.Equal(t, sts.PolicyFetchState == mailauth.FetchFetched, r.MTASTSPolicy != nil, "%s: MTA-STS policy fetched", d)
	if r.MTASTSPolicy != nil && sts.MXPatternCount != nil {
		assert.Len(t, r.MTASTSPolicy.MX, *sts.MXPatternCount, "%s: MTA-STS mx patterns", d)
		assert.Equal(t, string(*sts.PolicyMode), string(r.MTASTSPolicy.Mode), "%s: MTA-STS mode", d)
	}

	rpt := diag[mailauth.CheckTLSRPT].(*mailauth.TLSRPTDiagnostics)
	assert.Len(t, r.TLSRPT, *rpt.RecordCount, "%s: TLS-RPT records", d)
	for _, v := range r.TLSRPT {
		assert.True(t, strings.HasPrefix(v, "v=TLSRPTv1;") || v == "v=TLSRPTv1", "%s: %q is no TLS-RPT record", d, v)
	}

	if req.DKIMSelector != "" {
		k := diag[mailauth.CheckDKIM].(*mailauth.DKIMDiagnostics)
		assert.Len(t, r.DKIM, *k.RecordCount, "%s: DKIM records", d)
	}
	if req.SendingIP != "" {
		p := diag[mailauth.CheckPTR].(*mailauth.PTRDiagnostics)
		assert.Len(t, r.PTR, *p.PTRRecordCount, "%s: PTR names", d)
	}

	ctx := t.Context()
	m := mx.Check(ctx, dns, d)
	assert.Len(t, r.MX, m.RecordCount, "%s: MX records", d)
	var hosts []string
	for _, rec := range r.MX {
		if h := strings.ToLower(strings.TrimSuffix(rec.Host, ".")); rec.Host != "" && !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	if m.Kind == mx.KindExplicit {
		assert.ElementsMatch(t, m.Exchanges, hosts, "%s: the mail servers", d)
	}
	if len(hosts) > 0 {
		dn := dane.Check(ctx, dns, hosts, false)
		with := map[string]bool{}
		for _, tl := range r.TLSA {
			with[tl.Host] = true
		}
		assert.Equal(t, dn.Counts.Published, len(with), "%s: mail servers with TLSA records", d)
	}

	c := caa.Check(ctx, dns, d).Domain
	assert.Len(t, r.CAA, c.PropertyCount, "%s: the relevant CAA set", d)
	assert.Equal(t, c.Inherited, r.CAAAt != "" && r.CAAAt != d, "%s: where the CAA set is", d)
}
