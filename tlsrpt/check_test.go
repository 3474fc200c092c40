package tlsrpt

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

const zoneSuffix = ".tlsrpt.test"

type fault = dnstest.FaultAt

// configured is the Result of one valid record with the given valid
// destinations.
func configured(mailto, https int, codes ...Code) Result {
	return Result{
		Outcome: resolver.Found, RecordCount: new(1), RecordValid: new(true), Configured: new(true),
		DestinationCount: new(mailto + https), MailtoDestinationCount: new(mailto), HTTPSDestinationCount: new(https),
		Findings: codes,
	}
}

// unusable is the Result of a conclusive lookup without a usable record.
func unusable(outcome resolver.Outcome, count int, recordValid bool, codes ...Code) Result {
	return Result{Outcome: outcome, RecordCount: new(count), RecordValid: new(recordValid), Configured: new(false),
		DestinationCount: new(0), MailtoDestinationCount: new(0), HTTPSDestinationCount: new(0), Findings: codes}
}

// inconclusive is the Result of an inconclusive lookup: every count null.
func inconclusive(reason resolver.Reason) Result {
	return Result{
		Outcome: resolver.Inconclusive, Reason: reason,
	}
}

var checkTests = []struct {
	name   string // scenario label; the domain is <name>.tlsrpt.test
	faults []fault
	want   Result
}{
	// doc/rfc-notes.md §7.3.
	{name: "mailto", want: configured(1, 0)},
	{name: "https", want: configured(0, 1)},
	{name: "mixed", want: configured(1, 1)},
	{name: "no-scheme", want: unusable(resolver.Found, 1, true, CodeInvalidScheme, CodeNoValidDestinations)},
	{name: "http", want: unusable(resolver.Found, 1, true, CodeHTTPNotAllowed, CodeNoValidDestinations)},
	{name: "bare-version", want: unusable(resolver.Found, 1, false, CodeMissingRUA)},
	{name: "bare-separator", want: unusable(resolver.Found, 1, false, CodeMissingRUA)},
	{name: "lowercase", want: unusable(resolver.Found, 0, false)},
	{name: "multiple", want: unusable(resolver.Found, 2, false, CodeMultipleRecords)},
	{name: "extension", want: configured(1, 0)},
	{name: "duplicate-rua", want: configured(2, 0, CodeDuplicateRUA)},
	{name: "empty-mailto", want: unusable(resolver.Found, 1, true, CodeInvalidMailto, CodeNoValidDestinations)},
	{name: "bare-x", want: unusable(resolver.Found, 1, false, CodeSyntaxError)},
	{name: "some-invalid", want: configured(1, 0, CodeInvalidScheme, CodeSomeInvalidDestinations)},
	{name: "swapped", want: unusable(resolver.NXDomain, 0, false)},
	{name: "cname", want: configured(1, 1)},
	// The outcome matrix and more.
	{name: "not-in-zone", want: unusable(resolver.NXDomain, 0, false)},
	{name: "nodata", want: unusable(resolver.NoData, 0, false)},
	{name: "other-txt", want: unusable(resolver.Found, 0, false)},
	{name: "with-others", want: configured(1, 0)},
	{name: "uppercase-version", want: unusable(resolver.Found, 0, false)},
	{name: "uppercase-tag", want: unusable(resolver.Found, 0, false)},
	{name: "split-txt", want: configured(1, 0)},
	{name: "duplicate-destination", want: configured(1, 0, CodeDuplicateDestination)},
	{name: "https-no-host", want: unusable(resolver.Found, 1, true, CodeInvalidHTTPS, CodeNoValidDestinations)},
	{name: "other-scheme", want: unusable(resolver.Found, 1, true, CodeInvalidScheme, CodeNoValidDestinations)},
	{name: "hfields", want: configured(1, 0)},
	{name: "all-invalid", want: unusable(resolver.Found, 1, true, CodeHTTPNotAllowed, CodeInvalidMailto, CodeInvalidScheme, CodeNoValidDestinations)},
	{name: "servfail", faults: []fault{{Name: "_smtp._tls.servfail.tlsrpt.test", Type: resolver.TypeTXT, Fault: dnstest.ServFail}}, want: inconclusive(resolver.ReasonServFail)},
	{name: "timeout", faults: []fault{{Name: "_smtp._tls.timeout.tlsrpt.test", Type: resolver.TypeTXT, Fault: dnstest.Drop}}, want: inconclusive(resolver.ReasonTimeout)},
	{name: "refused", faults: []fault{{Name: "_smtp._tls.refused.tlsrpt.test", Type: resolver.TypeTXT, Fault: dnstest.Refused}}, want: inconclusive(resolver.ReasonRefused)},
	{name: "truncated", faults: []fault{{Name: "_smtp._tls.truncated.tlsrpt.test", Type: resolver.TypeTXT, Fault: dnstest.Truncate}}, want: configured(1, 0)},
	{name: "cname-target-servfail", faults: []fault{{Name: "_smtp._tls.provider.tlsrpt.test", Type: resolver.TypeTXT, Fault: dnstest.ServFail}}, want: inconclusive(resolver.ReasonServFail)},
}

func TestCheck(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, "testdata/tlsrpt.zone")
	for _, tc := range checkTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := dnstest.NewResolver(z)
			r.Apply(tc.faults...)
			got := Check(context.Background(), r, domainOf(tc.name))
			require.Equal(t, tc.want, got, "Result differs")
			assert.Len(t, r.Queries(), 1, "Check asked questions, want 1")
		})
	}
}

// domainOf maps a table row to its domain; one row reuses another
// scenario's data with a fault on the alias target.
func domainOf(name string) string {
	if name == "cname-target-servfail" {
		name = "cname"
	}
	return name + zoneSuffix
}

// TestCheckOverDNSServer runs a few cases through a real UDP/TCP DNS
// server on loopback: truncation falls back to TCP, a dropped reply times
// out.
func TestCheckOverDNSServer(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, "testdata/tlsrpt.zone")
	tests := []struct {
		name   string
		faults []fault
		want   Result
		tcp    bool
	}{
		{name: "mixed", want: configured(1, 1)},
		{name: "truncated", faults: []fault{{Name: "_smtp._tls.truncated.tlsrpt.test", Type: resolver.TypeTXT, Fault: dnstest.Truncate}}, want: configured(1, 0), tcp: true},
		{name: "timeout", faults: []fault{{Name: "_smtp._tls.timeout.tlsrpt.test", Type: resolver.TypeTXT, Fault: dnstest.Drop}}, want: inconclusive(resolver.ReasonTimeout)},
		{name: "servfail", faults: []fault{{Name: "_smtp._tls.servfail.tlsrpt.test", Type: resolver.TypeTXT, Fault: dnstest.ServFail}}, want: inconclusive(resolver.ReasonServFail)},
		{name: "not-in-zone", want: unusable(resolver.NXDomain, 0, false)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := dnstest.Start(t, z)
			srv.Apply(tc.faults...)
			got := Check(context.Background(), srv.PatientResolver(), tc.name+zoneSuffix)
			require.Equal(t, tc.want, got, "Result differs")
			assert.Equal(t, tc.tcp, srv.CountOver("", dnstest.AnyType, "tcp") > 0, "asked over TCP")
		})
	}
}

func TestCheckCanceled(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, "testdata/tlsrpt.zone")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.Equal(t, inconclusive(resolver.ReasonCanceled), Check(ctx, dnstest.NewResolver(z), "mailto"+zoneSuffix), "Result differs")
}
