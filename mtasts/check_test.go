package mtasts

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/testport"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// testEnv is the zone of testdata/mtasts.zone and the HTTPS policy server
// on loopback that serves its scenarios.
type testEnv struct {
	zones *dnstest.Zones
	srv   *policyServer
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	z := dnstest.MustLoad(t, "testdata/mtasts.zone")
	var hosts []string
	for _, n := range z.Names() {
		if strings.HasPrefix(n, "mta-sts.") {
			hosts = append(hosts, n)
		}
	}
	return &testEnv{zones: z, srv: startPolicyServer(t, hosts)}
}

// options is the lab configuration: the test server's port and CA, loopback
// admitted, and a dialer that connects only to loopback. Its time-outs
// bound a hang, not speed: a policy a loaded machine serves late is still
// the policy (the "slow" case sets its own).
func (e *testEnv) options(d *recordingDialer) Options {
	return Options{Port: e.srv.Port, RootCAs: e.srv.CA.pool, AllowLoopback: true,
		Timeout: dnstest.PatientTimeout, ConnectTimeout: dnstest.PatientTimeout, Dial: d.Dial}
}

type fault = dnstest.FaultAt

var passPolicy = Policy{Version: "STSv1", Mode: ModeEnforce, MaxAge: new(int64(604800)), MX: []string{"mail.example.com"}}

// fetched is the Result of a fetch that read a 200 body holding p.
func fetched(p Policy, valid bool, codes ...Code) Result {
	return Result{
		Outcome: resolver.Found, AnnouncementRecordCount: new(1), AnnouncementValid: new(true),
		FetchState: Fetched, HTTPStatus: 200, PolicyValid: new(valid), PolicyMode: p.Mode,
		MaxAge: p.MaxAge, MXPatternCount: new(len(p.MX)), Policy: p, Findings: codes,
	}
}

// notFetched is the Result of a valid announcement whose fetch failed.
func notFetched(state FetchState, status int, codes ...Code) Result {
	return Result{
		Outcome: resolver.Found, AnnouncementRecordCount: new(1), AnnouncementValid: new(true),
		FetchState: state, HTTPStatus: status, Findings: codes,
	}
}

// announcement is the Result of a check that stopped at the TXT record.
func announcement(outcome resolver.Outcome, reason resolver.Reason, count int, state FetchState, codes ...Code) Result {
	res := Result{Outcome: outcome, Reason: reason, FetchState: state, Findings: codes}
	if count >= 0 { // -1: the lookup was inconclusive
		res.AnnouncementRecordCount, res.AnnouncementValid = new(count), new(false)
	}
	return res
}

