package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// fakeService answers fixed summaries, or err.
type fakeService struct {
	err   error
	calls atomic.Int32
	delay time.Duration
}

func (f *fakeService) Scan(ctx context.Context, req mailauth.ScanRequest) (mailauth.ScanSummary, error) {
	f.calls.Add(1)
	time.Sleep(f.delay)
	s := sampleScan()
	s.Domain = req.Domain
	s.UnicodeDomain = req.Domain
	s.Checks[3].Diagnostics = &mailauth.DKIMDiagnostics{KeyType: ptrTo(mailauth.DKIMKeyEd25519), RecordCount: ptrTo(1)}
	s.Checks[1].Diagnostics = &mailauth.SPFDiagnostics{SPFRecordCount: 1, DNSLookupLimit: 10}
	return s, f.err
}

func (f *fakeService) CheckIP(ctx context.Context, ip netip.Addr) (mailauth.PTRCheckSummary, error) {
	f.calls.Add(1)
	c := sampleScan().Checks[6]
	c.Status = mailauth.StatusPass
	c.Diagnostics = &mailauth.PTRDiagnostics{IPVersion: 4, ForwardRecordType: "A"}
	return mailauth.PTRCheckSummary{SendingIP: ip.String(), Check: c, Disclaimer: lt("仅供参考。", "For information only.")}, f.err
}

func ptrTo[T any](v T) *T { return &v }

func service(t *testing.T, svc httpapi.Service, opts httpapi.Options) *httptest.Server {
	srv := httptest.NewServer(httpapi.New(svc, opts))
	t.Cleanup(srv.Close)
	return srv
}

func runCLI(t *testing.T, e map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut strings.Builder
	code := run(t.Context(), args, mapEnv(e), stdio{out: &out, err: &errOut})
	return code, out.String(), errOut.String()
}

// TestRemoteScan: -server posts to the service and renders its answer;
// exit 1 because the sample has a failed check.
func TestRemoteScan(t *testing.T) {
	t.Parallel()
	svc := &fakeService{}
	srv := service(t, svc, httpapi.Options{})
	code, out, errOut := runCLI(t, nil, "scan", "-server", srv.URL, "example.com", "-selector", "s1")
	assert.Equal(t, exitFail, code, "exit, stderr %q", errOut)
	assert.Empty(t, errOut, "exit %d, stderr", code)
	assert.True(t, strings.HasPrefix(out, "Mail authentication report for example.com\n"), "report:\n%s", out)
	assert.Contains(t, out, "  FAIL  DMARC: No policy\n", "report")
	code, out, _ = runCLI(t, map[string]string{"MAILAUTH_SERVER": srv.URL, "LANG": "zh_CN.UTF-8"}, "scan", "example.com")
	assert.Equal(t, exitFail, code, "zh via env:\n%s", out)
	assert.Contains(t, out, "邮件认证检查报告", "zh via env: exit %d", code)
}

