package mailauth

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestGeneratedValuesAreNotLeaks: TXT records crafted to coincide with
// what the service prints itself — pieces of the scan's timestamp ("1T12"
// of 2026-11-21T12:00:00Z) and of its printed counts ("3 of 5") — neither
// withhold the result nor raise a leak alarm.
func TestGeneratedValuesAreNotLeaks(t *testing.T) {
	var zone strings.Builder
	zone.WriteString("$ORIGIN gen.example.com.\n@ MX 10 mx\nmx A 8.8.8.8\n@ TXT \"v=spf1 -all\"\n")
	zone.WriteString("@ TXT \"1T12\"\n@ TXT \"21t12:00\"\n@ TXT \"2026-11-21T12\"\n")
	for n := 0; n <= 8; n++ {
		for m := n; m <= 8; m++ {
			fmt.Fprintf(&zone, "@ TXT \"%d of %d\"\n", n, m)
		}
	}
	zone.WriteString("_dmarc TXT \"v=DMARC1; p=reject\"\n")
	leaks := 0
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, zone.String())), Now: func() time.Time { return fixedNow }, OnLeak: func(_ string, n int) { leaks += n }})
	// A check text replaced by the guard, or a result withheld, is
	// reported through OnLeak: leaks counts both.
	_, err := s.Scan(context.Background(), ScanRequest{Domain: "gen.example.com"})
	require.NoError(t, err, "scan withheld")
	_, err = s.CheckIP(context.Background(), mustAddr(t, "8.8.8.8"))
	require.NoError(t, err, "ptr-check withheld")
	require.Equal(t, 0, leaks, "guard raised %d leak alarms for values the service generated", leaks)
}

// TestGeneratedValuesStillGuarded: a real wire value is still caught next
// to the generated timestamp and printed numbers.
func TestGeneratedValuesStillGuarded(t *testing.T) {
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ A 8.8.8.8\n")), Now: func() time.Time { return fixedNow }})
	r := s.newRun()
	r.guard.AddText("v=spf1 include:kanari-gen.example.net -all")
	r.markGenerated(fixedNow, LocalizedText{EN: "3 of 5 evaluated checks pass.", ZH: "3"})
	sum := ScanSummary{Domain: "x.example.com", ScannedAt: fixedNow, Summary: LocalizedText{EN: "3 of 5 evaluated checks pass. kanari-gen.example.net", ZH: "好"}}
	require.Error(t, r.verifyOnly(sum), "a wire value next to generated numbers was not caught")
}

// TestNextDigitRun: the digit runs of a text, in order, each maximal.
func TestNextDigitRun(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"no digits", nil},
		{"7", []string{"7"}},
		{"3 of 5 evaluated checks pass.", []string{"3", "5"}},
		{"12ab345", []string{"12", "345"}},
		{"x2026-11-24T05:00:00Z", []string{"2026", "11", "24", "05", "00", "00"}},
		{"共 10 项检查，8 项通过", []string{"10", "8"}},
	} {
		var got []string
		for n, at := nextDigitRun(tc.in, 0); n != ""; n, at = nextDigitRun(tc.in, at) {
			got = append(got, n)
		}
		assert.Equal(t, tc.want, got, "%q", tc.in)
	}
}
