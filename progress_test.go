package mailauth

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestScanProgress: a scan counts its DNS replies in the Progress its
// context carries; lookups that time out are not replies.
func TestScanProgress(t *testing.T) {
	t.Parallel()
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ A 8.8.8.8\n@ MX 10 mx.x.example.com.\nmx A 8.8.4.4\n"))})
	var p Progress
	assert.True(t, p.Last().IsZero())
	_, err := s.Scan(WithProgress(t.Context(), &p), ScanRequest{Domain: "x.example.com"})
	require.NoError(t, err)
	assert.Positive(t, p.Answers())
	assert.False(t, p.Last().IsZero())
	assert.Contains(t, p.Last().String(), " m=", "the time of the last reply carries a monotonic reading: a step of the wall clock does not make the scan look stalled")
	assert.False(t, p.Last().After(time.Now()))

	silent := New(Config{Resolver: resolver.Func(func(context.Context, string, resolver.Type) resolver.Answer {
		return resolver.Fail(resolver.ReasonTimeout)
	})})
	var q Progress
	_, _ = silent.Scan(WithProgress(t.Context(), &q), ScanRequest{Domain: "x.example.com"})
	assert.Zero(t, q.Answers(), "time-outs are no progress")
	assert.True(t, q.Last().IsZero())
}

// TestFetchProgress: the policy fetch of a scan whose context carries a
// Progress moves its Last (a slow MTA-STS server that sends bytes is
// progress, not a stall); without one the fetch reports nothing.
func TestFetchProgress(t *testing.T) {
	t.Parallel()
	assert.Nil(t, fetchProgress(t.Context()))
	var p Progress
	step := fetchProgress(WithProgress(t.Context(), &p))
	require.NotNil(t, step)
	before := time.Now()
	step()
	assert.False(t, p.Last().Before(before))
	assert.Zero(t, p.Answers(), "a fetch step is not a DNS reply")
}
