package httpapi

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/testlab"
)

// newCorpusServer is NewTestServer over the real scanner resolving the
// provider corpus (testdata/providers of the root package).
func newCorpusServer(t *testing.T) (*TestServer, testlab.Corpus) {
	t.Helper()
	c := testlab.LoadCorpus(t, "../testdata/providers")
	lab := testlab.StartCorpus(t, c)
	scanner := mailauth.New(mailauth.Config{
		// Time-outs that bound a hang, not speed: an answer or a policy
		// a loaded machine delivers late is still the answer.
		Resolver:             lab.DNS.PatientClient(),
		HTTPSPort:            lab.HTTPSPort,
		RootCAs:              lab.RootCAs,
		AllowLoopbackTargets: true,
		FetchTimeout:         30 * time.Second,
		ScanTimeout:          time.Minute,
	})
	// Learnt before the first scan, which would wait for the probe only a
	// quarter of its time (dnstest.Server.PatientClient).
	_, known := scanner.ResolverProperties(t.Context())
	require.True(t, known, "the lab resolver answers its probe")
	return NewTestServer(t, scanner, Options{}), c
}

// TestProviderCorpusOverHTTP scans every domain of the provider corpus
// through the service and fails on any difference from the verdicts
// written from the RFCs (the root package's TestProviderCorpus does the
// same through the library). ts.Do validates each response against
// openapi.json.
func TestProviderCorpusOverHTTP(t *testing.T) {
	t.Parallel()
	ts, c := newCorpusServer(t)
	for _, d := range c.Domains {
		body, err := json.Marshal(map[string]string{"domain": d.Domain, "dkimSelector": d.Selector})
		require.NoError(t, err)
		if d.Selector == "" {
			body, err = json.Marshal(map[string]string{"domain": d.Domain})
			require.NoError(t, err)
		}
		// A new rate-limit window for each row.
		ts.Clock.Advance(time.Hour)
		r := ts.PostJSON(t, "/api/scan", string(body))
		require.Equal(t, http.StatusOK, r.StatusCode, "%s: %s", d.Domain, r.Body)
		var sum struct {
			Grade  string
			Score  int
			Checks []struct {
				ID, Status string
				Summary    struct{ EN string }
			}
		}
		require.NoError(t, json.Unmarshal(r.Body, &sum), d.Domain)
		for _, ch := range sum.Checks {
			assert.NotEmpty(t, findingOf(mailauth.CheckID(ch.ID), ch.Summary.EN),
				"%s: the %s summary %q is no finding the page can link to", d.Domain, ch.ID, ch.Summary.EN)
		}
		want, grade, score := d.Want()
		got := map[string]string{}
		for _, ch := range sum.Checks {
			got[ch.ID] = ch.Status
		}
		compared, unnamed := d.Compared(got)
		assert.Equal(t, want, compared, "%s (%s): statuses", d.Domain, d.Provider)
		if len(unnamed) > 0 {
			t.Logf("%s: no expectation for the checks %v (added since expected.json was written)", d.Domain, unnamed)
		}
		assert.Equal(t, grade, sum.Grade, "%s: grade", d.Domain)
		assert.Equal(t, score, sum.Score, "%s: score", d.Domain)
	}
}
