package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/caa"
	"github.com/mailauth/mailauth/internal/testlab"
)

// boundaryName returns a name of exactly n octets ending in suffix, with
// labels of at most width octets (63 for few long labels, 1 or more for a
// deep tree of subdomains).
func boundaryName(n, width int, suffix string) string {
	rest := n - len(suffix) - 1
	var labels []string
	for rest > 0 {
		l := min(width, rest)
		if rest-l == 1 { // the next label needs an octet after its dot
			l--
			if l == 0 {
				l = 2
			}
		}
		labels = append(labels, strings.Repeat("x", l))
		rest -= l + 1
	}
	return strings.Join(append(labels, suffix), ".")
}

// eightChecks are the checks whose names this test knows.
var eightChecks = []mailauth.CheckID{mailauth.CheckMX, mailauth.CheckSPF, mailauth.CheckDMARC, mailauth.CheckDKIM,
	mailauth.CheckMTASTS, mailauth.CheckTLSRPT, mailauth.CheckPTR, mailauth.CheckCAA}

// TestLongNamesNo500: every domain of 241 to 253 octets is a valid input,
// so the service answers 200 with a coherent summary, never the 500 of
// an incomplete scan, whether the name exists (few long labels, or a deep
// tree of short ones) or not. A name too long for "_dmarc.", "_mta-sts."
// or "_smtp._tls." still gets a determined DMARC (from the parent's
// record) and MTA-STS and TLS-RPT said to be unpublishable; a DKIM key
// name that cannot exist is no key.
func TestLongNamesNo500(t *testing.T) {
	t.Parallel()
	type target struct {
		domain string
		exists bool
	}
	var targets []target
	var zone strings.Builder
	zone.WriteString("$ORIGIN example.com.\n@ SOA ns.example.com. hostmaster.example.com. 1 3600 600 86400 300\n")
	zone.WriteString("_dmarc TXT \"v=DMARC1; p=reject\"\nmx A 8.8.8.8\n")
	for n := 241; n <= mailauth.MaxDomainLen; n++ {
		for _, width := range []int{63, 3} {
			d := boundaryName(n, width, "long.example.com")
			require.Len(t, d, n)
			targets = append(targets, target{d, true})
			fmt.Fprintf(&zone, "%s. MX 10 mx.example.com.\n%s. TXT \"v=spf1 -all\"\n", d, d)
		}
		d := boundaryName(n, 63, "absent.example.com")
		require.Len(t, d, n)
		targets = append(targets, target{d, false})
	}
	file := filepath.Join(t.TempDir(), "long.zone")
	require.NoError(t, os.WriteFile(file, []byte(zone.String()), 0o600))
	lab := testlab.Start(t, []string{file}, nil)
	scanner := mailauth.New(mailauth.Config{
		Resolver:    lab.DNS.PatientClient(), // a bound on a hang, not on speed
		ScanTimeout: 60 * time.Second,
	})
	ts := NewTestServer(t, scanner, Options{Limiter: bigLimiter()})
	for _, tg := range targets {
		body := `{"domain":` + strconv.Quote(tg.domain) + `,"dkimSelector":"s1"}` // a key name too long to exist, too
		r := ts.PostJSON(t, "/api/scan", body)
		if !assert.Equal(t, http.StatusOK, r.StatusCode, "%d octets (exists %v): %s", len(tg.domain), tg.exists, r.Body) {
			continue
		}
		var sum mailauth.ScanSummary
		require.NoError(t, json.Unmarshal(r.Body, &sum))
		mailauth.RestoreDetermination(sum.Checks)
		require.Len(t, sum.Checks, len(mailauth.CheckOrder()))
		en := sum.Summary.EN
		assert.NotContains(t, en, "incomplete", "%d octets: %q", len(tg.domain), en)
		assert.NotContains(t, en, "Repeat the scan later", "%d octets: %q", len(tg.domain), en)
		assert.Equal(t, !tg.exists, strings.Contains(en, "does not exist"), "%d octets (exists %v): %q", len(tg.domain), tg.exists, en)
		assert.False(t, sum.Incomplete(), "%d octets: incomplete", len(tg.domain))
		for _, c := range sum.Checks {
			if c.ID == mailauth.CheckCAA && strings.Count(tg.domain, ".") >= caa.MaxClimb {
				continue // deeper than the CAA climb goes: a known, documented limit
			}
			if !slices.Contains(eightChecks, c.ID) {
				continue // a check added later (TestNinthCheck) has its own names
			}
			assert.False(t, c.Undetermined(), "%d octets: %s undetermined: %q", len(tg.domain), c.ID, c.Summary.EN)
			if !tg.exists {
				continue
			}
			switch c.ID {
			case mailauth.CheckDMARC:
				assert.Equal(t, mailauth.StatusPass, c.Status, "%d octets: DMARC %q", len(tg.domain), c.Summary.EN)
			case mailauth.CheckMTASTS:
				if len(tg.domain)+len("_mta-sts.") > mailauth.MaxDomainLen {
					assert.Equal(t, mailauth.StatusInfo, c.Status, "%d octets: MTA-STS %q", len(tg.domain), c.Summary.EN)
					assert.Contains(t, c.Summary.EN, "cannot exist", "%d octets: MTA-STS", len(tg.domain))
				}
			case mailauth.CheckTLSRPT:
				if len(tg.domain)+len("_smtp._tls.") > mailauth.MaxDomainLen {
					assert.Equal(t, mailauth.StatusInfo, c.Status, "%d octets: TLS-RPT %q", len(tg.domain), c.Summary.EN)
					assert.Contains(t, c.Summary.EN, "cannot exist", "%d octets: TLS-RPT", len(tg.domain))
				}
			}
		}
	}
}