func TestCheck(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	closedPort := freePort(t)
	t.Cleanup(func() {
		// After every parallel case: the redirect was requested once and
		// its target never (redirects are not followed, RFC 8461 §3.3).
		assert.Equal(t, 0, e.srv.Hits("redirect-target"), "redirect target requested")
		assert.Equal(t, 1, e.srv.Hits("redirect"), "redirecting host requested, want once")
	})
	tests := []struct {
		name   string // scenario label; the domain is <name>.mtasts.test
		faults []fault
		opts   func(*Options)
		want   Result
		dials  []string // when set, the exact addresses dialed ("PORT" stands for the server port)
		after  func(t *testing.T, r *dnstest.Resolver)
	}{
		// Announcement outcomes (doc/rfc-notes.md §6.5, 6.6).
		{name: "not-in-zone", want: announcement(resolver.NXDomain, "", 0, NotAnnounced),
			after: func(t *testing.T, r *dnstest.Resolver) {
				assert.Equal(t, 0, r.Count("mta-sts.not-in-zone.mtasts.test", dnstest.AnyType), "policy host looked up without an announcement")
			}},
		{name: "nodata", want: announcement(resolver.NoData, "", 0, NotAnnounced)},
		{name: "other-txt", want: announcement(resolver.Found, "", 0, NotAnnounced)},
		{name: "lowercase", want: announcement(resolver.Found, "", 0, NotAnnounced)},
		{name: "sub.pass", want: announcement(resolver.NXDomain, "", 0, NotAnnounced)}, // no parent fallback (§3.4)
		{name: "multiple", want: announcement(resolver.Found, "", 2, NotAttempted, CodeAnnouncementMultiple)},
		{name: "bad-id", want: announcement(resolver.Found, "", 1, NotAttempted, CodeAnnouncementBadID)},
		{name: "long-id", want: announcement(resolver.Found, "", 1, NotAttempted, CodeAnnouncementBadID)},
		{name: "no-id", want: announcement(resolver.Found, "", 1, NotAttempted, CodeAnnouncementMissingID)},
		{name: "syntax", want: announcement(resolver.Found, "", 1, NotAttempted, CodeAnnouncementSyntax)},
		{name: "servfail", faults: []fault{{Name: "_mta-sts.servfail.mtasts.test", Type: resolver.TypeTXT, Fault: dnstest.ServFail}},
			want: announcement(resolver.Inconclusive, resolver.ReasonServFail, -1, Inconclusive)},
		{name: "timeout", faults: []fault{{Name: "_mta-sts.timeout.mtasts.test", Type: resolver.TypeTXT, Fault: dnstest.Drop}},
			want: announcement(resolver.Inconclusive, resolver.ReasonTimeout, -1, Inconclusive)},
		{name: "refused", faults: []fault{{Name: "_mta-sts.refused.mtasts.test", Type: resolver.TypeTXT, Fault: dnstest.Refused}},
			want: announcement(resolver.Inconclusive, resolver.ReasonRefused, -1, Inconclusive)},
		{name: "truncated", faults: []fault{{Name: "_mta-sts.truncated.mtasts.test", Type: resolver.TypeTXT, Fault: dnstest.Truncate}},
			want: fetched(passPolicy, true)},

		// Valid announcements, policies fetched.
		{name: "pass", want: Result{
			Outcome: resolver.Found, AnnouncementRecordCount: new(1), AnnouncementValid: new(true),
			FetchState: Fetched, HTTPStatus: 200, PolicyValid: new(true), PolicyMode: ModeEnforce,
			MaxAge: new(int64(604800)), MXPatternCount: new(1), Policy: passPolicy,
		}, dials: []string{"127.0.0.1:PORT"}},
		{name: "split-txt", want: fetched(passPolicy, true)},
		{name: "with-others", want: fetched(passPolicy, true)},
		{name: "extension", want: fetched(passPolicy, true)},
		{name: "duplicate-id", want: fetched(passPolicy, true, CodeAnnouncementDuplicateField)},
		{name: "cname", want: fetched(passPolicy, true)},
		{name: "testing", want: fetched(Policy{Version: "STSv1", Mode: ModeTesting, MaxAge: new(int64(86400)), MX: []string{"mail.example.com", "*.mx.example.net"}}, true)},
		{name: "none", want: fetched(Policy{Version: "STSv1", Mode: ModeNone, MaxAge: new(int64(86400))}, true)},
		{name: "max-age-too-large", want: fetched(Policy{Version: "STSv1", Mode: ModeEnforce, MX: []string{"mail.example.com"}}, false, CodePolicyMaxAgeTooLarge)},
		{name: "max-age-zero", want: fetched(Policy{Version: "STSv1", Mode: ModeEnforce, MaxAge: new(int64(0)), MX: []string{"mail.example.com"}}, true, CodePolicyMaxAgeZero)},
		{name: "missing-mx", want: fetched(Policy{Version: "STSv1", Mode: ModeEnforce, MaxAge: new(int64(604800))}, false, CodePolicyMXMissing)},
		{name: "crlf", want: fetched(passPolicy, true)},
		{name: "no-final-newline", want: fetched(passPolicy, true)},
		{name: "duplicate-fields", want: fetched(Policy{Version: "STSv1", Mode: ModeTesting, MaxAge: new(int64(604800)), MX: []string{"mail.example.com"}}, true, CodePolicyDuplicateField)},
		{name: "invalid-mx", want: fetched(Policy{Version: "STSv1", Mode: ModeEnforce, MaxAge: new(int64(604800)), MX: []string{"mail.*.example.com", "mail.example.com"}}, false, CodePolicyMXInvalid)},
		{name: "html", want: fetched(passPolicy, true, CodePolicyMediaType)},
		{name: "no-content-type", want: fetched(passPolicy, true, CodePolicyMediaType)},
		{name: "v6", want: fetched(passPolicy, true), dials: []string{"[::1]:PORT"}},
		{name: "dual", want: fetched(passPolicy, true), dials: []string{"127.0.0.1:PORT"}},
		{name: "mapped-loopback", want: fetched(passPolicy, true), dials: []string{"127.0.0.1:PORT"}},
		{name: "host-half", want: fetched(passPolicy, true, CodePolicyHostNonPublic), dials: []string{"[::1]:PORT"}},

		// Fetches that fail.
		{name: "status-404", want: notFetched(Unreachable, 404, CodePolicyStatusClientError)},
		{name: "status-500", want: notFetched(Unreachable, 500, CodePolicyStatusServerError)},
		{name: "redirect", want: notFetched(Unreachable, 301, CodePolicyRedirect)},
		{name: "huge", want: notFetched(Unreachable, 200, CodePolicyTooLarge)},
		{name: "huge-chunked", want: notFetched(Unreachable, 200, CodePolicyTooLarge)},
		{name: "slow", opts: func(o *Options) { o.Timeout = 300 * time.Millisecond },
			want: notFetched(Inconclusive, 0, CodePolicyFetchTimeout)},
		{name: "wrong-name", want: notFetched(Unreachable, 0, CodePolicyCertNameMismatch)},
		{name: "expired", want: notFetched(Unreachable, 0, CodePolicyCertExpired)},
		{name: "untrusted", want: notFetched(Unreachable, 0, CodePolicyCertUntrusted)},
		{name: "system-roots", opts: func(o *Options) { o.RootCAs = nil }, // "pass" without the test CA
			want: notFetched(Unreachable, 0, CodePolicyCertUntrusted)},
		{name: "closed-port", opts: func(o *Options) { o.Port = closedPort },
			want: notFetched(Unreachable, 0, CodePolicyConnectFailed), dials: []string{"127.0.0.1:" + strconv.Itoa(closedPort)}},
		{name: "host-nxdomain", want: notFetched(Unreachable, 0, CodePolicyHostNotFound), dials: []string{}},
		{name: "host-nodata", want: notFetched(Unreachable, 0, CodePolicyHostNotFound), dials: []string{}},
		{name: "host-servfail", faults: []fault{{Name: "mta-sts.host-servfail.mtasts.test", Type: dnstest.AnyType, Fault: dnstest.ServFail}},
			want: notFetched(Inconclusive, 0, CodePolicyHostDNSInconclusive), dials: []string{}},
		{name: "host-timeout", faults: []fault{{Name: "mta-sts.host-timeout.mtasts.test", Type: dnstest.AnyType, Fault: dnstest.Drop}},
			want: notFetched(Inconclusive, 0, CodePolicyHostDNSInconclusive), dials: []string{}},
		{name: "host-half-inconclusive", faults: []fault{{Name: "mta-sts.host-half.mtasts.test", Type: resolver.TypeAAAA, Fault: dnstest.ServFail}},
			want: notFetched(Inconclusive, 0, CodePolicyHostDNSInconclusive, CodePolicyHostNonPublic), dials: []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := dnstest.NewResolver(e.zones)
			r.Apply(tc.faults...)
			d := &recordingDialer{connect: true}
			opts := e.options(d)
			if tc.opts != nil {
				tc.opts(&opts)
			}
			domain := scenarioDomain(tc.name)
			got := Check(context.Background(), r, domain, opts)
			require.Equal(t, tc.want, got, "Result differs")
			// Fetches says whether Check asks the policy host's
			// addresses, from the announcement's answer alone.
			ann := dnstest.NewResolver(e.zones)
			ann.Apply(tc.faults...)
			asks := 0
			if Fetches(ann.Lookup(t.Context(), RecordName(domain), resolver.TypeTXT)) {
				asks = 1
			}
			for _, qt := range []resolver.Type{resolver.TypeA, resolver.TypeAAAA} {
				assert.Equal(t, asks, r.Count(PolicyHost(domain), qt), "%s questions of the policy host", qt)
			}
			if tc.dials != nil {
				want := make([]string, 0, len(tc.dials))
				for _, a := range tc.dials {
					want = append(want, strings.Replace(a, "PORT", strconv.Itoa(e.srv.Port), 1))
				}
				assert.Equal(t, want, append([]string{}, d.Calls()...), "dialed")
			}
			if tc.after != nil {
				tc.after(t, r)
			}
		})
	}
}

