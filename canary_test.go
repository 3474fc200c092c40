package mailauth

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestCanariesNeverReachOutput seeds every record type, the MTA-STS policy
// and the names reached through CNAME, include and PTR with unique
// "kanari" tokens, then scans through real UDP/TCP and HTTPS and asserts no
// token appears in the JSON, whole or in part.
func TestCanariesNeverReachOutput(t *testing.T) {
	lab := testlab.Start(t, []string{"testdata/zones/canary.zone"}, map[string]string{
		"mta-sts.leak.example.com": "version: STSv1\nmode: testing\nmx: kanari01-mx.leak.example.com\nmx: *.kanari24.example.net\nmax_age: 86400\nkanari25: x\n",
	})
	leaks := 0
	s := New(Config{
		Resolver:  &resolver.Client{Servers: []string{lab.DNS.Addr()}, Timeout: 30 * time.Second, Attempts: 1}, // a bound on a hang, not on speed
		HTTPSPort: lab.HTTPSPort, RootCAs: lab.RootCAs, AllowLoopbackTargets: true,
		Now:    func() time.Time { return fixedNow },
		OnLeak: func(_ string, n int) { leaks += n },
	})
	for _, req := range []ScanRequest{
		{Domain: "leak.example.com", DKIMSelector: "sel", SendingIP: "8.8.8.8"},
		{Domain: "leak.example.com", SendingIP: "2001:4860:4860::8888"},
	} {
		got, err := s.Scan(context.Background(), req)
		require.NoError(t, err)
		body := marshal(t, got)
		require.NotContains(t, strings.ToLower(string(body)), "kanari", "a canary reached the output:\n%s", body)
		noZoneData(t, body, "testdata/zones/canary.zone", nil, req)
		// The scan must actually have read the canaries: every check
		// evaluated something (no check is inconclusive).
		for _, c := range got.Checks {
			assert.NotEqual(t, txtInconclusive.format(), c.Summary, "%s was not evaluated (%s); the canaries were not exercised", c.ID, c.Summary.EN)
			assert.NotEqual(t, txtInternal.format(), c.Summary, "%s was not evaluated (%s); the canaries were not exercised", c.ID, c.Summary.EN)
		}
	}
	ip, err := s.CheckIP(context.Background(), mustAddr(t, "8.8.8.8"))
	require.NoError(t, err)
	body := marshal(t, ip)
	require.NotContains(t, strings.ToLower(string(body)), "kanari", "a canary reached the ptr-check output:\n%s", body)
	require.Equal(t, 0, leaks, "the redaction guard replaced %d texts: a text carries wire data", leaks)
}

// TestProtocolWordsInRecordsAreNotLeaks: TXT records that consist of words
// our own texts use ("v=STSv1", "-all") must not make the guard replace a
// verdict or raise a leak alarm.
func TestProtocolWordsInRecordsAreNotLeaks(t *testing.T) {
	z := dnstest.MustParse(t, `$ORIGIN words.example.com.
@         MX 10 mx
mx        A 8.8.8.8
@         TXT "-all"
@         TXT "v=spf1 -all"
_mta-sts  TXT "v=STSv1"
_mta-sts  TXT "v=STSv1; id=2024"
_dmarc    TXT "v=DMARC1; p=reject"
`)
	leaks := 0
	s := New(Config{Resolver: dnstest.NewResolver(z), Now: func() time.Time { return fixedNow }, OnLeak: func(_ string, n int) { leaks += n }})
	got, err := s.Scan(context.Background(), ScanRequest{Domain: "words.example.com"})
	require.NoError(t, err)
	for _, c := range got.Checks {
		assert.NotEqual(t, txtInternal.format(), c.Summary, "%s was replaced by the guard", c.ID)
		if c.ID == CheckMTASTS {
			assert.Equal(t, StatusFail, c.Status, "mta-sts with two announcements = %s, want fail", c.Status)
		}
	}
	require.Equal(t, 0, leaks, "guard raised %d leak alarms for protocol words", leaks)
}

// TestVerifyWithholdsALeakingResult: a wire value anywhere in a finished
// result withholds it.
func TestVerifyWithholdsALeakingResult(t *testing.T) {
	leaks := 0
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ A 8.8.8.8\n")), OnLeak: func(_ string, n int) { leaks += n }})
	r := s.newRun()
	r.guard.AddText("v=spf1 include:kanari-verify.example.net -all")
	sum := ScanSummary{Domain: "x.example.com", Summary: LocalizedText{EN: "fine", ZH: "好"}}
	require.NoError(t, r.verifyOnly(sum), "clean result withheld")
	sum.Checks = []CheckSummary{{Diagnostics: &DMARCDiagnostics{PolicyDomain: strPtr("kanari-verify.example.net")}}}
	err := r.verifyOnly(sum)
	require.ErrorIs(t, err, ErrLeakBlocked, "verify = %v with %d alarms, want ErrLeakBlocked and 1", err, leaks)
	require.Equal(t, 1, leaks, "verify = %v with %d alarms, want ErrLeakBlocked and 1", err, leaks)
}

// TestPanicAndLeakFallBack: a check that panics, and a check whose texts
// carry a recorded wire value, are both reported with the internal-error
// fallback, and each is reported through its hook (counts and IDs only).
func TestPanicAndLeakFallBack(t *testing.T) {
	var panicked []CheckID
	leaks := 0
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ A 8.8.8.8\n")),
		OnPanic: func(id CheckID) { panicked = append(panicked, id) }, OnLeak: func(_ string, n int) { leaks += n }})
	r := s.newRun()
	got := r.runChecks(t.Context(), map[CheckID]checkFunc{
		CheckSPF: {run: func(context.Context) verdict { panic("a bug") }},
	})
	msg := "a panicking check gave %+v (hook saw %v), want the internal-error fallback"
	require.Len(t, got, 1, msg, got, panicked)
	require.Equal(t, txtInternal.format(), got[0].Summary, msg, got, panicked)
	require.Len(t, panicked, 1, msg, got, panicked)
	require.Equal(t, CheckSPF, panicked[0], msg, got, panicked)
	r.guard.AddText("kanari-scrub.example.net")
	checks := []CheckSummary{
		{ID: CheckMX, Status: StatusPass, Summary: LocalizedText{EN: "fine", ZH: "好"}},
		{ID: CheckDMARC, Status: StatusPass, Summary: LocalizedText{EN: "fine", ZH: "好"}, Details: LocalizedText{EN: "see kanari-scrub.example.net", ZH: "好"}},
	}
	r.scrub(checks)
	msg = "scrub gave %q and %q with %d alarms, want the clean one kept, the leaking one replaced, 1 alarm"
	assert.Equal(t, "fine", checks[0].Summary.EN, msg, checks[0].Summary.EN, checks[1].Summary.EN, leaks)
	assert.Equal(t, txtInternal.format(), checks[1].Summary, msg, checks[0].Summary.EN, checks[1].Summary.EN, leaks)
	assert.Equal(t, 1, leaks, msg, checks[0].Summary.EN, checks[1].Summary.EN, leaks)
}
