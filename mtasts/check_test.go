package mtasts

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

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
// admitted, and a dialer that connects only to loopback.
func (e *testEnv) options(d *recordingDialer) Options {
	return Options{Port: e.srv.Port, RootCAs: e.srv.CA.pool, AllowLoopback: true, Timeout: 5 * time.Second, Dial: d.Dial}
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
		if n := e.srv.Hits("redirect-target"); n != 0 {
			t.Errorf("redirect target requested %d times", n)
		}
		if n := e.srv.Hits("redirect"); n != 1 {
			t.Errorf("redirecting host requested %d times, want 1", n)
		}
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
				if n := r.Count("mta-sts.not-in-zone.mtasts.test", dnstest.AnyType); n != 0 {
					t.Errorf("policy host looked up %d times without an announcement", n)
				}
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
			assertResult(t, got, tc.want)
			if tc.dials != nil {
				want := make([]string, 0, len(tc.dials))
				for _, a := range tc.dials {
					want = append(want, strings.Replace(a, "PORT", strconv.Itoa(e.srv.Port), 1))
				}
				if calls := d.Calls(); !reflect.DeepEqual(append([]string{}, calls...), want) {
					t.Errorf("dialed %q, want %q", calls, want)
				}
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
	if got.FetchState != Fetched || got.PolicyValid == nil || !*got.PolicyValid || got.HTTPStatus != 200 || got.Findings != nil {
		t.Fatalf("a body of exactly MaxPolicySize: %+v", got.Findings)
	}
	if got.PolicyMode != ModeEnforce || got.MaxAge == nil || *got.MaxAge != 604800 || got.MXPatternCount == nil || *got.MXPatternCount != 1 || len(got.Policy.Extensions) < 500 {
		t.Fatalf("policy not parsed whole: mode %q max_age %v patterns %v extensions %d",
			got.PolicyMode, got.MaxAge, got.MXPatternCount, len(got.Policy.Extensions))
	}
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
				assertResult(t, got, notFetched(Unreachable, 0, CodePolicyHostNonPublic))
				if calls := d.Calls(); len(calls) != 0 {
					t.Fatalf("the dialer beneath the guard was reached: %q", calls)
				}
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
		assertResult(t, got, notFetched(Unreachable, 0, CodePolicyConnectFailed, CodePolicyHostNonPublic))
		if calls, want := d.Calls(), []string{"[2606:4700:4700::1111]:443"}; !reflect.DeepEqual(calls, want) {
			t.Fatalf("allow-loopback=%v: dialed %q, want only %q", allow, calls, want)
		}
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
			got := Check(context.Background(), srv.Client(200*time.Millisecond), tc.name+zoneSuffix, e.options(d))
			assertResult(t, got, tc.want)
			if tc.tcp != "" {
				if srv.CountOver(tc.tcp, dnstest.AnyType, "tcp") == 0 {
					t.Errorf("%s was never asked over TCP", tc.tcp)
				}
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
		if !reflect.DeepEqual(seen, want) {
			t.Fatalf("%s: observed %q, want %q", label, seen, want)
		}
		got.Policy = Policy{}
		out := fmt.Sprintf("%#v", got)
		for _, v := range seen {
			if strings.Contains(out, v) {
				t.Fatalf("%s: Result carries observed value %q: %s", label, v, out)
			}
		}
	}
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
	assertResult(t, got, announcement(resolver.Inconclusive, resolver.ReasonCanceled, -1, Inconclusive))
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
		if got := (Options{}).Permitted(a); got != tc.strict {
			t.Errorf("Permitted(%s) = %v", tc.addr, got)
		}
		if got := (Options{AllowLoopback: true}).Permitted(a); got != tc.loose {
			t.Errorf("AllowLoopback: Permitted(%s) = %v", tc.addr, got)
		}
	}
}

func TestPolicyURL(t *testing.T) {
	t.Parallel()
	if got := policyURL("mta-sts.example.com", 443); got != "https://mta-sts.example.com/.well-known/mta-sts.txt" {
		t.Errorf("policyURL = %q", got)
	}
	if got := policyURL("mta-sts.example.com", 8443); got != "https://mta-sts.example.com:8443/.well-known/mta-sts.txt" {
		t.Errorf("policyURL = %q", got)
	}
}

func assertResult(t *testing.T, got, want Result) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Result differs:\n%s", dnstest.Diff(got, want))
	}
}

// freePort returns a loopback port with no listener.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

func mustAddr(t *testing.T, s string) netip.Addr {
	t.Helper()
	a, err := netip.ParseAddr(s)
	if err != nil {
		t.Fatal(err)
	}
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
	if got.FetchState != Unreachable {
		t.Errorf("fetch state %q, want unreachable", got.FetchState)
	}
	want := []string{"8.0.1.1:443", "8.0.2.1:443", "[2606:4700:1::1]:443", "[2606:4700:2::1]:443"}
	if calls := d.Calls(); !reflect.DeepEqual(calls, want) {
		t.Fatalf("dialed %d addresses %q, want %q", len(calls), calls, want)
	}
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
	if !reflect.DeepEqual(plan, want) || refused != 2 {
		t.Errorf("plan %v refused %d, want %v and 2", plan, refused, want)
	}
}