// scenarioDomain maps a table row name to its domain. Two rows reuse
// another scenario's zone data with different faults or options.
func scenarioDomain(name string) string {
	switch name {
	case "host-half-inconclusive":
		name = "host-half"
	case "system-roots":
		name = "pass"
	}
	return name + zoneSuffix
}

func TestCheckPolicySizeLimit(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	d := &recordingDialer{connect: true}
	got := Check(context.Background(), dnstest.NewResolver(e.zones), "size-limit"+zoneSuffix, e.options(d))
	require.Equal(t, Fetched, got.FetchState, "a body of exactly MaxPolicySize: %+v", got.Findings)
	require.NotNil(t, got.PolicyValid, "a body of exactly MaxPolicySize: %+v", got.Findings)
	require.True(t, *got.PolicyValid, "a body of exactly MaxPolicySize: %+v", got.Findings)
	require.Equal(t, 200, got.HTTPStatus, "a body of exactly MaxPolicySize: %+v", got.Findings)
	require.Nil(t, got.Findings, "a body of exactly MaxPolicySize")
	require.Equal(t, ModeEnforce, got.PolicyMode, "policy not parsed whole: mode")
	require.NotNil(t, got.MaxAge, "policy not parsed whole: max_age")
	require.Equal(t, int64(604800), *got.MaxAge, "policy not parsed whole: max_age")
	require.NotNil(t, got.MXPatternCount, "policy not parsed whole: patterns")
	require.Equal(t, 1, *got.MXPatternCount, "policy not parsed whole: patterns")
	require.GreaterOrEqual(t, len(got.Policy.Extensions), 500, "policy not parsed whole: extensions")
}

