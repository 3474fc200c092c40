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
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	cmd := exec.Command(goBin, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return dir
}

// lab starts the loopback DNS and MTA-STS servers and writes the lab CA
// to a file, returning the flags that point a program at them.
func lab(t *testing.T) (dns string, labFlags []string) {
	t.Helper()
	l := testlab.Start(t, []string{"../testdata/zones/scan.zone"}, labPolicies)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, l.CAPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return l.DNS.Addr(), []string{"-https-port", strconv.Itoa(l.HTTPSPort), "-ca-file", ca, "-allow-loopback-targets"}
}

// run runs a built program and returns its standard output; it fails the
// test when the program does not exit 0.
func run(t *testing.T, bin string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %q: %v\n%s%s", filepath.Base(bin), args, err, out.String(), errb.String())
	}
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
		if len(lines) != 10 || lines[0] != "good.example.com: grade A, score 100" {
			t.Fatalf("output:\n%s", out)
		}
		for _, l := range lines[2:] {
			if f := strings.Fields(l); len(f) < 3 || f[1] != "pass" {
				t.Errorf("check line %q", l)
			}
		}
		out = run(t, filepath.Join(bin, "scan"), append([]string{"-dns", dns}, "weak.example.com")...)
		if !strings.Contains(out, "dmarc    warn") || !strings.Contains(out, "mta-sts  fail") {
			t.Errorf("weak:\n%s", out)
		}
	})

	t.Run("checkip", func(t *testing.T) {
		out := run(t, filepath.Join(bin, "checkip"), "-dns", dns, "8.8.8.8")
		if !strings.HasPrefix(out, "8.8.8.8: pass (info)\n") || !strings.Contains(out, "forward-confirmed: yes") {
			t.Errorf("output:\n%s", out)
		}
		cmd := exec.Command(filepath.Join(bin, "checkip"), "-dns", dns, "10.0.0.1")
		if err := cmd.Run(); err == nil {
			t.Error("a private address was accepted")
		}
	})

	t.Run("resolver", func(t *testing.T) {
		out := run(t, filepath.Join(bin, "resolver"), "-dns", dns, "weak.example.com")
		if !strings.HasPrefix(out, "weak.example.com: grade ") || !strings.Contains(out, "TXT ") || !strings.Contains(out, "MX ") {
			t.Errorf("output:\n%s", out)
		}
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
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), "listening on http://127.0.0.1:") {
		t.Fatalf("first line %q; stderr %s", lines.Text(), stderr.String())
	}
	base := strings.TrimSuffix(strings.TrimPrefix(lines.Text(), "listening on "), "/")
	c := &http.Client{Timeout: 30 * time.Second}
	get := func(path string) (int, string) {
		resp, err := c.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/hello"); code != 200 || !strings.HasPrefix(body, "hello; 1 requests") {
		t.Errorf("/hello: %d %q", code, body)
	}
	if code, body := get("/"); code != 200 || !strings.Contains(body, "<html") {
		t.Errorf("/: %d", code)
	}
	if code, body := get("/api/health"); code != 200 || !strings.Contains(body, `"status":"ok"`) {
		t.Errorf("/api/health: %d %s", code, body)
	}
	resp, err := c.Post(base+"/api/scan", "application/json", strings.NewReader(`{"domain":"good.example.com"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"grade":"A"`) {
		t.Errorf("/api/scan: %d %s", resp.StatusCode, b)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v; stderr %s", err, stderr.String())
	}
}
