package httpapi

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/dmarc"
	"github.com/mailauth/mailauth/internal/report"
	"github.com/mailauth/mailauth/mtasts"
	ptrcheck "github.com/mailauth/mailauth/ptr"
	"github.com/mailauth/mailauth/spf"
)

// TestDocLimitsFromCode: the limits table of /developers/api/ states the
// checks table's count and the protocol packages' constants, and where the
// contract bounds the same figure, the contract agrees with them.
func TestDocLimitsFromCode(t *testing.T) {
	t.Parallel()
	rows := map[string]string{}
	for _, l := range docLimits() {
		rows[l.Name] = l.Value
	}
	bound := contractBounds(t)
	checks := len(mailauth.CheckOrder())
	for _, c := range []struct {
		row      string
		want     string
		contract string  // the contract's bound on the same figure, "" if none
		value    float64 // the figure the contract must bound
	}{
		{"SPF DNS lookup limit", fmt.Sprintf("%d (RFC 7208 §4.6.4)", spf.MaxLookups), "", 0},
		{"DMARC tree-walk queries", fmt.Sprintf("1..%d (RFC 9989)", dmarc.MaxTreeWalk), "DmarcDiagnostics.treeWalkQueries.maximum", dmarc.MaxTreeWalk},
		{"PTR forward lookups", fmt.Sprintf("0..%d hostnames", ptrcheck.MaxForward), "PtrDiagnostics.forwardQueryCount.maximum", ptrcheck.MaxForward},
		{"MTA-STS maxAge", fmt.Sprintf("0..%d seconds (RFC 8461)", mtasts.MaxMaxAge), "MtaStsDiagnostics.maxAge.maximum", mtasts.MaxMaxAge},
		{"Checks per scan", fmt.Sprintf("exactly %d", checks), "ScanSummary.checks.maxItems", float64(checks)},
		{"Each status count", fmt.Sprintf("0..%d", checks), "StatusCounts.pass.maximum", float64(checks)},
	} {
		assert.Equal(t, c.want, rows[c.row], "limits row %q", c.row)
		if c.contract != "" {
			got, ok := bound[c.contract]
			if assert.True(t, ok, "openapi.json has no %s", c.contract) {
				assert.Equal(t, c.value, got, "%s (the contract) and the code's limit for %q", c.contract, c.row)
			}
		}
	}
	assert.Equal(t, float64(checks), bound["ScanSummary.checks.minItems"], "a scan lists every check of the table")
}

// contractBounds reads the numeric bounds of the contract's properties as
// "Schema.property.keyword".
func contractBounds(t *testing.T) map[string]float64 {
	t.Helper()
	var spec struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]map[string]any `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(report.OpenAPI, &spec))
	out := map[string]float64{}
	for name, s := range spec.Components.Schemas {
		for prop, p := range s.Properties {
			for _, k := range []string{"minimum", "maximum", "minItems", "maxItems"} {
				if v, ok := p[k].(float64); ok {
					out[name+"."+prop+"."+k] = v
				}
			}
		}
	}
	return out
}
