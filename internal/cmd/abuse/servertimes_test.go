package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestTimedResolverTimesStartedLookups: the scans start their lookups
// (resolver.Starter) rather than call Lookup; the well-behaved client's
// are timed either way, the others not.
func TestTimedResolverTimesStartedLookups(t *testing.T) {
	srv := dnstest.Start(t, dnstest.MustParse(t, "$ORIGIN good.example.\n@ A 127.0.0.1\n"))
	times := &serverTimes{}
	r := timedResolver{Client: srv.Client(0), times: times}
	good := context.WithValue(t.Context(), goodKey{}, &goodRequest{})

	require.Equal(t, resolver.Found, resolver.Begin(good, r, "good.example", resolver.TypeA).Wait().Outcome)
	require.Equal(t, resolver.Found, r.Lookup(good, "good.example", resolver.TypeA).Outcome)
	require.Equal(t, resolver.Found, resolver.Begin(t.Context(), r, "good.example", resolver.TypeA).Wait().Outcome)
	times.mu.Lock()
	defer times.mu.Unlock()
	assert.Len(t, times.lookup, 2, "the well-behaved client's started and looked-up questions are timed, no other")
}
