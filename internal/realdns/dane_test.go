package realdns_test

import (
	"context"
	"crypto/x509"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/dane"
	"github.com/mailauth/mailauth/internal/realdns"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestDANEValidated: TLSA records in zones signed with ldns-signzone, read
// through a validating Unbound over Knot, are DNSSEC-validated (the AD
// bit of the TLSA and MX answers), and the scanner weighs them: the
// DANE-only domain's MTA-STS check passes on DANE, the domain with both
// says both, and the MX details state DANE.
func TestDANEValidated(t *testing.T) {
	w := realdns.Start(t)
	// Asked again every second until the context ends, a late reply to
	// any attempt taken: Unbound drops what it has not answered within
	// its discard-timeout, and a loaded machine answers late; the
	// context is a bound on a hang.
	dns := dnstest.PatientClient{Client: &resolver.Client{Servers: []string{w.Resolver(t)}, Timeout: time.Second}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	for _, d := range []string{realdns.Signed, realdns.DANEOnly} {
		a := dns.Lookup(ctx, dane.Name("mx1."+d), resolver.TypeTLSA)
		require.Equal(t, resolver.Found, a.Outcome, "%s: TLSA %s", d, a.Reason)
		assert.True(t, a.Authentic, "%s: the TLSA answer is validated (AD)", d)
		res := dane.Check(ctx, dns, []string{"mx1." + d}, true)
		assert.True(t, res.Usable(), "%s: %+v", d, res)
	}

	s := mailauth.New(mailauth.Config{Resolver: dns, HTTPSPort: w.HTTPSPort, RootCAs: caPool(t, w.CAFile),
		AllowLoopbackTargets: true, ScanTimeout: 2 * time.Minute}) // a hang bound, not a measure
	// The resolver's properties (validating) learnt before the first
	// scan, which waits for its probe only a part of its time.
	props, known := s.ResolverProperties(ctx)
	require.True(t, known, "the resolver's properties")
	require.True(t, props.Validating, "the resolver validates")
	checks := func(domain string) map[mailauth.CheckID]mailauth.CheckSummary {
		sum, err := s.Scan(ctx, mailauth.ScanRequest{Domain: domain})
		require.NoError(t, err, domain)
		out := map[mailauth.CheckID]mailauth.CheckSummary{}
		for _, c := range sum.Checks {
			out[c.ID] = c
		}
		return out
	}
	only := checks(realdns.DANEOnly)
	assert.Equal(t, mailauth.StatusPass, only[mailauth.CheckMTASTS].Status, "DANE-only: %s", only[mailauth.CheckMTASTS].Summary.EN)
	assert.True(t, strings.HasPrefix(only[mailauth.CheckMTASTS].Summary.EN, "MTA-STS is not published, but every mail server has usable DANE"),
		"DANE-only: %s", only[mailauth.CheckMTASTS].Summary.EN)
	assert.Contains(t, only[mailauth.CheckMX].Details.EN, "DANE: 1 of 1 mail servers publish DNSSEC-validated TLSA records")

	both := checks(realdns.Signed)
	assert.Equal(t, mailauth.StatusPass, both[mailauth.CheckMTASTS].Status, "both: %s", both[mailauth.CheckMTASTS].Summary.EN)
	assert.Equal(t, "MTA-STS is in enforce mode with a valid policy.", both[mailauth.CheckMTASTS].Summary.EN)
	assert.Contains(t, both[mailauth.CheckMTASTS].Details.EN, "DANE is usable too")
	assert.Contains(t, both[mailauth.CheckMX].Details.EN, "DANE: 1 of 1")

	// A domain in an unsigned zone has no TLSA: nothing about DANE.
	slow := checks(realdns.Slow1)
	assert.NotContains(t, slow[mailauth.CheckMX].Details.EN+slow[mailauth.CheckMTASTS].Details.EN, "DANE")
}

// caPool is a pool trusting the world's test CA (the MTA-STS policy
// server's).
func caPool(t *testing.T, file string) *x509.CertPool {
	t.Helper()
	pem, err := os.ReadFile(file)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(pem), "CA file")
	return pool
}