// TestRemoteJSON: -json prints exactly the service's body, and the body
// decodes back into the library's types, diagnostics included.
func TestRemoteJSON(t *testing.T) {
	t.Parallel()
	srv := service(t, &fakeService{}, httpapi.Options{})
	_, out, _ := runCLI(t, nil, "scan", "-json", "-server", srv.URL, "example.com")
	resp, err := http.Post(srv.URL+"/api/scan", "application/json", strings.NewReader(`{"domain":"example.com"}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, string(raw), out, "-json output differs from the API body")
	sum, err := decodeScanSummary(raw)
	require.NoError(t, err)
	want, _ := (&fakeService{}).Scan(t.Context(), mailauth.ScanRequest{Domain: "example.com"})
	want.DKIMSelector, want.SendingIP = sum.DKIMSelector, sum.SendingIP // the fake leaves them set
	assert.Equal(t, want, sum, "decoded summary differs")
	d, ok := sum.Checks[3].Diagnostics.(*mailauth.DKIMDiagnostics)
	if assert.True(t, ok, "dkim diagnostics: %#v", sum.Checks[3].Diagnostics) {
		assert.EqualValues(t, "ed25519", *d.KeyType, "dkim diagnostics: %#v", sum.Checks[3].Diagnostics)
	}
	local, _ := httpapi.Encode(want)
	var a, b any
	_ = json.Unmarshal(local, &a)
	_ = json.Unmarshal(raw, &b)
	assert.Equal(t, b, a, "local -json encoding differs from the service's")
}

// TestRemotePtr: ptr -server, exit 0 for a passing check.
func TestRemotePtr(t *testing.T) {
	t.Parallel()
	srv := service(t, &fakeService{}, httpapi.Options{})
	code, out, errOut := runCLI(t, nil, "ptr", "-server", srv.URL, "-v", "::ffff:8.8.8.8")
	const msg = "exit %d stderr %q\n%s"
	assert.Equal(t, exitOK, code, msg, code, errOut, out)
	assert.Empty(t, errOut, msg, code, errOut, out)
	assert.Contains(t, out, "Sending IP check for 8.8.8.8", msg, code, errOut, out)
	assert.Contains(t, out, "  PASS  PTR: Not confirmed\n        No forward match.\n", msg, code, errOut, out)
	code, out, _ = runCLI(t, nil, "ptr", "-json", "-server", srv.URL, "8.8.8.8")
	sum, err := decodePtrCheckSummary([]byte(out))
	if assert.Equal(t, exitOK, code, "exit") && assert.NoError(t, err) {
		assert.Equal(t, 4, sum.Check.Diagnostics.(*mailauth.PTRDiagnostics).IPVersion, "exit %d %v", code, err)
	}
}

// TestExitCodes covers 2 (usage, input, server 400) and 3 (DNS, service,
// network).
func TestExitCodes(t *testing.T) {
	t.Parallel()
	svc := &fakeService{}
	srv := service(t, svc, httpapi.Options{})
	down := service(t, &fakeService{err: mailauth.ErrResolverUnavailable}, httpapi.Options{})
	limited := service(t, &fakeService{}, httpapi.Options{Limiter: httpapi.NewMemoryLimiter(httpapi.MemoryLimiterOptions{Limit: 1})})
	runCLI(t, nil, "scan", "-server", limited.URL, "example.com")
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + ln.Addr().String()
	ln.Close()
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{nil, exitUsage, "Usage"},
		{[]string{"frobnicate"}, exitUsage, "unknown command"},
		{[]string{"scan"}, exitUsage, "needs a DOMAIN or -f FILE"},
		{[]string{"scan", "-bogus", "example.com"}, exitUsage, "flag provided but not defined"},
		{[]string{"scan", "-server", srv.URL, "127.0.0.1"}, exitUsage, "invalid input: domain:"},
		{[]string{"scan", "-server", srv.URL, "-selector", "-bad", "example.com"}, exitUsage, "dkimSelector:"},
		{[]string{"scan", "-server", srv.URL, "-ip", "10.0.0.1", "example.com"}, exitUsage, "sendingIp:"},
		{[]string{"ptr", "-server", srv.URL, "192.168.0.1"}, exitUsage, "sendingIp:"},
		{[]string{"scan", "-dns", "resolver.example", "example.com"}, exitUsage, "-dns"},
		{[]string{"scan", "-server", down.URL, "example.com"}, exitUnavailable, "DNS resolution temporarily unavailable"},
		{[]string{"ptr", "-server", down.URL, "8.8.8.8"}, exitUnavailable, "500"},
		{[]string{"scan", "-server", limited.URL, "example.com"}, exitUnavailable, "retry after"},
		{[]string{"scan", "-server", closed, "example.com"}, exitUnavailable, "service unreachable"},
	}
	for _, tc := range cases {
		code, _, errOut := runCLI(t, nil, tc.args...)
		assert.Equal(t, tc.code, code, "%q: stderr %q", tc.args, errOut)
		assert.Contains(t, errOut, tc.msg, "%q: exit %d", tc.args, code)
	}
	assert.Zero(t, svc.calls.Load(), "invalid input reached the service")
}

// deadDNS returns a loopback UDP address where nothing answers (ICMP port
// unreachable), for the DNS-unavailable exit.
func deadDNS(t *testing.T) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := pc.LocalAddr().String()
	pc.Close()
	return addr
}

// TestLocalScanUnavailable: a local scan whose only resolver refuses
// ends with exit 3 (no DNS answered), quickly.
func TestLocalScanUnavailable(t *testing.T) {
	t.Parallel()
	addr := deadDNS(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var out, errOut strings.Builder
	code := run(ctx, []string{"scan", "-dns", addr, "example.com"}, mapEnv(nil), stdio{out: &out, err: &errOut})
	const msg = "exit %d stdout %q stderr %q (want a hint about -dns)"
	assert.Equal(t, exitUnavailable, code, msg, code, out.String(), errOut.String())
	assert.Zero(t, out.Len(), msg, code, out.String(), errOut.String())
	assert.Contains(t, errOut.String(), "-dns 9.9.9.9", msg, code, out.String(), errOut.String())
	code = run(ctx, []string{"ptr", "-dns", addr, "8.8.8.8"}, mapEnv(nil), stdio{out: &out, err: &errOut})
	assert.Equal(t, exitUnavailable, code, "ptr: stderr %q", errOut.String())
}

// TestLocalScanLab runs scan and ptr in-process against the loopback lab's
// DNS server (the root package's scan.zone).
func TestLocalScanLab(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{"../../testdata/zones/scan.zone"}, nil)
	code, out, errOut := runCLI(t, nil, "scan", "-dns", lab.DNS.Addr(), "-v", "postmaster@weak.example.com")
	assert.Equal(t, exitFail, code, "scan weak: stderr %q\n%s", errOut, out)
	assert.Empty(t, errOut, "scan weak: exit %d\n%s", code, out)
	assert.True(t, strings.HasPrefix(out, "Mail authentication report for weak.example.com\n"), "scan weak: exit %d stderr %q\n%s", code, errOut, out)
	code, out, errOut = runCLI(t, nil, "scan", "-json", "-dns", lab.DNS.Addr(), "-selector", "s1", "good.example.com")
	sum, err := decodeScanSummary([]byte(out))
	assert.LessOrEqual(t, code, exitFail, "scan good -json: stderr %q err %v\n%s", errOut, err, out)
	assert.Empty(t, errOut, "scan good -json: exit %d err %v\n%s", code, err, out)
	if assert.NoError(t, err, "scan good -json: exit %d stderr %q\n%s", code, errOut, out) {
		assert.Len(t, sum.Checks, len(mailauth.CheckOrder()), "scan good -json: exit %d stderr %q\n%s", code, errOut, out)
	}
	code, out, errOut = runCLI(t, map[string]string{"MAILAUTH_DNS": lab.DNS.Addr(), "LANG": "zh_CN.UTF-8"}, "ptr", "8.8.8.8")
	assert.Equal(t, exitOK, code, "ptr: stderr %q\n%s", errOut, out)
	assert.Empty(t, errOut, "ptr: exit %d\n%s", code, out)
	assert.True(t, strings.HasPrefix(out, "发信 IP 检查：8.8.8.8\n"), "ptr: exit %d stderr %q\n%s", code, errOut, out)
}

// TestLocalJSONIsScannersOwn: a local scan and ptr print the scanner's
// JSON, the bytes its leak guard verified, and those bytes are what the
// service's encoding of the summary gives (the output did not change).
func TestLocalJSONIsScannersOwn(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{"../../testdata/zones/scan.zone"}, nil)
	cfg := mailauth.Config{DNSServers: []string{lab.DNS.Addr()}}
	sum, raw, err := localScan(t.Context(), cfg, mailauth.ScanRequest{Domain: "good.example.com", DKIMSelector: "s1"})
	require.NoError(t, err)
	want, err := httpapi.Encode(sum)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(raw), "scan")
	ptrSum, raw, err := localPtr(t.Context(), cfg, netip.MustParseAddr("8.8.8.8"))
	require.NoError(t, err)
	want, err = httpapi.Encode(ptrSum)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(raw), "ptr")
}

// TestIncompleteScanExit: a scan where most checks could not be
// determined (replies that cannot be used: no attributable cause) is
// exit 3, not a grade, locally and through -server (whose service
// answers 500).
func TestIncompleteScanExit(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{"../../testdata/zones/scan.zone"}, nil)
	for _, n := range []string{"good.example.com", "_dmarc.good.example.com", "_mta-sts.good.example.com", "_smtp._tls.good.example.com", "8.8.8.8.in-addr.arpa"} {
		lab.DNS.SetFault(n, 0, dnstest.Garbage)
	}
	srv := service(t, mailauth.New(mailauth.Config{DNSServers: []string{lab.DNS.Addr()}}), httpapi.Options{})
	cases := [][]string{
		{"scan", "-dns", lab.DNS.Addr(), "good.example.com"},
		{"scan", "-json", "-dns", lab.DNS.Addr(), "good.example.com"},
		{"scan", "-server", srv.URL, "good.example.com"},
		{"ptr", "-dns", lab.DNS.Addr(), "8.8.8.8"},
		{"ptr", "-server", srv.URL, "8.8.8.8"},
	}
	for _, args := range cases {
		code, out, errOut := runCLI(t, nil, args...)
		remote := args[0] == "scan" && slices.Contains(args, "-server") // the service answers 500: no report
		assert.Equal(t, exitUnavailable, code, "%q: stderr %q\n%s", args, errOut, out)
		assert.Contains(t, errOut, "incomplete", "%q: exit %d\n%s", args, code, out)
		assert.Equal(t, remote, out == "", "%q: a report unless the service answered 500: exit %d stderr %q\n%s", args, code, errOut, out)
	}
	code, out, errOut := runCLI(t, nil, "scan", "-dns", lab.DNS.Addr(), "weak.example.com")
	assert.Equal(t, exitFail, code, "weak, complete: stderr %q\n%s", errOut, out)
}

// TestNonexistentScanExit: a name that does not exist gets no grade:
// the report says "No grade: the name does not exist" (and never both
// "does not exist" and "repeat later"), the CSV's grade column says
// nonexistent, and the exit code is 4, locally and through -server.
func TestNonexistentScanExit(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{"../../testdata/zones/scan.zone"}, nil)
	srv := service(t, mailauth.New(mailauth.Config{DNSServers: []string{lab.DNS.Addr()}}), httpapi.Options{})
	for _, args := range [][]string{
		{"scan", "-dns", lab.DNS.Addr(), "alpah-mail.example.com"},
		{"scan", "-server", srv.URL, "alpah-mail.example.com"},
	} {
		code, out, errOut := runCLI(t, nil, args...)
		assert.Equal(t, exitNonexistent, code, "%q: stderr %q\n%s", args, errOut, out)
		assert.Contains(t, out, "No grade: the name does not exist\n", "%q", args)
		assert.NotContains(t, out, "Grade F", "%q", args)
		assert.NotContains(t, out+errOut, "repeat", "%q", args)
		assert.NotContains(t, out+errOut, "retry", "%q", args)
	}
	code, out, errOut := runCLI(t, nil, "scan", "-format", "csv", "-dns", lab.DNS.Addr(), "alpah-mail.example.com", "good.example.com")
	assert.Equal(t, exitNonexistent, code, "csv: stderr %q\n%s", errOut, out)
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		if strings.HasPrefix(line, "alpah-mail.example.com,") {
			assert.True(t, strings.HasPrefix(line, "alpah-mail.example.com,nonexistent,,"), "csv row %q", line)
		} else {
			assert.False(t, strings.Contains(line, "nonexistent"), "csv row %q", line)
		}
	}
}
