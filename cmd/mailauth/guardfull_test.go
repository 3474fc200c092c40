package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/mtasts"
)

// guardFillingPolicy is an MTA-STS policy for good.example.com of
// mtasts.MaxPolicySize bytes or just under, nearly all of it short mx
// lines (about 6,000): more values than the redaction guard holds
// (redact.MaxValues), each of which it must record before it can vouch
// for a result.
func guardFillingPolicy() string {
	var b strings.Builder
	b.WriteString("version: STSv1\nmode: enforce\nmax_age: 604800\nmx: mx1.good.example.com\n")
	for i := 0; ; i++ {
		line := fmt.Sprintf("mx: %d.x\n", i)
		if b.Len()+len(line) > mtasts.MaxPolicySize {
			return b.String()
		}
		b.WriteString(line)
	}
}

// TestServeGuardFullMetric: a zone whose MTA-STS policy fills the
// redaction guard gets a 500 (the guard cannot vouch for the result),
// counted by mailauth_leak_guard_full_total and not as a leak
// (mailauth_leak_guard_replacements_total stays 0). The flags point serve
// at the lab; each of their defaults is exercised with no flag elsewhere:
// -listen, -admin-listen, -dns, -https-port, -ca-file, -storage and
// -allow-loopback-targets in TestServeOnEveryDefault, -canary-name in
// TestServeReadyOnDefaults.
func TestServeGuardFullMetric(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{scanZoneFile}, map[string]string{"mta-sts.good.example.com": guardFillingPolicy()})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, lab.CAPEM, 0o600))
	adminc := make(chan string, 1)
	base, log, _ := startServe(t, []string{"-listen", "127.0.0.1:0", "-admin-listen", "127.0.0.1:0", "-storage", "none",
		"-dns", lab.DNS.Addr(), "-canary-name", "example.com",
		"-https-port", strconv.Itoa(lab.HTTPSPort), "-ca-file", ca, "-allow-loopback-targets"},
		nil, serveHooks{admin: func(a string) { adminc <- a }})
	admin := "http://" + <-adminc
	require.Equal(t, 500, postJSON(t, base, "/api/scan", `{"domain":"good.example.com"}`, nil), log.String())
	metrics := scrape(t, admin+"/metrics")
	assert.Contains(t, metrics, "\nmailauth_leak_guard_full_total 1\n")
	assert.Contains(t, metrics, "\nmailauth_leak_guard_replacements_total 0\n")
	assert.Contains(t, metrics, `mailauth_http_requests_total{code="500",route="/api/scan"} 1`)
}
