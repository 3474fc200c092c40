package mailauth

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestNXDomainSummaryFirst: the overall summary of a name that does not
// exist names it and says so, alone, in both languages (no graded
// sentence follows: such a name has no grade to show); Nonexistent tells
// it. A domain that exists keeps the plain summary.
func TestNXDomainSummaryFirst(t *testing.T) {
	s := memScanner(t, nil, Config{})
	got, err := s.Scan(context.Background(), ScanRequest{Domain: "alpah-mail.example.com"})
	require.NoError(t, err)
	want := txtOverallNXDomain.format()
	assert.Equal(t, "alpah-mail.example.com "+want.EN, got.Summary.EN)
	assert.Equal(t, "alpah-mail.example.com "+want.ZH, got.Summary.ZH)
	assert.Contains(t, got.Summary.EN, "does not exist in the DNS — check the spelling.")
	assert.NotContains(t, got.Summary.EN, overallTexts[got.Grade].format(got.Counts.Pass, got.Counts.Pass+got.Counts.Warn+got.Counts.Fail).EN,
		"no graded summary follows")
	assert.True(t, Nonexistent(got), "Nonexistent")
	for _, c := range got.Checks {
		if c.ID == CheckMX {
			assert.Equal(t, mxNXDomain.say.format(), c.Summary)
		}
	}

	good, err := s.Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
	require.NoError(t, err)
	assert.NotContains(t, good.Summary.EN, want.EN)
	assert.False(t, Nonexistent(good), "Nonexistent(good)")
}

// TestNXDomainNotTLD: a name that does not exist and whose last label is
// not a top-level domain of the Public Suffix List's ICANN section
// (".con", a typo of ".com") is told so too; a real TLD, even one the
// list knows only by its default rule's absence, is not.
func TestNXDomainNotTLD(t *testing.T) {
	for _, tc := range []struct {
		ascii, unicode, label string
		not                   bool
	}{
		{"acme-gw.con", "", "con", true},
		{"acme-gw.comm", "", "comm", true},
		{"acme-gw.com", "", "", false},
		{"acme-gw.co.uk", "", "", false},
		{"acme-gw.xn--fiqs8s", "acme-gw.中国", "", false},
		{"acme-gw.xn--zzzz-zz", "acme-gw.zzzz", "zzzz", true},
		{"acme-gw.blogspot.com", "", "", false},
	} {
		label, not := notTLD(tc.ascii, tc.unicode)
		assert.Equal(t, tc.not, not, "%s", tc.ascii)
		assert.Equal(t, tc.label, label, "%s", tc.ascii)
	}
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN com.\nacme-gw.com. A 8.8.8.8\n"))})
	got, err := s.Scan(context.Background(), ScanRequest{Domain: "acme-gw.con"})
	require.NoError(t, err)
	assert.True(t, Nonexistent(got), "Nonexistent(acme-gw.con)")
	assert.True(t, strings.HasSuffix(got.Summary.EN, "\".con\" "+txtNotTLD.format().EN), got.Summary.EN)
	assert.True(t, strings.HasSuffix(got.Summary.ZH, "“.con” "+txtNotTLD.format().ZH), got.Summary.ZH)
}

// TestPTRNameInsideTheTypedDomainIsNotALeak: a name that does not exist
// is named in the summary; when the sending IP's PTR name is a piece of
// it not aligned on a label ("p.example.com" in "shop.example.com",
// "example.com" in "myexample.com"), the sentence still carries only
// what the caller typed, and the scan is not withheld. The PTR name on
// its own is still a leak (see the redact package's tests).
func TestPTRNameInsideTheTypedDomainIsNotALeak(t *testing.T) {
	for _, tc := range []struct{ domain, ptr string }{
		{"shop.example.com", "p.example.com."},
		{"myexample.com", "example.com."},
		{"x.c1.cf.example.com", "f.example.com."},
	} {
		z := dnstest.MustParse(t, "$ORIGIN example.com.\n@ SOA ns.example.com. h.example.com. 1 3600 600 86400 300\n"+
			"$ORIGIN 4.4.8.8.in-addr.arpa.\n@ PTR "+tc.ptr+"\n")
		leaks := 0
		s := New(Config{Resolver: dnstest.NewResolver(z), Now: func() time.Time { return fixedNow }, OnLeak: func(_ string, n int) { leaks += n }})
		got, err := s.Scan(context.Background(), ScanRequest{Domain: tc.domain, SendingIP: "8.8.4.4"})
		require.NoError(t, err, "%s with PTR %s: withheld", tc.domain, tc.ptr)
		assert.Zero(t, leaks, "%s with PTR %s: leak alarms", tc.domain, tc.ptr)
		assert.True(t, Nonexistent(got), "%s: Nonexistent", tc.domain)
		assert.True(t, strings.HasPrefix(got.Summary.EN, tc.domain+" "), "%s: the summary names the domain: %q", tc.domain, got.Summary.EN)
	}
}

// TestThousandsOfPiecesOfTheTypedDomainAreNotALeak: a zone that
// publishes thousands of values, each a piece of the typed domain (which
// does not exist), gets the scan's answer, naming the domain, and no
// leak alarm; the pieces share their first bytes far past what the
// guard walks one by one, so it finds them by their lengths.
func TestThousandsOfPiecesOfTheTypedDomainAreNotALeak(t *testing.T) {
	domain, zone := piecesZone()
	leaks := 0
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, zone)), Now: func() time.Time { return fixedNow }, OnLeak: func(_ string, n int) { leaks += n }})
	got, err := s.Scan(context.Background(), ScanRequest{Domain: domain})
	require.NoError(t, err, "withheld")
	assert.Zero(t, leaks, "leak alarms")
	assert.True(t, Nonexistent(got))
	assert.True(t, strings.HasPrefix(got.Summary.EN, domain+" "), "the summary names the domain: %q", got.Summary.EN)
}
