package report

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
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
// The packages are installed with npm ci once per package-lock.json, in
// the user's cache directory (see tsclientModules); that first run
// downloads them from the npm registry, later runs use the cache and no
// network.
func TestTypeScriptClient(t *testing.T) {
	node, errNode := exec.LookPath("node")
	npm, errNPM := exec.LookPath("npm")
	if err := errors.Join(errNode, errNPM); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and node or npm is missing (apt-get install nodejs npm): %v", err)
		}
		t.Skipf("node or npm is missing (apt-get install nodejs npm): %v", err)
	}
	modules := tsclientModules(t, npm)

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
// pinned packages: <user cache>/mailauth/tsclient-<hash of the lock
// file>/node_modules, installed there with npm ci when it is not yet.
// Concurrent runs each install into a directory of their own and the
// first to rename it into place wins.
func tsclientModules(t *testing.T, npm string) string {
	t.Helper()
	lock, err := os.ReadFile(filepath.Join("tsclient", "package-lock.json"))
	require.NoError(t, err)
	pkg, err := os.ReadFile(filepath.Join("tsclient", "package.json"))
	require.NoError(t, err)
	sum := sha256.Sum256(append(append([]byte(nil), pkg...), lock...))
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	parent := filepath.Join(cache, "mailauth")
	final := filepath.Join(parent, "tsclient-"+hex.EncodeToString(sum[:8]))
	modules := filepath.Join(final, "node_modules")
	if _, err := os.Stat(modules); err == nil {
		return modules
	}
	require.NoError(t, os.MkdirAll(parent, 0o755))
	tmp, err := os.MkdirTemp(parent, "tsclient-install-")
	require.NoError(t, err)
	defer os.RemoveAll(tmp)
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "package.json"), pkg, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "package-lock.json"), lock, 0o644))
	runTool(t, tmp, npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline")
	if err := os.Rename(tmp, final); err != nil {
		// Another run may have renamed its own install into place first.
		_, statErr := os.Stat(modules)
		require.NoError(t, statErr, "installing into %s: %v", final, err)
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
