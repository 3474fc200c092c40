package httpapi

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth"
)

// TestCheckOutcomes: the Observer learns each check's determination and
// the domain-side DNS fault of a fail, from the summary's own fields.
func TestCheckOutcomes(t *testing.T) {
	sum := mailauth.ScanSummary{Checks: []mailauth.CheckSummary{
		{ID: mailauth.CheckSPF, Status: mailauth.StatusPass},
		{ID: mailauth.CheckDMARC, Status: mailauth.StatusFail, DNSFault: mailauth.DNSFaultDNSSEC},
		{ID: mailauth.CheckTLSRPT, Status: mailauth.StatusWarn, Determination: mailauth.UndeterminedTimeout},
	}}
	kind, got := checkOutcomes(&sum)
	assert.Equal(t, "scan", kind)
	assert.Equal(t, []CheckOutcome{
		{ID: mailauth.CheckSPF, Status: mailauth.StatusPass},
		{ID: mailauth.CheckDMARC, Status: mailauth.StatusFail, DNSFault: mailauth.DNSFaultDNSSEC},
		{ID: mailauth.CheckTLSRPT, Status: mailauth.StatusWarn, Determination: mailauth.UndeterminedTimeout},
	}, got)
	kind, got = checkOutcomes(&mailauth.PTRCheckSummary{Check: mailauth.CheckSummary{ID: mailauth.CheckPTR,
		Status: mailauth.StatusWarn, Determination: mailauth.UndeterminedLookup}})
	assert.Equal(t, "ptr-check", kind)
	assert.Equal(t, []CheckOutcome{{ID: mailauth.CheckPTR, Status: mailauth.StatusWarn, Determination: mailauth.UndeterminedLookup}}, got)
}
