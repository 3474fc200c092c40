package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/syncbuf"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// nsChildEnv marks the run of TestServeOnEveryDefault inside the
// namespaces it made; its value is the parent's network namespace.
const nsChildEnv = "MAILAUTH_TEST_NS_CHILD"

// TestServeOnEveryDefault: serve with no flag but -storage none (no
// -listen, -admin-listen or -dns) resolves through the nameservers of
// /etc/resolv.conf and answers on its default addresses. It runs the test
// again inside a network and mount namespace of its own (unshare; root
// needed), where /etc/resolv.conf is a file of the test's naming
// 127.0.0.1, a loopback resolver answers on port 53, and ports 8080 and
// 8081 are free: nothing leaves the namespace's loopback.
func TestServeOnEveryDefault(t *testing.T) {
	self, err := os.Readlink("/proc/self/ns/net")
	require.NoError(t, err)
	if parent := os.Getenv(nsChildEnv); parent != "" {
		require.NotEqual(t, parent, self, "the child runs in a network namespace of its own")
		serveOnEveryDefault(t)
		return
	}
	if err := exec.Command("unshare", "--net", "--mount", "true").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and unshare --net --mount fails (root needed): %v", err)
		}
		t.Skipf("unshare --net --mount fails (root needed): %v", err)
	}
	conf := filepath.Join(t.TempDir(), "resolv.conf")
	require.NoError(t, os.WriteFile(conf, []byte("nameserver 127.0.0.1\n"), 0o644))
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "unshare", "--net", "--mount", "sh", "-c",
		`ip link set lo up && mount --bind "$1" /etc/resolv.conf && shift && exec "$0" "$@"`,
		os.Args[0], conf, "-test.run", "^TestServeOnEveryDefault$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), nsChildEnv+"="+self)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "--- PASS: TestServeOnEveryDefault", "%s", out)
}

func serveOnEveryDefault(t *testing.T) {
	z, err := dnstest.Parse(dnstest.RootZone, ".")
	require.NoError(t, err)
	dnsSrv, err := dnstest.ListenAt(z, "127.0.0.1:53")
	require.NoError(t, err)
	defer dnsSrv.Close()

	var log syncbuf.Buffer
	ctx, cancel := context.WithCancel(t.Context())
	readyc, done := make(chan string, 1), make(chan int, 1)
	go func() {
		done <- runServe(ctx, []string{"-storage", "none"}, mapEnv(nil), stdio{out: io.Discard, err: &log},
			serveHooks{ready: func(a string) { readyc <- a }})
	}()
	defer func() { cancel(); <-done }()
	select {
	case a := <-readyc:
		assert.Equal(t, defaultListen, a)
	case code := <-done:
		require.Failf(t, "serve exited", "exit %d: %s", code, log.String())
	}
	assert.Contains(t, log.String(), `"servers":["127.0.0.1:53"],"from":"/etc/resolv.conf"`, "the DNS servers came from /etc/resolv.conf")
	var body struct {
		Components map[string]string `json:"components"`
	}
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + defaultAdminListen + "/readyz")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		return resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&body) == nil
	}, time.Minute, 50*time.Millisecond, "readyz on the default admin address: %s", log.String())
	assert.Equal(t, "ok", body.Components["resolver"], "the resolver of /etc/resolv.conf answers: %s", log.String())
	assert.NotEmpty(t, dnsSrv.Queries(), "serve asked the resolver /etc/resolv.conf names")
}
