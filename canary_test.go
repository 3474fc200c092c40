package mailauth

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver"
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
		Resolver:  &resolver.Client{Servers: []string{lab.DNS.Addr()}, Timeout: time.Second, Attempts: 1},
		HTTPSPort: lab.HTTPSPort, RootCAs: lab.RootCAs, AllowLoopbackTargets: true,
		Now:    func() time.Time { return fixedNow },
		OnLeak: func(n int) { leaks += n },
	})
	for _, req := range []ScanRequest{
		{Domain: "leak.example.com", DKIMSelector: "sel", SendingIP: "8.8.8.8"},
		{Domain: "leak.example.com", SendingIP: "2001:4860:4860::8888"},
	} {
		got, err := s.Scan(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		body := marshal(t, got)
		if strings.Contains(strings.ToLower(string(body)), "kanari") {
			t.Fatalf("a canary reached the output:\n%s", body)
		}
		noZoneData(t, body, "testdata/zones/canary.zone", nil, req)
		// The scan must actually have read the canaries: every check
		// evaluated something (no check is inconclusive).
		for _, c := range got.Checks {
			if c.Summary == txtInconclusive.with() || c.Summary == txtInternal.with() {
				t.Errorf("%s was not evaluated (%s); the canaries were not exercised", c.ID, c.Summary.EN)
			}
		}
	}
	ip, err := s.CheckIP(context.Background(), mustAddr(t, "8.8.8.8"))
	if err != nil {
		t.Fatal(err)
	}
	if body := marshal(t, ip); strings.Contains(strings.ToLower(string(body)), "kanari") {
		t.Fatalf("a canary reached the ptr-check output:\n%s", body)
	}
	if leaks != 0 {
		t.Fatalf("the redaction guard replaced %d texts: a text carries wire data", leaks)
	}
}
