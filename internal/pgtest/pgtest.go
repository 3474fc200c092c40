// Package pgtest starts throw-away PostgreSQL servers for tests: a fresh
// cluster in a temporary directory, listening on 127.0.0.1 on a free port
// (Unix sockets in that directory), stopped and removed when the test
// ends.
//
// initdb refuses to run as root, so as root the cluster belongs to the
// "postgres" user and the server binaries run as that user (the child
// process switches its credentials itself; no runuser wrapper).
// Without the binaries (Debian package postgresql) a test fails when
// CI=true and is skipped otherwise.
package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mailauth/mailauth/internal/syncbuf"
	"github.com/mailauth/mailauth/internal/testport"
)

// startTimeout bounds the wait for a new server to accept connections.
const startTimeout = 60 * time.Second

// Cluster is a running server.
type Cluster struct {
	// URL reaches the "postgres" database as the superuser "mailauth".
	URL  string
	port int
	stop func()
}

// Stop stops the server now (it is stopped at the test's end anyway).
func (c *Cluster) Stop() { c.stop() }

// binDir finds the PostgreSQL server binaries: initdb on PATH, else the
// newest /usr/lib/postgresql/*/bin (Debian keeps them off PATH).
func binDir() (string, bool) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), true
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, true
		}
	}
	return "", false
}

// version is the major version in a /usr/lib/postgresql/N/bin path.
func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// Start starts a cluster for tb.
func Start(tb testing.TB) *Cluster {
	tb.Helper()
	return StartAt(tb, FreePort(tb))
}

// StartAt starts a cluster for tb on port of 127.0.0.1 (a test can give
// a program the URL before the server exists: URLAt).
func StartAt(tb testing.TB, port int) *Cluster {
	tb.Helper()
	bin, ok := binDir()
	if !ok {
		if os.Getenv("CI") == "true" {
			tb.Fatal("PostgreSQL server binaries not found; .ci/run must install them (apt-get install -y postgresql)")
		}
		tb.Skip("PostgreSQL server binaries not found: install them (apt-get install -y postgresql) to run the PostgreSQL tests")
	}
	dir, asUser := workDir(tb)
	data := filepath.Join(dir, "data")
	run(tb, asUser, filepath.Join(bin, "initdb"), "-D", data, "-U", "mailauth", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale", "C")
	c := &Cluster{port: port}
	cmd := command(asUser, filepath.Join(bin, "postgres"), "-D", data, "-h", "127.0.0.1", "-p", strconv.Itoa(c.port),
		"-k", dir, "-F", "-c", "max_connections=50", "-c", "shared_buffers=16MB")
	var out syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	var once sync.Once
	c.stop = func() {
		once.Do(func() {
			_ = cmd.Process.Signal(os.Interrupt) // fast shutdown
			_ = cmd.Wait()
		})
	}
	tb.Cleanup(c.stop)
	c.URL = URLAt(c.port)
	c.waitReady(tb, &out)
	return c
}

// NewDatabase creates an empty database on c and returns its URL.
func (c *Cluster) NewDatabase(tb testing.TB, name string) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URL)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		tb.Fatal(err)
	}
	return strings.Replace(c.URL, "/postgres?", "/"+name+"?", 1)
}

// waitReady waits until the server accepts a connection.
func (c *Cluster) waitReady(tb testing.TB, out *syncbuf.Buffer) {
	tb.Helper()
	deadline := time.Now().Add(startTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, c.URL)
		cancel()
		if err == nil {
			_ = conn.Close(context.Background())
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("postgres did not come up: %v\n%s", err, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// workDir makes the cluster's directory; as root it belongs to the
// postgres user, who then runs the binaries (owner).
func workDir(tb testing.TB) (dir string, owner *syscall.Credential) {
	tb.Helper()
	dir, err := os.MkdirTemp("", "mailauth-pg-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = os.RemoveAll(dir) })
	if os.Geteuid() != 0 {
		return dir, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		tb.Fatalf("running as root needs the postgres user to own the cluster: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		tb.Fatal(err)
	}
	return dir, &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

// command runs bin with args, as the user of owner when set (the
// process itself switches user: no wrapper stands between the test and
// the server's signals).
func command(owner *syscall.Credential, bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	if owner != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: owner}
		cmd.Dir = "/"
	}
	return cmd
}

// run runs a command to completion.
func run(tb testing.TB, asUser *syscall.Credential, bin string, args ...string) {
	tb.Helper()
	if out, err := command(asUser, bin, args...).CombinedOutput(); err != nil {
		tb.Fatalf("%s: %v\n%s", filepath.Base(bin), err, out)
	}
}

// URLAt is the URL of the "postgres" database of a cluster on port.
func URLAt(port int) string {
	return fmt.Sprintf("postgres://mailauth@127.0.0.1:%d/postgres?sslmode=disable", port)
}

// FreePort returns a port of 127.0.0.1 for a cluster to listen on, free
// a moment ago and out of the way of port-0 binds (testport.Daemon).
func FreePort(tb testing.TB) int {
	tb.Helper()
	return testport.Daemon(tb)
}
