package report_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/report"
	"github.com/mailauth/mailauth/internal/report/reporttest"
)

// sampleBodies are the scan and ptr-check bodies the service's tests
// pinned: the root's goldens, httpapi's goldens and the developer
// samples, by path, with the schema each is an instance of.
func sampleBodies(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, pattern := range []string{
		"../../testdata/golden/*.json",
		"../../httpapi/testdata/golden/*.json",
		"../../httpapi/web/developers/sample-*.json",
	} {
		files, err := filepath.Glob(pattern)
		require.NoError(t, err)
		require.NotEmpty(t, files, pattern)
		for _, f := range files {
			switch base := filepath.Base(f); {
			case strings.HasPrefix(base, "scan") || base == "sample-scan.json":
				out[f] = "ScanSummary"
			case strings.HasPrefix(base, "ptr") || base == "sample-ptr-check.json":
				out[f] = "PtrCheckSummary"
			}
		}
	}
	return out
}

// items returns the check items of body, a ScanSummary or a
// PtrCheckSummary.
func items(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var doc struct {
		Checks []map[string]any `json:"checks"`
		Check  map[string]any   `json:"check"`
	}
	require.NoError(t, json.Unmarshal(body, &doc))
	if doc.Check != nil {
		return []map[string]any{doc.Check}
	}
	return doc.Checks
}

// itemSchemas maps each check id to the name of its item schema, from
// the discriminator of openapi.json.
func itemSchemas(t *testing.T) map[string]string {
	t.Helper()
	var doc struct {
		Components struct {
			Schemas struct {
				CheckSummary struct {
					Discriminator struct {
						Mapping map[string]string `json:"mapping"`
					} `json:"discriminator"`
				} `json:"CheckSummary"`
			} `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(report.OpenAPI, &doc))
	out := map[string]string{}
	for id, ref := range doc.Components.Schemas.CheckSummary.Discriminator.Mapping {
		out[id] = strings.TrimPrefix(ref, "#/components/schemas/")
	}
	require.NotEmpty(t, out)
	return out
}

// valid says whether v, a decoded JSON value, is valid against the
// contract's schema name.
func valid(t *testing.T, name string, v any) bool {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	require.NoError(t, err)
	return reporttest.Schema(t, name).Validate(inst) == nil
}

// TestSamplesValidateAgainstTheirOwnBranch: every pinned scan and
// ptr-check body validates, and each of its check items validates
// against CheckSummary and its own check's item schema, and against no
// other check's.
func TestSamplesValidateAgainstTheirOwnBranch(t *testing.T) {
	branches := itemSchemas(t)
	seen := map[string]bool{}
	for path, schema := range sampleBodies(t) {
		body, err := os.ReadFile(path)
		require.NoError(t, err)
		reporttest.Validate(t, schema, body)
		for _, item := range items(t, body) {
			id, _ := item["id"].(string)
			seen[id] = true
			assert.True(t, valid(t, "CheckSummary", item), "%s: the %s item is not a CheckSummary", path, id)
			for other, name := range branches {
				assert.Equal(t, other == id, valid(t, name, item), "%s: the %s item against %s", path, id, name)
			}
		}
	}
	for id := range branches {
		assert.True(t, seen[id], "no sample has a %s item", id)
	}
}

// TestItemRejectsAnotherChecksDiagnostics: a check's item with another
// check's diagnostics (a dmarc item with spf diagnostics) is no
// CheckSummary, and an item of a check without diagnostics (mx, caa)
// with any diagnostics is none either.
func TestItemRejectsAnotherChecksDiagnostics(t *testing.T) {
	body, err := os.ReadFile("../../httpapi/web/developers/sample-scan.json")
	require.NoError(t, err)
	diagnostics := map[string]any{} // check id → its sample diagnostics
	var checks []map[string]any
	for _, item := range items(t, body) {
		checks = append(checks, item)
		if d, ok := item["diagnostics"]; ok {
			diagnostics[item["id"].(string)] = d
		}
	}
	require.Len(t, diagnostics, 6, "the developer sample carries every check's diagnostics")
	for _, item := range checks {
		id := item["id"].(string)
		for from, d := range diagnostics {
			wrong := maps.Clone(item)
			wrong["diagnostics"] = d
			assert.Equal(t, from == id, valid(t, "CheckSummary", wrong), "a %s item with %s diagnostics", id, from)
		}
	}
}