// TestCheckRefusesNonPublic proves the address guard: every non-public
// address is refused before the dialer beneath the guard is reached, with
// and without the loopback option (which admits only 127.0.0.0/8 and ::1).
func TestCheckRefusesNonPublic(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, "testdata/mtasts.zone")
	tests := []struct {
		label         string
		allowLoopback []bool
	}{
		{"refuse-v4-loopback", []bool{false}},
		{"refuse-v6-loopback", []bool{false}},
		{"mapped-loopback", []bool{false}},
		{"refuse-10", []bool{false, true}},
		{"refuse-172", []bool{false, true}},
		{"refuse-192", []bool{false, true}},
		{"refuse-cgnat", []bool{false, true}},
		{"refuse-metadata", []bool{false, true}},
		{"refuse-ula", []bool{false, true}},
		{"refuse-link-local", []bool{false, true}},
		{"refuse-mapped", []bool{false, true}},
		{"refuse-this-network", []bool{false, true}},
		{"refuse-documentation", []bool{false, true}},
		{"refuse-multicast", []bool{false, true}},
	}
	for _, tc := range tests {
		for _, allow := range tc.allowLoopback {
			t.Run(fmt.Sprintf("%s/allow-loopback=%v", tc.label, allow), func(t *testing.T) {
				t.Parallel()
				d := &recordingDialer{connect: true}
				opts := Options{AllowLoopback: allow, Timeout: 2 * time.Second, Dial: d.Dial}
				got := Check(context.Background(), dnstest.NewResolver(z), tc.label+zoneSuffix, opts)
				require.Equal(t, notFetched(Unreachable, 0, CodePolicyHostNonPublic), got, "Result differs")
				require.Empty(t, d.Calls(), "the dialer beneath the guard was reached")
			})
		}
	}
}

// TestCheckMixedPublicPrivate: of a host's two addresses, only the public
// one reaches the dialer; the recording dialer fails every dial without
// sending a packet, so nothing outside loopback is ever contacted.
func TestCheckMixedPublicPrivate(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, "testdata/mtasts.zone")
	for _, allow := range []bool{false, true} {
		d := &recordingDialer{connect: false}
		opts := Options{AllowLoopback: allow, Timeout: 2 * time.Second, Dial: d.Dial}
		got := Check(context.Background(), dnstest.NewResolver(z), "mixed"+zoneSuffix, opts)
		require.Equal(t, notFetched(Unreachable, 0, CodePolicyConnectFailed, CodePolicyHostNonPublic), got, "Result differs")
		require.Equal(t, []string{"[2606:4700:4700::1111]:443"}, d.Calls(), "allow-loopback=%v: dialed", allow)
	}
}

