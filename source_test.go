package mailauth

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
