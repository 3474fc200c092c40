package httpapi

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the live responses")

// checkGolden compares got with testdata/golden/name (rewritten with
// -update).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to create it")
	assert.Equal(t, string(want), string(got), "%s differs from the live response", path)
}

// checkSample compares a developer page's sample (web/developers/*.json)
// with the live response it shows, indented; -update rewrites it, so the
// samples are generated from the lab scan, never edited by hand.
func checkSample(t *testing.T, path string, got []byte) {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, json.Indent(&b, got, "", "  "))
	if *update {
		require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to create it")
	assert.Equal(t, string(want), b.String(), "%s differs from the live response (run with -update after reviewing)", path)
}

// TestGoldenResponses pins the exact bytes of a scan and a ptr-check 200
// over HTTP (field order, nulls, omitted diagnostics, no HTML escaping);
// ts.Do validated both against openapi.json.
func TestGoldenResponses(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{})
	scan := ts.PostJSON(t, "/api/scan", `{"domain":"中国.example.com","dkimSelector":"s1","sendingIp":"8.8.8.8"}`)
	require.Equal(t, 200, scan.StatusCode, "scan: %s", scan.Body)
	checkGolden(t, "scan.json", scan.Body)
	ptrCheck := ts.PostJSON(t, "/api/ptr-check", `{"sendingIp":"::ffff:8.8.8.8"}`)
	require.Equal(t, 200, ptrCheck.StatusCode, "ptr-check: %s", ptrCheck.Body)
	checkGolden(t, "ptr-check.json", ptrCheck.Body)
}
