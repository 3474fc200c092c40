package report

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTypeScriptClient generates TypeScript types from openapi.json with
// the pinned openapi-typescript of tsclient/package-lock.json and
// type-checks tsclient/client.ts with the pinned tsc (--strict). The
// client narrows a scan's checks by id and reads fields only one check's
// diagnostics has; its @ts-expect-error lines read another check's
// field, or a field without narrowing, and fail the compile if that ever
// becomes allowed. It needs node and npm (Debian: nodejs npm; scripts/test
// installs them): it skips without them, and fails when CI=true.
//
// The packages are installed by scripts/test (npm ci, once per lock
// file) in the user's cache directory (see tsclientModules); the test
// itself sends nothing outside loopback, so without that directory it
// skips, and fails when CI=true.
func TestTypeScriptClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and node is missing (apt-get install nodejs npm): %v", err)
		}
		t.Skipf("node is missing (apt-get install nodejs npm): %v", err)
	}
	modules := tsclientModules(t)

	work := t.TempDir()
	client, err := os.ReadFile(filepath.Join("tsclient", "client.ts"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(work, "client.ts"), client, 0o644))
	spec, err := filepath.Abs("openapi.json")
	require.NoError(t, err)
	runTool(t, work, node, filepath.Join(modules, "openapi-typescript", "bin", "cli.js"), spec,
		"--output", filepath.Join(work, "generated", "api.ts"))
	runTool(t, work, node, filepath.Join(modules, "typescript", "bin", "tsc"),
		"--noEmit", "--strict", "--target", "es2022", "--module", "es2022", "--moduleResolution", "bundler", "client.ts")
}

// tsclientModules returns the node_modules directory of tsclient's
// pinned packages, <user cache>/mailauth/tsclient-<first 8 bytes of the
// sha256 of package.json and package-lock.json, in hex>/node_modules,
// which scripts/test fills with npm ci. Without it the test skips, and
// fails when CI=true.
func tsclientModules(t *testing.T) string {
	t.Helper()
	lock, err := os.ReadFile(filepath.Join("tsclient", "package-lock.json"))
	require.NoError(t, err)
	pkg, err := os.ReadFile(filepath.Join("tsclient", "package.json"))
	require.NoError(t, err)
	sum := sha256.Sum256(append(append([]byte(nil), pkg...), lock...))
	cache, err := os.UserCacheDir()
	require.NoError(t, err)
	modules := filepath.Join(cache, "mailauth", "tsclient-"+hex.EncodeToString(sum[:8]), "node_modules")
	if _, err := os.Stat(modules); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the pinned TypeScript packages are not installed (scripts/test installs them): %v", err)
		}
		t.Skipf("the pinned TypeScript packages are not installed (scripts/test installs them): %v", err)
	}
	return modules
}

// runTool runs name with args in dir and fails with its output.
func runTool(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %v:\n%s", filepath.Base(name), args, out)
}
