package mailauth

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/report/reporttest"
	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/redact"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// fixedNow is the clock of the end-to-end tests, so golden files are stable.
var fixedNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

const scanZone = "testdata/zones/scan.zone"

// policies are the MTA-STS policies the lab serves.
var policies = map[string]string{
	"mta-sts.good.example.com":  "version: STSv1\nmode: enforce\nmx: mx1.good.example.com\nmax_age: 604800\n",
	"mta-sts.flaky.example.com": "version: STSv1\nmode: enforce\nmx: *.flaky.example.com\nmax_age: 86400\n",
}

// newLabScanner starts the loopback lab and a Scanner that uses it over
// real UDP/TCP and HTTPS.
func newLabScanner(t *testing.T, zones ...string) (*Scanner, *testlab.Lab) {
	t.Helper()
	lab := testlab.Start(t, zones, policies)
	return knowsResolver(t, labScanner(lab, lab.DNS.PatientClient())), lab
}

// labScanner is the Scanner of newLabScanner over r.
func labScanner(lab *testlab.Lab, r resolver.Resolver) *Scanner {
	return New(Config{
		// Every time-out here bounds a hang, not speed: an answer a
		// loaded machine delivers late is still the answer.
		Resolver:             r,
		HTTPSPort:            lab.HTTPSPort,
		RootCAs:              lab.RootCAs,
		AllowLoopbackTargets: true,
		FetchTimeout:         30 * time.Second,
		ScanTimeout:          time.Minute,
		Now:                  func() time.Time { return fixedNow },
	})
}

// oneApart is a lab Client that asks one question through a Client of
// its own (apart), whose timeout ends a lookup the client waits out (its
// reply undecodable): that time-out must pass after the reply came, so
// it is long, while the lookup waits for nothing else. Probe is the
// main Client's.
type oneApart struct {
	*resolver.Client
	apart *resolver.Client
	name  string
	qtype resolver.Type
}

func (o oneApart) pick(name string, qtype resolver.Type) *resolver.Client {
	if resolver.CanonicalName(name) == resolver.CanonicalName(o.name) && qtype == o.qtype {
		return o.apart
	}
	return o.Client
}

func (o oneApart) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	return o.pick(name, qtype).Lookup(ctx, name, qtype)
}

func (o oneApart) Start(ctx context.Context, name string, qtype resolver.Type, done func(resolver.Answer)) {
	o.pick(name, qtype).Start(ctx, name, qtype, done)
}

func TestScanEndToEnd(t *testing.T) {
	tests := []struct {
		name   string
		req    ScanRequest
		faults []string // names answered with SERVFAIL
		grade  Grade
		score  int
	}{
		{name: "good", req: ScanRequest{Domain: "good.example.com", DKIMSelector: "s1", SendingIP: "8.8.8.8"}, grade: GradeA, score: 100},
		{name: "bare", req: ScanRequest{Domain: "https://Bare.Example.com/contact"}, grade: GradeF},
		{name: "weak", req: ScanRequest{Domain: "postmaster@weak.example.com"}},
		{name: "parked", req: ScanRequest{Domain: "parked.example.com"}},
		{name: "flaky", req: ScanRequest{Domain: "flaky.example.com"}, faults: []string{
			"_dmarc.flaky.example.com", "_mta-sts.flaky.example.com", "mx1.flaky.example.com", "flaky.example.com/CAA",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, lab := newLabScanner(t, scanZone)
			for _, f := range tc.faults {
				name, qtype := f, dnstest.AnyType
				if n, ok := strings.CutSuffix(f, "/CAA"); ok {
					name, qtype = n, resolver.TypeCAA
				}
				lab.DNS.SetFault(name, qtype, dnstest.ServFail)
			}
			got, err := s.Scan(context.Background(), tc.req)
			require.NoError(t, err, "Scan")
			body := marshal(t, got)
			reporttest.Validate(t, "ScanSummary", body)
			checkInvariants(t, got)
			if tc.grade != "" {
				assert.Equal(t, tc.grade, got.Grade, "grade = %s, want %s", got.Grade, tc.grade)
			}
			if tc.grade == GradeA {
				assert.Equal(t, tc.score, got.Score, "score = %d, want %d", got.Score, tc.score)
			}
			noZoneData(t, body, scanZone, policies, tc.req)
			golden(t, "scan-"+tc.name+".json", body)
		})
	}
}

func TestCheckIPEndToEnd(t *testing.T) {
	s, _ := newLabScanner(t, scanZone)
	for _, tc := range []struct{ name, ip string }{{"confirmed", "8.8.8.8"}, {"no-ptr", "8.8.4.4"}, {"mapped", "::ffff:8.8.8.8"}} {
		t.Run(tc.name, func(t *testing.T) {
			addr := mustAddr(t, tc.ip)
			got, err := s.CheckIP(context.Background(), addr)
			require.NoError(t, err, "CheckIP")
			body := marshal(t, got)
			reporttest.Validate(t, "PtrCheckSummary", body)
			require.Equal(t, CheckPTR, got.Check.ID, "check = %+v", got.Check)
			require.NotNil(t, got.Check.Diagnostics, "check = %+v", got.Check)
			golden(t, "ptr-"+tc.name+".json", body)
		})
	}
}

// checkInvariants asserts what every ScanSummary must satisfy.
func checkInvariants(t *testing.T, s ScanSummary) {
	t.Helper()
	require.Len(t, s.Checks, len(CheckOrder()), "%d checks, want %d", len(s.Checks), len(CheckOrder()))
	for i, c := range s.Checks {
		assert.Equal(t, CheckOrder()[i], c.ID, "check %d is %s, want %s", i, c.ID, CheckOrder()[i])
	}
	c := s.Counts
	assert.Equal(t, len(CheckOrder()), c.Pass+c.Warn+c.Fail+c.Info, "counts %+v do not sum to the number of checks", c)
	assert.Equal(t, score(s.Checks), s.Score, "score %d grade %s disagree with the checks", s.Score, s.Grade)
	assert.Equal(t, gradeFor(s.Score), s.Grade, "score %d grade %s disagree with the checks", s.Score, s.Grade)
}

// noZoneData proves that no value from the zone file or the policies,
// other than the request's own inputs, reaches the output.
func noZoneData(t *testing.T, body []byte, zoneFile string, pol map[string]string, req ScanRequest) {
	t.Helper()
	z := dnstest.MustLoad(t, zoneFile)
	set := redact.NewSet()
	set.UseVocabulary(outputVocabulary())
	for _, n := range z.Names() {
		for _, rr := range z.Records(n) {
			fields := strings.Fields(rr)
			if len(fields) >= 5 {
				set.AddText(strings.Join(fields[4:], " ")) // RDATA
			}
		}
	}
	for host, p := range pol {
		set.Add(host)
		set.AddText(p)
	}
	d, err := NormalizeDomain(req.Domain)
	require.NoError(t, err)
	set.Allow(d.ASCII, d.Unicode, req.DKIMSelector, req.SendingIP)
	for p := parentOf(d.ASCII); p != ""; p = parentOf(p) {
		set.Allow(p)
	}
	require.NoError(t, set.Verify(body), "output carries zone data:\n%s", body)
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(v))
	return buf.Bytes()
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -run %s -update to create it", t.Name())
	assert.Equal(t, string(want), string(got), "output differs from %s (run with -update after reviewing)", path)
}

func mustAddr(t *testing.T, s string) netip.Addr {
	t.Helper()
	a, err := netip.ParseAddr(s)
	require.NoError(t, err)
	return a
}
