package mailauth

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/report/reporttest"
	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver"
)

// corpusDir holds the provider corpus (its README lists the guides each
// zone imitates).
const corpusDir = "testdata/providers"

// TestProviderCorpus scans every domain of the provider corpus through
// the library, over the loopback lab's DNS and HTTPS servers, and fails
// on any difference from the verdicts written from the RFCs
// (testdata/providers/expected.json; httpapi's TestProviderCorpusOverHTTP
// does the same through the service).
func TestProviderCorpus(t *testing.T) {
	t.Parallel()
	c := testlab.LoadCorpus(t, corpusDir)
	lab := testlab.StartCorpus(t, c)
	s := knowsResolver(t, labScanner(lab, lab.DNS.PatientClient()))
	for _, d := range c.Domains {
		t.Run(d.Domain, func(t *testing.T) {
			req := ScanRequest{Domain: d.Domain, DKIMSelector: d.Selector}
			got, err := s.Scan(context.Background(), req)
			require.NoError(t, err, "Scan")
			body := marshal(t, got)
			reporttest.Validate(t, "ScanSummary", body)
			checkInvariants(t, got)
			noZoneData(t, body, c.Zone, c.Policies, req)
			want, grade, score := d.Want()
			statuses := map[string]string{}
			for _, ch := range got.Checks {
				statuses[string(ch.ID)] = string(ch.Status)
			}
			compared, unnamed := d.Compared(statuses)
			assert.Equal(t, want, compared, "%s (%s): statuses", d.Domain, d.Provider)
			if len(unnamed) > 0 {
				t.Logf("%s: no expectation for the checks %v (added since expected.json was written)", d.Domain, unnamed)
			}
			assert.Equal(t, grade, string(got.Grade), "%s: grade", d.Domain)
			assert.Equal(t, score, got.Score, "%s: score", d.Domain)
			for _, ch := range got.Checks {
				assert.Equal(t, Determined, ch.Determination, "%s: %s undetermined: %s", d.Domain, ch.ID, ch.Summary.EN)
			}
		})
	}
}

// knowsResolver has s learn what its lab resolver does (a
// dnstest.PatientClient: it validates, and recurses) before the test
// scans: a scan waits for the first probe only a quarter of its time, and
// would otherwise, on a loaded machine, go on without knowing that the
// resolver validates (no DNSSEC facts, other texts).
func knowsResolver(t *testing.T, s *Scanner) *Scanner {
	t.Helper()
	_, known := s.ResolverProperties(t.Context())
	require.True(t, known, "the lab resolver answers its probe")
	return s
}

// TestProviderCorpusDANE: the DANE-inbound Microsoft 365 domain's MX
// details state DANE and its MTA-STS verdict names it; a domain without
// TLSA records says nothing about DANE.
func TestProviderCorpusDANE(t *testing.T) {
	t.Parallel()
	c := testlab.LoadCorpus(t, corpusDir)
	lab := testlab.StartCorpus(t, c)
	s := knowsResolver(t, labScanner(lab, lab.DNS.PatientClient()))
	byID := func(sum ScanSummary) map[CheckID]CheckSummary {
		out := map[CheckID]CheckSummary{}
		for _, ch := range sum.Checks {
			out[ch.ID] = ch
		}
		return out
	}
	got, err := s.Scan(context.Background(), ScanRequest{Domain: "fabrikam.example.com"})
	require.NoError(t, err)
	assert.Equal(t, 1, lab.DNS.Count("fabrikam.example.com", resolver.TypeMX), "the MX question asked once on the wire")
	assert.Equal(t, 1, lab.DNS.Count("_25._tcp.fabrikam-example-com.o-v1.mx.microsoft", resolver.TypeTLSA), "the TLSA question")
	checks := byID(got)
	assert.Equal(t, stsDANEOnly.say.format(), checks[CheckMTASTS].Summary, "MTA-STS summary")
	assert.Contains(t, checks[CheckMX].Details.EN, mxFactDANE.format(1, 1).EN, "MX details")
	assert.Contains(t, checks[CheckMX].Details.EN, txtDNSSECValidated.format().EN, "MX details")

	got, err = s.Scan(context.Background(), ScanRequest{Domain: "contoso.example.com"})
	require.NoError(t, err)
	for _, ch := range got.Checks {
		assert.NotContains(t, ch.Summary.EN+ch.Details.EN, "DANE", "%s", ch.ID)
		assert.NotContains(t, ch.Summary.EN+ch.Details.EN, "TLSA", "%s", ch.ID)
	}
	assert.Equal(t, stsMissing.say.format(), byID(got)[CheckMTASTS].Summary)
	assert.False(t, strings.Contains(byID(got)[CheckMX].Details.EN, "DNSSEC"), "unsigned domain: no DNSSEC fact")
}
