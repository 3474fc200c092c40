package spf

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// The OpenSPF RFC 7208 test suite (release 2014.04), vendored from
// Debian's python3-spf as testdata/rfc7208-tests.yml with its licence
// (testdata/rfc7208-tests.LICENSE), and converted to
// testdata/rfc7208-tests.json by testdata/rfc7208tojson.py, because our
// dependencies have no YAML reader.
const (
	suiteYAML = "testdata/rfc7208-tests.yml"
	suiteJSON = "testdata/rfc7208-tests.json"
)

// suite is the JSON form of the test suite.
type suite struct {
	Source       string          `json:"source"`
	SourceSHA256 string          `json:"source_sha256"`
	Scenarios    []suiteScenario `json:"scenarios"`
}

type suiteScenario struct {
	Description string                       `json:"description"`
	Zonedata    map[string][]json.RawMessage `json:"zonedata"`
	Tests       []suiteCase                  `json:"tests"`
}

type suiteCase struct {
	Name     string   `json:"name"`
	Spec     string   `json:"spec"`
	HELO     string   `json:"helo"`
	Host     string   `json:"host"`
	MailFrom string   `json:"mailfrom"`
	Result   []string `json:"result"`
}

func loadSuite(t *testing.T) suite {
	t.Helper()
	b, err := os.ReadFile(suiteJSON)
	require.NoError(t, err)
	var s suite
	require.NoError(t, json.Unmarshal(b, &s), "%s", suiteJSON)
	return s
}

// TestOpenSPFSuiteSource checks that the JSON was generated from the
// committed YAML: rerun testdata/rfc7208tojson.py after changing it.
func TestOpenSPFSuiteSource(t *testing.T) {
	t.Parallel()
	s := loadSuite(t)
	raw, err := os.ReadFile(suiteYAML)
	require.NoError(t, err)
	sum := sha256.Sum256(raw)
	got := hex.EncodeToString(sum[:])
	require.Equal(t, s.SourceSHA256, got, "%s has SHA-256 %s, but %s was generated from %s: run python3 spf/testdata/rfc7208tojson.py", suiteYAML, got, suiteJSON, s.SourceSHA256)
	n := 0
	for _, sc := range s.Scenarios {
		n += len(sc.Tests)
	}
	want := strings.Count(string(raw), "\n    result:")
	require.Equal(t, want, n, "the JSON has %d cases, the YAML %d", n, want)
	require.NotZero(t, n, "the JSON has %d cases, the YAML %d", n, want)
}

// ambiguous lists the cases for which RFC 7208 allows more than one
// result; the suite lists each of them, any listed result is accepted, and
// the value is the one Evaluate gives, with the reason. TestOpenSPFSuite
// fails when this list and the suite's cases with several results differ,
// or when Evaluate gives another of the accepted results.
var ambiguous = map[string]Verdict{
	// Two SPF records: permerror (§4.5); fail was the result of
	// evaluators that checked type SPF first.
	"multispf1": VerdictPermError,
	// A mechanism target with an empty label, or too long after macro
	// expansion: §4.8 and §5 let the evaluator treat the name as
	// matching nothing (fail from -all) or as a syntax problem
	// (permerror). Evaluate matches nothing, as pyspf does.
	"invalid-domain-empty-label":    VerdictFail,
	"invalid-domain-long":           VerdictFail,
	"invalid-domain-long-via-macro": VerdictFail,
	// %{p} with several validated names: "any name from the list can be
	// used" (§7.3); Evaluate prefers the current domain or a subdomain,
	// then the first name of the PTR answer.
	"p-macro-multiple": VerdictPass,
	// More than 10 PTR names: the names past MaxPTRNames are ignored
	// (§4.6.4), so the match depends on which ten a resolver returns;
	// here the matching name is the eleventh.
	"ptr-limit": VerdictNeutral,
}

// TestOpenSPFSuite runs every case of the suite through Evaluate, with
// each scenario's zone data served by the in-memory dnstest resolver (a
// TIMEOUT entry becomes a dropped reply), and accepts any result the
// suite lists.
func TestOpenSPFSuite(t *testing.T) {
	t.Parallel()
	runSuite(t, func(t *testing.T, z *dnstest.Zones, faults []dnstest.FaultAt) resolver.Resolver {
		r := dnstest.NewResolver(z)
		r.Apply(faults...)
		return r
	})
}

