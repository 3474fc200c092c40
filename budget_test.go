package mailauth

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestBudgetsSumWithinScanBudget: the per-check shares never exceed the
// scan's budget, so no check can be starved by another.
func TestBudgetsSumWithinScanBudget(t *testing.T) {
	sum := spfBudget(0)
	for _, n := range checkBudgets {
		sum += n
	}
	require.LessOrEqual(t, sum, resolver.DefaultBudget, "per-check budgets sum past the scan budget")
	assert.GreaterOrEqual(t, spfBudget(0), 20, "SPF's share")
}

// TestSPFFanOutDoesNotStarveOthers: a valid SPF record with ten mx terms
// of ten exchanges each needs more questions than SPF's share; SPF is
// then reported as not fully checked (warn), and every other check still gets
// its answers, on every run.
func TestSPFFanOutDoesNotStarveOthers(t *testing.T) {
	var zone strings.Builder
	zone.WriteString("$ORIGIN fan.example.com.\n@ MX 10 mx\nmx A 8.8.8.8\n_dmarc TXT \"v=DMARC1; p=reject\"\n")
	terms := make([]string, 10)
	for i := range terms {
		terms[i] = fmt.Sprintf("mx:m%d.fan.example.com", i)
		for j := 0; j < 10; j++ {
			fmt.Fprintf(&zone, "m%d MX 10 h%d-%d\nh%d-%d A 8.8.4.4\n", i, i, j, i, j)
		}
	}
	fmt.Fprintf(&zone, "@ TXT \"v=spf1 %s -all\"\n", strings.Join(terms, " "))
	z := dnstest.MustParse(t, zone.String())
	for run := 0; run < 5; run++ {
		s := New(Config{Resolver: dnstest.NewResolver(z), Now: func() time.Time { return fixedNow }})
		got, err := s.Scan(context.Background(), ScanRequest{Domain: "fan.example.com"})
		require.NoError(t, err)
		for _, c := range got.Checks {
			switch c.ID {
			case CheckDMARC, CheckMX:
				require.Equal(t, StatusPass, c.Status, "run %d: %s %q", run, c.ID, c.Summary.EN)
			case CheckSPF:
				// The ten mx terms are counted exactly; the exchanges past
				// SPF's share could not be looked up, which receivers would
				// meet as a temporary error.
				d := c.Diagnostics.(*SPFDiagnostics)
				require.Equal(t, StatusWarn, c.Status, "run %d: spf with %+v", run, d)
				require.NotNil(t, d.DNSLookupCount, "run %d: spf with %+v", run, d)
				require.Equal(t, 10, *d.DNSLookupCount, "run %d: spf lookups", run)
			}
		}
	}
}
