// Package redistest starts throw-away redis-server processes for tests,
// on a free port of 127.0.0.1, without persistence, stopped when the test
// ends. Without redis-server on PATH a test fails when CI=true and is
// skipped otherwise.
package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mailauth/mailauth/internal/syncbuf"
)

// startTimeout bounds the wait for the server to answer.
const startTimeout = 10 * time.Second

// Start starts a server and returns its redis:// URL.
func Start(tb testing.TB) string {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatal("redis-server is not on PATH; .ci/run must install it (apt-get install -y redis-server)")
		}
		tb.Skip("redis-server is not on PATH: install it (apt-get install -y redis-server) to run the Redis tests")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--protected-mode", "yes", "--daemonize", "no", "--loglevel", "warning")
	var out syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port)})
	defer c.Close()
	deadline := time.Now().Add(startTimeout)
	for c.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			tb.Fatalf("redis-server did not come up: %s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Sprintf("redis://127.0.0.1:%d/0", port)
}
