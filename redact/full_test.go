package redact

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// fullSet returns a Set that has overflowed: past MaxValues.
func fullSet(t *testing.T) *Set {
	t.Helper()
	s := NewSet()
	// Through addName, as the guard's Resolver records a name: full, not
	// unguarded.
	for i := 0; !s.Overflowed(); i++ {
		require.Less(t, i, MaxValues+1, "the Set never overflowed")
		s.addName(fmt.Sprintf("host%d.filler.example", i))
	}
	return s
}

// TestFullSetFailsLookups: an answer read through the guard's Resolver
// once the Set is full is never handed out (its values could not be
// recorded); the lookup is inconclusive instead, so nothing unguarded
// reaches a check, and Verify still vouches for the output.
func TestFullSetFailsLookups(t *testing.T) {
	z := dnstest.MustParse(t, `$ORIGIN example.test.
@ TXT "v=spf1 include:_spf.secret-canary.test -all"
`)
	open := NewSet().Resolver(dnstest.NewResolver(z)).Lookup(context.Background(), "example.test", resolver.TypeTXT)
	require.Equal(t, resolver.Found, open.Outcome, "with room, the answer is handed out")

	s := fullSet(t)
	a := s.Resolver(dnstest.NewResolver(z)).Lookup(context.Background(), "example.test", resolver.TypeTXT)
	assert.Empty(t, a.Records, "an answer whose values did not fit was handed out")
	assert.Equal(t, resolver.ReasonBudgetExhausted, a.Reason)
	assert.NoError(t, s.Verify([]byte(`{"note":"nothing of the answer"}`)), "a full Set whose lookups failed still vouches for the output")
}

// TestFullSetRefusesToVouch: a value given to Add or AddText that was
// dropped because the Set was full (an MTA-STS policy's text) makes
// Verify refuse the output, whatever it carries: the guard cannot tell.
func TestFullSetRefusesToVouch(t *testing.T) {
	for name, add := range map[string]func(*Set){
		"Add":     func(s *Set) { s.Add("policy-canary.example") },
		"AddText": func(s *Set) { s.AddText("mx: policy-canary.example") },
	} {
		t.Run(name, func(t *testing.T) {
			s := fullSet(t)
			add(s)
			assert.ErrorIs(t, s.Verify([]byte(`{"note":"policy-canary.example"}`)), ErrUnguarded)
			assert.ErrorIs(t, s.Verify([]byte(`{"note":"harmless"}`)), ErrUnguarded, "the dropped value could be anywhere")
			assert.ErrorIs(t, s.Verify([]byte(`{"note":"host7.filler.example"}`)), ErrLeak, "a recorded value found is a leak, counted as one, full guard or not")
			roomy := NewSet()
			add(roomy)
			assert.ErrorIs(t, roomy.Verify([]byte(`{"note":"policy-canary.example"}`)), ErrLeak, "with room the value is recorded and found")
			assert.NoError(t, roomy.Verify([]byte(`{"note":"harmless"}`)))
		})
	}
}