// TestOpenSPFSuiteServer runs the suite again over the wire: the loopback
// dnstest server and resolver.Client, so names with escaped octets and
// timeouts go through a real client. Each scenario gets its own server.
func TestOpenSPFSuiteServer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the in-memory run covers the suite in -short mode")
	}
	servers := map[*dnstest.Zones]*dnstest.Server{}
	runSuite(t, func(_ *testing.T, z *dnstest.Zones, faults []dnstest.FaultAt) resolver.Resolver {
		srv, ok := servers[z]
		if !ok {
			srv = dnstest.Start(t, z) // the parent test: one server per scenario
			srv.Apply(faults...)
			servers[z] = srv
		}
		return srv.PatientResolver()
	})
}

// runSuite runs every case with the resolver newResolver gives for the
// case's scenario.
func runSuite(t *testing.T, newResolver func(*testing.T, *dnstest.Zones, []dnstest.FaultAt) resolver.Resolver) {
	s := loadSuite(t)
	total, several := 0, 0
	for _, sc := range s.Scenarios {
		for _, tc := range sc.Tests {
			if len(tc.Result) > 1 {
				several++
			}
			_, listed := ambiguous[tc.Name]
			assert.Equal(t, len(tc.Result) > 1, listed, "%s: the suite accepts %v; update the list of ambiguous cases", tc.Name, tc.Result)
		}
		z, faults := suiteZones(t, sc)
		for _, tc := range sc.Tests {
			total++
			t.Run(tc.Name, func(t *testing.T) {
				r := newResolver(t, z, faults)
				ip, err := netip.ParseAddr(tc.Host)
				require.NoError(t, err, "host %q", tc.Host)
				ev, err := Evaluate(t.Context(), r, Query{IP: ip, Sender: tc.MailFrom, HELO: tc.HELO})
				require.NoError(t, err)
				if want, ok := ambiguous[tc.Name]; ok {
					assert.Equal(t, want, ev.Verdict, "%s: got %s, one of %v, but the list of ambiguous cases says %s", tc.Name, ev.Verdict, tc.Result, want)
				}
				assert.Contains(t, tc.Result, string(ev.Verdict), "%s (spec %s, %s): got %s (%s %s term %d depth %d, %d lookups, %d voids), want one of %v",
					tc.Name, tc.Spec, sc.Description, ev.Verdict, ev.Reason, ev.Cause, ev.Term, ev.Depth, ev.Lookups, ev.VoidLookups, tc.Result)
			})
		}
	}
	assert.Equal(t, len(ambiguous), several, "the suite has %d cases with several results, the list %d", several, len(ambiguous))
	require.GreaterOrEqual(t, total, 200, "only %d cases ran", total)
}

// suiteZones builds the zones of a scenario as the suite's drivers do:
// an SPF (type 99) record is also served as TXT unless the name has TXT
// records of its own; "NONE" means no record; a bare TIMEOUT makes every
// question about the name whose type has no record listed before it time
// out.
func suiteZones(t *testing.T, sc suiteScenario) (*dnstest.Zones, []dnstest.FaultAt) {
	t.Helper()
	var zone strings.Builder
	var faults []dnstest.FaultAt
	for name, recs := range sc.Zonedata {
		owner := zoneName(name)
		if owner == "" {
			continue // a label over 63 octets: no zone can hold it, and Evaluate never asks
		}
		seen := map[resolver.Type]bool{}
		var spfs []string
		hasTXT, timeout := false, false
		for _, raw := range recs {
			var bare string
			if json.Unmarshal(raw, &bare) == nil {
				if bare == "TIMEOUT" {
					timeout = true
					break
				}
				require.FailNow(t, fmt.Sprintf("%s: unknown entry %q", name, bare))
			}
			var m map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(raw, &m), "%s", name)
			for typ, v := range m {
				line, qtype := zoneLine(t, owner, typ, v)
				seen[qtype] = seen[qtype] || line != "" // NONE: no record, still times out
				switch typ {
				case "TXT":
					hasTXT = true
				case "SPF":
					if line != "" {
						spfs = append(spfs, strings.Replace(line, " SPF ", " TXT ", 1))
					}
				}
				if line != "" {
					zone.WriteString(line + "\n")
				}
			}
		}
		if timeout {
			for _, qt := range []resolver.Type{resolver.TypeA, resolver.TypeAAAA, resolver.TypeMX, resolver.TypeTXT, resolver.TypePTR, resolver.TypeSPF, resolver.TypeCNAME} {
				if !seen[qt] {
					faults = append(faults, dnstest.FaultAt{Name: owner, Type: qt, Fault: dnstest.Drop})
				}
			}
			continue // generated TXT records come after TIMEOUT: never reached
		}
		if !hasTXT {
			for _, l := range spfs {
				zone.WriteString(l + "\n")
			}
		}
	}
	z, err := dnstest.Parse(zone.String(), ".")
	require.NoError(t, err, "%s\n%s", sc.Description, zone.String())
	return z, faults
}

