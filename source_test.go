package mailauth

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/redact"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestLeakAlarmCarriesSource: the source tag of a scan's context reaches
// OnLeak with the count (mailauth serve limits its alarms per source).
func TestLeakAlarmCarriesSource(t *testing.T) {
	assert.Empty(t, Source(t.Context()), "an untagged context has no source")
	var got []string
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ A 8.8.8.8\n")),
		OnLeak: func(source string, n int) { got = append(got, source) }})
	r := s.newRun()
	r.source = Source(WithSource(t.Context(), "2001:db8:1:2::/64"))
	r.guard.AddText("v=spf1 include:kanari-source.example.net -all")
	sum := ScanSummary{Domain: "x.example.com", Summary: LocalizedText{EN: "kanari-source.example.net", ZH: "好"}}
	require.ErrorIs(t, r.verifyOnly(sum), ErrLeakBlocked)
	assert.Equal(t, []string{"2001:db8:1:2::/64"}, got)
}

// TestGuardFullHookNotLeak: a result the redaction guard cannot vouch
// for because a value arrived when it was full is withheld
// (ErrLeakBlocked) and reported through OnGuardFull with the scan's
// source, not through OnLeak: a zone's size, not a bug.
func TestGuardFullHookNotLeak(t *testing.T) {
	var full []string
	leaks := 0
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ A 8.8.8.8\n")),
		OnLeak: func(string, int) { leaks++ }, OnGuardFull: func(source string) { full = append(full, source) }})
	r := s.newRun()
	r.source = Source(WithSource(t.Context(), "192.0.2.0/24"))
	for i := 0; !r.guard.Overflowed(); i++ {
		require.LessOrEqual(t, i, redact.MaxValues, "the guard never filled")
		r.guard.Add(fmt.Sprintf("filler%d.example.net", i))
	}
	sum := ScanSummary{Domain: "x.example.com", Summary: LocalizedText{EN: "fine", ZH: "好"}}
	require.ErrorIs(t, r.verifyOnly(sum), ErrLeakBlocked)
	assert.Equal(t, []string{"192.0.2.0/24"}, full)
	assert.Zero(t, leaks)
}
