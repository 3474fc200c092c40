package examples_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/testlab"
)

// programs are the example programs, each a directory here.
var programs = []string{"scan", "checkip", "mount", "resolver"}

// labPolicies are the MTA-STS policies the loopback lab serves.
var labPolicies = map[string]string{
	"mta-sts.good.example.com": "version: STSv1\nmode: enforce\nmx: mx1.good.example.com\nmax_age: 604800\n",
}

// build compiles every example program into a temporary directory.
func build(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, p := range programs {
		args = append(args, "./"+p)
	}
	goBin, err := exec.LookPath("go")
	require.NoError(t, err, "the go command is not on PATH")
	cmd := exec.Command(goBin, args...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build:\n%s", out)
	return dir
}

// lab starts the loopback DNS and MTA-STS servers and writes the lab CA
// to a file, returning the flags that point a program at them.
func lab(t *testing.T) (dns string, labFlags []string) {
	t.Helper()
	l := testlab.Start(t, []string{"../testdata/zones/scan.zone"}, labPolicies)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, l.CAPEM, 0o600))
	return l.DNS.Addr(), []string{"-https-port", strconv.Itoa(l.HTTPSPort), "-ca-file", ca, "-allow-loopback-targets"}
}

// run runs a built program and returns its standard output; it fails the
// test when the program does not exit 0.
func run(t *testing.T, bin string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	require.NoError(t, err, "%s %q:\n%s%s", filepath.Base(bin), args, out.String(), errb.String())
	return out.String()
}

// TestExamples builds each program and runs it against the loopback lab.
func TestExamples(t *testing.T) {
	bin := build(t)
	dns, labFlags := lab(t)

	t.Run("scan", func(t *testing.T) {
		args := append([]string{"-dns", dns, "-selector", "s1", "-ip", "8.8.8.8"}, labFlags...)
		out := run(t, filepath.Join(bin, "scan"), append(args, "good.example.com")...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		// The grade line, the overall summary, one line per check.
		require.Len(t, lines, 2+len(mailauth.CheckOrder()), "output:\n%s", out)
		require.Equal(t, "good.example.com: grade A, score 100", lines[0], "output:\n%s", out)
		for _, l := range lines[2:] {
			f := strings.Fields(l)
			if assert.GreaterOrEqual(t, len(f), 3, "check line %q", l) {
				assert.Equal(t, "pass", f[1], "check line %q", l)
			}
		}
		out = run(t, filepath.Join(bin, "scan"), append([]string{"-dns", dns}, "weak.example.com")...)
		assert.Contains(t, out, "dmarc    warn", "weak:\n%s", out)
		assert.Contains(t, out, "mta-sts  fail", "weak:\n%s", out)
	})

	t.Run("checkip", func(t *testing.T) {
		out := run(t, filepath.Join(bin, "checkip"), "-dns", dns, "8.8.8.8")
		assert.True(t, strings.HasPrefix(out, "8.8.8.8: pass (info)\n"), "output:\n%s", out)
		assert.Contains(t, out, "forward-confirmed: yes", "output:\n%s", out)
		cmd := exec.Command(filepath.Join(bin, "checkip"), "-dns", dns, "10.0.0.1")
		assert.Error(t, cmd.Run(), "a private address was accepted")
	})

	t.Run("resolver", func(t *testing.T) {
		out := run(t, filepath.Join(bin, "resolver"), "-dns", dns, "weak.example.com")
		assert.True(t, strings.HasPrefix(out, "weak.example.com: grade "), "output:\n%s", out)
		assert.Contains(t, out, "TXT ", "output:\n%s", out)
		assert.Contains(t, out, "MX ", "output:\n%s", out)
	})

	t.Run("mount", func(t *testing.T) {
		testMount(t, filepath.Join(bin, "mount"), append([]string{"-listen", "127.0.0.1:0", "-dns", dns}, labFlags...))
	})
}

// testMount starts the mount example, uses its own route and the mounted
// API and page, then stops it with SIGINT.
func testMount(t *testing.T, bin string, args []string) {
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := bufio.NewScanner(stdout)
	// stderr is read only on failure: the child's copier writes it meanwhile.
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), "listening on http://127.0.0.1:") {
		require.Failf(t, "no listening line", "first line %q; stderr %s", lines.Text(), stderr.String())
	}
	base := strings.TrimSuffix(strings.TrimPrefix(lines.Text(), "listening on "), "/")
	c := &http.Client{Timeout: 30 * time.Second}
	get := func(path string) (int, string) {
		resp, err := c.Get(base + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get("/hello")
	assert.Equal(t, 200, code, "/hello: %q", body)
	assert.True(t, strings.HasPrefix(body, "hello; 1 requests"), "/hello: %d %q", code, body)
	code, body = get("/")
	assert.Equal(t, 200, code, "/")
	assert.Contains(t, body, "<html", "/: %d", code)
	code, body = get("/api/health")
	assert.Equal(t, 200, code, "/api/health: %s", body)
	assert.Contains(t, body, `"status":"ok"`, "/api/health: %d %s", code, body)
	resp, err := c.Post(base+"/api/scan", "application/json", strings.NewReader(`{"domain":"good.example.com"}`))
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode, "/api/scan: %s", b)
	assert.Contains(t, string(b), `"grade":"A"`, "/api/scan: %d %s", resp.StatusCode, b)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	assert.NoError(t, cmd.Wait(), "exit; stderr %s", stderr.String())
}