// TestCheckOverDNSServer runs the check through a real UDP/TCP DNS server
// on loopback: truncation falls back to TCP, and timeouts are inconclusive.
func TestCheckOverDNSServer(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	tests := []struct {
		name   string
		faults []fault
		want   Result
		tcp    string // a name that must have been asked over TCP
	}{
		{name: "pass", want: fetched(passPolicy, true)},
		{name: "truncated", faults: []fault{{Name: "_mta-sts.truncated.mtasts.test", Type: resolver.TypeTXT, Fault: dnstest.Truncate}},
			want: fetched(passPolicy, true), tcp: "_mta-sts.truncated.mtasts.test"},
		{name: "timeout", faults: []fault{{Name: "_mta-sts.timeout.mtasts.test", Type: resolver.TypeTXT, Fault: dnstest.Drop}},
			want: announcement(resolver.Inconclusive, resolver.ReasonTimeout, -1, Inconclusive)},
		{name: "servfail", faults: []fault{{Name: "_mta-sts.servfail.mtasts.test", Type: resolver.TypeTXT, Fault: dnstest.ServFail}},
			want: announcement(resolver.Inconclusive, resolver.ReasonServFail, -1, Inconclusive)},
		{name: "host-timeout", faults: []fault{{Name: "mta-sts.host-timeout.mtasts.test", Type: dnstest.AnyType, Fault: dnstest.Drop}},
			want: notFetched(Inconclusive, 0, CodePolicyHostDNSInconclusive)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := dnstest.Start(t, e.zones)
			srv.Apply(tc.faults...)
			d := &recordingDialer{connect: true}
			// A dropped question times out once the server has it; every
			// other answer is waited for however loaded the machine
			// (PatientResolver).
			got := Check(context.Background(), srv.PatientResolver(), tc.name+zoneSuffix, e.options(d))
			require.Equal(t, tc.want, got, "Result differs")
			if tc.tcp != "" {
				assert.NotZero(t, srv.CountOver(tc.tcp, dnstest.AnyType, "tcp"), "%s was never asked over TCP", tc.tcp)
			}
		})
	}
}

// TestCheckObserve proves every sensitive value from the fetch reaches the
// Observe hook, and that none of them is in the Result outside Policy.
func TestCheckObserve(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	for _, label := range []string{"pass", "redirect", "invalid-mx"} {
		var seen []string
		d := &recordingDialer{connect: true}
		opts := e.options(d)
		opts.Observe = func(v string) { seen = append(seen, v) }
		got := Check(context.Background(), dnstest.NewResolver(e.zones), label+zoneSuffix, opts)
		host := "mta-sts." + label + zoneSuffix
		want := []string{host, e.srv.URL(label)}
		switch label {
		case "redirect":
			want = append(want, e.srv.URL("redirect-target"))
		default:
			body := readPolicyFile(label)
			want = append(want, body)
			want = append(want, strings.Split(strings.TrimSuffix(body, "\n"), "\n")...)
			want = append(want, got.Policy.MX...)
		}
		require.Equal(t, want, seen, "%s: observed", label)
		got.Policy = Policy{}
		out := fmt.Sprintf("%#v", got)
		for _, v := range seen {
			require.NotContains(t, out, v, "%s: Result carries observed value %q", label, v)
		}
	}
}

// TestCheckProgress: a policy fetch reports its steps through
// Options.Progress (the connection, then the bytes the server sends), and
// none when it cannot connect.
func TestCheckProgress(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	var steps atomic.Int64
	opts := e.options(&recordingDialer{connect: true})
	opts.Progress = func() { steps.Add(1) }
	got := Check(context.Background(), dnstest.NewResolver(e.zones), "pass"+zoneSuffix, opts)
	require.Equal(t, Fetched, got.FetchState)
	assert.Greater(t, steps.Load(), int64(2), "the connection, the handshake's records and the response")

	steps.Store(0)
	opts = e.options(&recordingDialer{connect: false})
	opts.Progress = func() { steps.Add(1) }
	got = Check(context.Background(), dnstest.NewResolver(e.zones), "pass"+zoneSuffix, opts)
	require.NotEqual(t, Fetched, got.FetchState)
	assert.Zero(t, steps.Load(), "nothing from a server never reached")
}

// TestCheckCanceled: a caller's context that is already done yields an
// inconclusive result, not an absent record.
func TestCheckCanceled(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := &recordingDialer{connect: true}
	got := Check(ctx, dnstest.NewResolver(e.zones), "pass"+zoneSuffix, e.options(d))
	require.Equal(t, announcement(resolver.Inconclusive, resolver.ReasonCanceled, -1, Inconclusive), got, "Result differs")
}

