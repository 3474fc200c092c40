package httpapi

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the live responses")

// checkGolden compares got with testdata/golden/name (rewritten with
// -update).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the live response:\n got %s\nwant %s", path, got, want)
	}
}

// checkSample compares a developer page's sample (web/developers/*.json)
// with the live response it shows, indented; -update rewrites it, so the
// samples are generated from the lab scan, never edited by hand.
func checkSample(t *testing.T, path string, got []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, got, "", "  "); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("%s differs from the live response (run with -update after reviewing):\n got %s\nwant %s", path, b.Bytes(), want)
	}
}

// TestGoldenResponses pins the exact bytes of a scan and a ptr-check 200
// over HTTP (field order, nulls, omitted diagnostics, no HTML escaping);
// ts.Do validated both against openapi.json.
func TestGoldenResponses(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{})
	scan := ts.PostJSON(t, "/api/scan", `{"domain":"中国.example.com","dkimSelector":"s1","sendingIp":"8.8.8.8"}`)
	if scan.StatusCode != 200 {
		t.Fatalf("scan: %d %s", scan.StatusCode, scan.Body)
	}
	checkGolden(t, "scan.json", scan.Body)
	ptrCheck := ts.PostJSON(t, "/api/ptr-check", `{"sendingIp":"::ffff:8.8.8.8"}`)
	if ptrCheck.StatusCode != 200 {
		t.Fatalf("ptr-check: %d %s", ptrCheck.StatusCode, ptrCheck.Body)
	}
	checkGolden(t, "ptr-check.json", ptrCheck.Body)
}
