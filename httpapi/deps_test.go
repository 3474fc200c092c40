package httpapi

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mountForbidden are the import path prefixes a program that mounts the
// handler must not link: the Redis client lives in httpapi/redislimit,
// which only a program that counts in Redis imports.
var mountForbidden = []string{"github.com/redis/"}

// TestMountDeps: neither httpapi nor examples/mount (a program mounting
// the handler) depends on a forbidden package, tests excluded.
func TestMountDeps(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	require.NoError(t, err, "the go command is not on PATH")
	for _, pkg := range []string{".", "../examples/mount"} {
		out, err := exec.Command(goBin, "list", "-deps", "-f", "{{.ImportPath}}", pkg).CombinedOutput()
		require.NoError(t, err, "go list -deps %s:\n%s", pkg, out)
		deps := strings.Fields(string(out))
		require.Contains(t, deps, "github.com/mailauth/mailauth/httpapi", "go list -deps %s", pkg)
		for _, dep := range deps {
			for _, bad := range mountForbidden {
				assert.False(t, strings.HasPrefix(dep, bad), "%s depends on %s", pkg, dep)
			}
		}
	}
}
