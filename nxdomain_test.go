package mailauth

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNXDomainSummaryFirst: the overall summary of a name that does not
// exist names it and says so before anything else, in both languages;
// a domain that exists keeps the plain summary.
func TestNXDomainSummaryFirst(t *testing.T) {
	s := memScanner(t, nil, Config{})
	got, err := s.Scan(context.Background(), ScanRequest{Domain: "alpah-mail.example.com"})
	require.NoError(t, err)
	want := txtOverallNXDomain.format()
	assert.True(t, strings.HasPrefix(got.Summary.EN, "alpah-mail.example.com "+want.EN), got.Summary.EN)
	assert.True(t, strings.HasPrefix(got.Summary.ZH, "alpah-mail.example.com "+want.ZH), got.Summary.ZH)
	assert.Contains(t, got.Summary.EN, "does not exist in the DNS — check the spelling.")
	assert.Contains(t, got.Summary.EN, overallTexts[got.Grade].format(got.Counts.Pass, got.Counts.Pass+got.Counts.Warn+got.Counts.Fail).EN,
		"the graded summary follows")
	for _, c := range got.Checks {
		if c.ID == CheckMX {
			assert.Equal(t, mxNXDomain.say.format(), c.Summary)
		}
	}

	good, err := s.Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
	require.NoError(t, err)
	assert.NotContains(t, good.Summary.EN, want.EN)
}