func TestOptionsPermitted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr          string
		strict, loose bool
	}{
		{"1.1.1.1", true, true},
		{"2606:4700:4700::1111", true, true},
		{"::ffff:8.8.8.8", true, true},
		{"127.0.0.1", false, true},
		{"127.255.0.9", false, true},
		{"::1", false, true},
		{"::ffff:127.0.0.1", false, true},
		{"10.0.0.1", false, false},
		{"169.254.169.254", false, false},
		{"fe80::1", false, false},
		{"fe80::1%lo", false, false},
		{"::", false, false},
	}
	for _, tc := range tests {
		a := mustAddr(t, tc.addr)
		assert.Equal(t, tc.strict, (Options{}).Permitted(a), "Permitted(%s)", tc.addr)
		assert.Equal(t, tc.loose, (Options{AllowLoopback: true}).Permitted(a), "AllowLoopback: Permitted(%s)", tc.addr)
	}
}

func TestPolicyURL(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "https://mta-sts.example.com/.well-known/mta-sts.txt", policyURL("mta-sts.example.com", 443), "policyURL")
	assert.Equal(t, "https://mta-sts.example.com:8443/.well-known/mta-sts.txt", policyURL("mta-sts.example.com", 8443), "policyURL")
}

// freePort returns a loopback port with no listener, out of the way of
// port-0 binds (testport.Daemon), so that no socket takes it meanwhile.
func freePort(t *testing.T) int {
	t.Helper()
	return testport.Daemon(t)
}

func mustAddr(t *testing.T, s string) netip.Addr {
	t.Helper()
	a, err := netip.ParseAddr(s)
	require.NoError(t, err)
	return a
}

// TestCheckFanOutBounded: a policy host with 300 public IPv4 and 300
// public IPv6 addresses costs at most MaxAddrsPerFamily connection
// attempts per family, IPv4 first, each in answer order. The recording dialer fails every dial without sending a packet.
func TestCheckFanOutBounded(t *testing.T) {
	t.Parallel()
	var zone strings.Builder
	zone.WriteString("$ORIGIN fanout.test.\n@ SOA ns.fanout.test. h.fanout.test. 1 3600 600 86400 60\n")
	zone.WriteString("_mta-sts TXT \"v=STSv1; id=1;\"\n")
	for i := range 300 {
		fmt.Fprintf(&zone, "mta-sts A 8.%d.%d.1\n", i/250, i%250+1)
		fmt.Fprintf(&zone, "mta-sts AAAA 2606:4700:%x::1\n", i+1)
	}
	z := dnstest.MustParse(t, zone.String())
	d := &recordingDialer{connect: false}
	got := Check(context.Background(), dnstest.NewResolver(z), "fanout.test", Options{Timeout: 5 * time.Second, Dial: d.Dial})
	assert.Equal(t, Unreachable, got.FetchState, "fetch state, want unreachable")
	want := []string{"8.0.1.1:443", "8.0.2.1:443", "[2606:4700:1::1]:443", "[2606:4700:2::1]:443"}
	require.Equal(t, want, d.Calls(), "dialed addresses")
}

// TestDialPlan: duplicates dropped (also in IPv4-mapped form), refused addresses counted, two per
// family, IPv4 first.
func TestDialPlan(t *testing.T) {
	t.Parallel()
	in := []netip.Addr{
		netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("8.8.8.8"), netip.MustParseAddr("8.8.8.8"),
		netip.MustParseAddr("::ffff:8.8.8.8"), netip.MustParseAddr("2606:4700::1"), netip.MustParseAddr("::ffff:1.1.1.1"), netip.MustParseAddr("9.9.9.9"),
		netip.MustParseAddr("fd00::1"), netip.MustParseAddr("2606:4700::2"), netip.MustParseAddr("2606:4700::3"),
	}
	plan, refused := dialPlan(in, Options{})
	want := []netip.Addr{netip.MustParseAddr("8.8.8.8"), netip.MustParseAddr("1.1.1.1"), netip.MustParseAddr("2606:4700::1"), netip.MustParseAddr("2606:4700::2")}
	assert.Equal(t, want, plan, "plan %v refused %d, want %v and 2", plan, refused, want)
	assert.Equal(t, 2, refused, "plan %v refused %d, want %v and 2", plan, refused, want)
}