// zoneLine renders one zone-data entry as a zone-file line; "" for the
// NONE placeholder.
func zoneLine(t *testing.T, owner, typ string, v json.RawMessage) (string, resolver.Type) {
	t.Helper()
	var s string
	var list []json.RawMessage
	isString := json.Unmarshal(v, &s) == nil
	if !isString {
		require.NoError(t, json.Unmarshal(v, &list), "%s %s: %s", owner, typ, v)
	}
	switch typ {
	case "A", "AAAA", "PTR", "CNAME":
		qt := map[string]resolver.Type{"A": resolver.TypeA, "AAAA": resolver.TypeAAAA, "PTR": resolver.TypePTR, "CNAME": resolver.TypeCNAME}[typ]
		if typ == "PTR" || typ == "CNAME" {
			s = zoneName(s)
		}
		return fmt.Sprintf("%s 300 IN %s %s", owner, typ, s), qt
	case "MX":
		var pref int
		var host string
		require.Len(t, list, 2, "%s MX: %s", owner, v)
		require.NoError(t, json.Unmarshal(list[0], &pref), "%s MX: %s", owner, v)
		require.NoError(t, json.Unmarshal(list[1], &host), "%s MX: %s", owner, v)
		return fmt.Sprintf("%s 300 IN MX %d %s", owner, pref, zoneName(host)), resolver.TypeMX
	case "TXT", "SPF":
		qt := resolver.TypeTXT
		if typ == "SPF" {
			qt = resolver.TypeSPF
		}
		var strs []string
		if isString {
			if s == "NONE" {
				return "", qt
			}
			strs = []string{s}
		} else {
			for _, x := range list {
				var e string
				require.NoError(t, json.Unmarshal(x, &e), "%s %s: %s", owner, typ, v)
				strs = append(strs, e)
			}
		}
		return fmt.Sprintf("%s 300 IN %s %s", owner, typ, txtData(strs)), qt
	}
	require.FailNow(t, fmt.Sprintf("%s: unknown type %s", owner, typ))
	return "", 0
}

// zoneName writes a name in presentation form, fully qualified, with the
// octets that are special in zone files escaped; "" when a label is over
// 63 octets.
func zoneName(name string) string {
	for _, l := range strings.Split(strings.TrimSuffix(name, "."), ".") {
		if len(l) > 63 {
			return ""
		}
	}
	return presentationName(strings.TrimSuffix(name, ".")) + "."
}

// txtData writes character-strings in zone-file form, splitting strings
// longer than 255 octets; no string at all is one empty string.
func txtData(strs []string) string {
	if len(strs) == 0 {
		strs = []string{""}
	}
	var b strings.Builder
	for _, s := range strs {
		for first := true; first || s != ""; first = false {
			chunk := s[:min(len(s), 255)]
			s = s[len(chunk):]
			b.WriteString(` "`)
			for i := 0; i < len(chunk); i++ {
				c := chunk[i]
				switch {
				case c == '"' || c == '\\':
					b.WriteByte('\\')
					b.WriteByte(c)
				case c < 0x20 || c >= 0x7f:
					fmt.Fprintf(&b, "\\%03d", c)
				default:
					b.WriteByte(c)
				}
			}
			b.WriteByte('"')
		}
	}
	return b.String()
}
