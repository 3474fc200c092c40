// Package deploy_test proves the deployment samples with the real
// programs, on loopback only: nginx with deploy/nginx.conf in front of
// two `mailauth serve` sharing Redis and PostgreSQL and resolving through
// Unbound (deploy/unbound.conf) over a zone server (resolver/dnstest).
// The test substitutes only addresses, ports and log paths in the
// samples. Every name, including the root, is stubbed to the loopback
// zone server, so no query leaves the machine.
//
// Without nginx, unbound, redis-server or the PostgreSQL binaries the
// test is skipped, and fails when CI=true (scripts/test installs them).
package deploy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/pgtest"
	"github.com/mailauth/mailauth/internal/syncbuf"
	"github.com/mailauth/mailauth/internal/testport"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// rateLimit is the per-source limit of the instances: small, so that the
// shared and per-instance limits differ after a few requests.
const rateLimit = 6

// secret is the analytics and rate-limit secret every instance shares.
const secret = "deploy-test-secret-0123456789"

// need finds a program or skips (fails when CI=true).
func need(t *testing.T, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
		if p := "/usr/sbin/" + n; fileExists(p) {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s not installed; scripts/test installs it through apt", names[0])
	}
	t.Skipf("%s not installed (apt-get install %s): the deployment test needs it", names[0], names[0])
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// lab is the running deployment.
type lab struct {
	t        *testing.T
	dir      string
	bin      string
	dns      *dnstest.Server
	unbound  string // 127.0.0.1:port
	nginx    string // http://127.0.0.1:port
	port     int    // the instances' public port (on 127.0.1.x)
	admin    int    // their admin port
	redisURL string
	redis    *proc
	pgURL    string
	a, b     *instance
}

// proc is a child process with its output.
type proc struct {
	cmd  *exec.Cmd
	out  *syncbuf.Buffer
	done chan struct{}
}

func start(t *testing.T, name string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(name, args...), out: &syncbuf.Buffer{}, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	// Its own process group: kill reaches nginx's workers too; and Wait
	// does not wait for a straggler holding the output pipe.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.cmd.WaitDelay = 2 * time.Second
	require.NoError(t, p.cmd.Start(), name)
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(p.kill)
	return p
}

func (p *proc) kill() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// instance is one `mailauth serve`.
type instance struct {
	*proc
	base, admin string
}

// freePortOn returns a port free on every one of hosts, out of the way
// of port-0 binds (testport.Daemon).
func freePortOn(t *testing.T, hosts ...string) int {
	t.Helper()
	return testport.Daemon(t, hosts...)
}

func TestDeployment(t *testing.T) {
	nginxBin := need(t, "nginx")
	unboundBin := need(t, "unbound")
	redisBin := need(t, "redis-server")
	l := &lab{t: t, dir: t.TempDir()}
	l.build()
	l.startDNS()
	l.startUnbound(unboundBin)
	l.startRedis(redisBin, freePortOn(t, redisHost))
	cluster := pgtest.Start(t)
	l.pgURL = cluster.URL
	l.port = freePortOn(t, "127.0.1.1", "127.0.1.2", "127.0.1.3")
	l.admin = freePortOn(t, "127.0.1.1", "127.0.1.2", "127.0.1.3")
	l.a = l.serve("127.0.1.1", l.pgURL)
	l.b = l.serve("127.0.1.2", l.pgURL)
	l.startNginx(nginxBin)

	t.Run("scan through nginx, request id joined", l.scanThroughNginx)
	t.Run("developer examples name nginx's origin", l.examplesOrigin)
	t.Run("shared rate limit", func(t *testing.T) { l.expectLimit(t, "127.0.2.2", rateLimit) })
	t.Run("one instance killed during 8 scans", l.killDuringScans)
	t.Run("redis down, then back", l.redisOutage)
	t.Run("postgres down at start", l.postgresDownAtStart)
	t.Run("sighup", l.sighup)
	t.Run("metrics", l.metrics)
	t.Run("privacy of the logs", l.logsPrivate)
	t.Run("no instance: nginx answers JSON", l.noInstance)
}

// build compiles mailauth.
func (l *lab) build() {
	l.bin = filepath.Join(l.dir, "mailauth")
	out, err := exec.Command("go", "build", "-o", l.bin, "../cmd/mailauth").CombinedOutput()
	require.NoError(l.t, err, "%s", out)
}

// startDNS serves the scan zone on loopback.
func (l *lab) startDNS() {
	z, err := dnstest.Load("../testdata/zones/scan.zone")
	require.NoError(l.t, err)
	l.dns = dnstest.Start(l.t, z)
}

// startUnbound runs Unbound with deploy/unbound.conf, its interface moved
// to loopback, DNSSEC off (the lab zone is unsigned) and every name
// stubbed to the zone server; "mailauth." holds the instances' addresses
// for nginx's resolver.
func (l *lab) startUnbound(bin string) {
	raw, err := os.ReadFile("unbound.conf")
	require.NoError(l.t, err)
	port := freePortOn(l.t, "127.0.0.1")
	dnsHost, dnsPort, _ := net.SplitHostPort(l.dns.Addr())
	var b strings.Builder
	for line := range strings.SplitSeq(string(raw), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "interface:"):
			fmt.Fprintf(&b, "    interface: 127.0.0.1\n    port: %d\n", port)
		case strings.HasPrefix(trimmed, "auto-trust-anchor-file:"):
		default:
			b.WriteString(line + "\n")
		}
	}
	fmt.Fprintf(&b, `    username: ""
    chroot: ""
    directory: %q
    pidfile: %q
    use-syslog: no
    logfile: ""
    module-config: "iterator"
    do-not-query-localhost: no
    infra-cache-min-rtt: 3000
    num-threads: 1
    local-data: "mailauth. 5 IN A 127.0.1.1"
    local-data: "mailauth. 5 IN A 127.0.1.2"
stub-zone:
    name: "example.com"
    stub-addr: %s@%s
stub-zone:
    name: "."
    stub-addr: %s@%s
`, l.dir, filepath.Join(l.dir, "unbound.pid"), dnsHost, dnsPort, dnsHost, dnsPort)
	conf := filepath.Join(l.dir, "unbound.conf")
	require.NoError(l.t, os.WriteFile(conf, []byte(b.String()), 0o600))
	if chk, err := exec.LookPath("unbound-checkconf"); err == nil {
		out, err := exec.Command(chk, conf).CombinedOutput()
		require.NoError(l.t, err, "unbound-checkconf: %s", out)
	}
	p := start(l.t, bin, "-d", "-c", conf)
	l.unbound = fmt.Sprintf("127.0.0.1:%d", port)
	c := &dns.Client{Timeout: time.Second}
	m := new(dns.Msg)
	m.SetQuestion("good.example.com.", dns.TypeMX)
	waitFor(l.t, 20*time.Second, func() bool {
		r, _, err := c.Exchange(m, l.unbound)
		return err == nil && r.Rcode == dns.RcodeSuccess && len(r.Answer) > 0
	}, func() string { return "unbound: " + p.out.String() })
}

// startRedis starts (or restarts) redis-server on port.
// redisHost is the loopback address of the lab's Redis: one no other
// test binds, so that the free port picked for it cannot be taken by
// another package's Redis starting at the same moment (its own would then
// fail to bind, and the lab would talk to the other one: killing "its"
// Redis would stop nothing).
const redisHost = "127.0.5.1"

func (l *lab) startRedis(bin string, port int) {
	l.redis = start(l.t, bin, "--port", strconv.Itoa(port), "--bind", redisHost, "--save", "",
		"--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
	l.redisURL = fmt.Sprintf("redis://%s:%d/0", redisHost, port)
	waitFor(l.t, 10*time.Second, func() bool {
		require.False(l.t, l.redis.exited(), "redis-server exited: %s", l.redis.out.String())
		c, err := net.Dial("tcp", net.JoinHostPort(redisHost, strconv.Itoa(port)))
		if err == nil {
			c.Close()
		}
		return err == nil
	}, l.redis.out.String)
}

// serve starts one instance on host with the store at storage.
func (l *lab) serve(host, storage string) *instance {
	p := start(l.t, l.bin, "serve",
		"-listen", fmt.Sprintf("%s:%d", host, l.port),
		"-admin-listen", fmt.Sprintf("%s:%d", host, l.admin),
		"-dns", l.unbound, "-canary-name", "example.com",
		"-trusted-proxies", "127.0.0.1",
		"-storage", storage, "-ratelimit", l.redisURL, "-analytics-secret", secret,
		"-rate-limit-max", strconv.Itoa(rateLimit))
	p.cmd.Env = append(os.Environ(), "HOME="+l.dir)
	in := &instance{proc: p, base: fmt.Sprintf("http://%s:%d", host, l.port), admin: fmt.Sprintf("http://%s:%d", host, l.admin)}
	waitFor(l.t, 30*time.Second, func() bool {
		resp, err := http.Get(in.base + "/api/health")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && in.readiness(l.t).Status == "ok"
	}, p.out.String)
	return in
}

// admissions is an instance's mailauth_admissions_total of outcome
// admitted: the diagnostics it has let past admission so far.
func (in *instance) admissions(t *testing.T) float64 {
	resp, err := http.Get(in.admin + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	sum := 0.0
	for line := range strings.SplitSeq(string(b), "\n") {
		if !strings.HasPrefix(line, `mailauth_admissions_total{outcome="admitted"} `) {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		require.NoError(t, err, line)
		sum += v
	}
	return sum
}

// readiness is an instance's /readyz.
type readiness struct {
	Status     string
	Components map[string]string
}

func (in *instance) readiness(t *testing.T) readiness {
	var r readiness
	resp, err := http.Get(in.admin + "/readyz")
	if err != nil {
		return r
	}
	defer resp.Body.Close()
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	_ = json.NewDecoder(resp.Body).Decode(&r)
	return r
}

// startNginx runs nginx with deploy/nginx.conf, substituting the
// resolver's and the upstream's addresses, the listen ports and the log
// paths, inside a minimal main configuration.
func (l *lab) startNginx(bin string) {
	raw, err := os.ReadFile("nginx.conf")
	require.NoError(l.t, err)
	port := freePortOn(l.t, "127.0.0.1", "::1")
	conf := string(raw)
	for _, r := range [][2]string{
		{"resolver 127.0.0.11 ", "resolver " + l.unbound + " "},
		{"mailauth:8080", fmt.Sprintf("mailauth:%d", l.port)},
		{"listen 80;", fmt.Sprintf("listen 127.0.0.1:%d;", port)},
		{"listen [::]:80;", fmt.Sprintf("listen [::1]:%d;", port)},
		{"/var/log/nginx/", l.dir + "/"},
	} {
		require.Contains(l.t, conf, r[0], "deploy/nginx.conf changed: the test substitutes %q", r[0])
		conf = strings.ReplaceAll(conf, r[0], r[1])
	}
	site := filepath.Join(l.dir, "site.conf")
	require.NoError(l.t, os.WriteFile(site, []byte(conf), 0o644))
	user := ""
	if os.Geteuid() == 0 {
		user = "user nobody nogroup;"
	}
	main := fmt.Sprintf(`%[1]s
daemon off;
worker_processes 1;
pid %[2]s/nginx.pid;
error_log %[2]s/nginx-main.log error;
events { worker_connections 256; }
http {
    client_body_temp_path %[2]s/body;
    proxy_temp_path %[2]s/proxy;
    fastcgi_temp_path %[2]s/fastcgi;
    uwsgi_temp_path %[2]s/uwsgi;
    scgi_temp_path %[2]s/scgi;
    include %[3]s;
}
`, user, l.dir, site)
	mainConf := filepath.Join(l.dir, "nginx-main.conf")
	require.NoError(l.t, os.WriteFile(mainConf, []byte(main), 0o644))
	require.NoError(l.t, os.Chmod(l.dir, 0o755))
	p := start(l.t, bin, "-p", l.dir, "-c", mainConf)
	l.nginx = fmt.Sprintf("http://127.0.0.1:%d", port)
	waitFor(l.t, 10*time.Second, func() bool {
		resp, err := http.Get(l.nginx + "/api/health")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == 200
	}, func() string { return p.out.String() + readFile(filepath.Join(l.dir, "error.log")) })
	resp, err := http.Get(fmt.Sprintf("http://[::1]:%d/api/health", port))
	require.NoError(l.t, err, "nginx listens on IPv6")
	resp.Body.Close()
}

func readFile(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

// answer is one response as a client saw it.
type answer struct {
	status int
	ctype  string
	body   string
	id     string
	err    error
}

// post sends a scan of domain to base from the source address src.
func post(base, src, domain string) answer {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	c := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
	resp, err := c.Post(base+"/api/scan", "application/json", strings.NewReader(`{"domain":"`+domain+`"}`))
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, ctype: resp.Header.Get("Content-Type"), body: string(b), id: resp.Header.Get("X-Request-Id")}
}

// jsonAnswer reports whether a is a JSON answer: 200, or an error in the
// contract's shape.
func jsonAnswer(a answer) bool {
	if a.err != nil || !strings.HasPrefix(a.ctype, "application/json") {
		return false
	}
	var v map[string]any
	if json.Unmarshal([]byte(a.body), &v) != nil {
		return false
	}
	if a.status == 200 {
		return v["grade"] != nil
	}
	_, ok := v["error"].(string)
	return ok
}

func (l *lab) scanThroughNginx(t *testing.T) {
	a := post(l.nginx, "127.0.2.1", "good.example.com")
	require.NoError(t, a.err)
	require.Equal(t, 200, a.status, a.body)
	assert.True(t, jsonAnswer(a), a.body)
	require.Len(t, a.id, 32, "nginx's $request_id comes back as X-Request-Id")
	waitFor(t, 5*time.Second, func() bool {
		return strings.Contains(readFile(filepath.Join(l.dir, "access.log")), "request_id="+a.id)
	}, func() string { return readFile(filepath.Join(l.dir, "access.log")) })
	// mailauth logs the request once its answer is written, so the line
	// may follow the answer by a moment.
	logs := func() string { return l.a.out.String() + l.b.out.String() }
	waitFor(t, 5*time.Second, func() bool {
		return strings.Contains(logs(), `"request_id":"`+a.id+`"`)
	}, logs) // mailauth logs nginx's request id
}

// expectLimit sends scans from src until the first 429 and checks that
// exactly want were allowed; every answer is 200 or 429.
// examplesOrigin: /developers/api/ and /developers/cli/ fetched through
// nginx show examples against nginx's origin (scheme, host and port the
// reader used), not the instance's own address.
func (l *lab) examplesOrigin(t *testing.T) {
	for _, path := range []string{"/developers/api/", "/developers/cli/"} {
		resp, err := http.Get(l.nginx + path)
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		assert.True(t, strings.Contains(string(b), "-server "+l.nginx+" ") || strings.Contains(string(b), l.nginx+"/api/"),
			"%s: the examples do not name %s", path, l.nginx)
		assert.False(t, strings.Contains(string(b), "http://127.0.0.1:8080"), "%s: the examples name the default origin", path)
	}
}

func (l *lab) expectLimit(t *testing.T, src string, want int) {
	allowed := l.countAllowed(t, src, want+3)
	assert.Equal(t, want, allowed, "scans allowed before the first 429")
}

// countAllowed sends up to max scans from src and returns the 200s
// before the first 429.
func (l *lab) countAllowed(t *testing.T, src string, max int) int {
	return countAllowed(t, l.nginx, src, max)
}

// countAllowed sends up to max scans from src to base and returns the
// 200s before the first 429.
func countAllowed(t *testing.T, base, src string, max int) int {
	allowed := 0
	for range max {
		a := post(base, src, "good.example.com")
		require.NoError(t, a.err)
		require.True(t, jsonAnswer(a), "%d %s", a.status, a.body)
		if a.status == http.StatusTooManyRequests {
			return allowed
		}
		require.Equal(t, 200, a.status, a.body)
		allowed++
	}
	return allowed
}

func (l *lab) killDuringScans(t *testing.T) {
	l.dns.DelayAll(700 * time.Millisecond)
	defer l.dns.DelayAll(0)
	nonce := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	answers := make([]answer, 8)
	admitted := l.a.admissions(t)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Go(func() {
			answers[i] = post(l.nginx, fmt.Sprintf("127.0.3.%d", i+1), fmt.Sprintf("k%d-%s.example.com", i, nonce))
		})
	}
	// Kill A once it has admitted a scan of these (each then waits
	// seconds on the delayed DNS), however long the scans took to reach
	// it: not after a fixed pause, which on a loaded machine may end
	// before any scan arrived.
	waitFor(t, 30*time.Second, func() bool { return l.a.admissions(t) > admitted }, l.a.out.String)
	l.a.kill()
	wg.Wait()
	// nginx logs a request after its answer is sent: wait for the 8
	// lines before reading them.
	waitFor(t, 30*time.Second, func() bool {
		log := readFile(filepath.Join(l.dir, "access.log"))
		for _, a := range answers {
			if a.id == "" || !strings.Contains(log, "request_id="+a.id) {
				return false
			}
		}
		return true
	}, func() string { return readFile(filepath.Join(l.dir, "access.log")) })
	ok := 0
	for i, a := range answers {
		assert.True(t, jsonAnswer(a), "client %d got %d %q %q %v", i, a.status, a.ctype, a.body, a.err)
		if a.status == 200 {
			ok++
		}
	}
	t.Logf("8 scans in flight, one instance killed: %d answered 200, the others the JSON error", ok)
	assert.Equal(t, len(answers), ok, "nginx retried the scans of the dead instance on the other one")
	assert.Contains(t, readFile(filepath.Join(l.dir, "access.log")), "upstream=502, 200",
		"a scan was retried after its instance died")
	l.a = l.serve("127.0.1.1", l.pgURL)
	l.waitNginxReaches(t, l.a)
}

// waitNginxReaches waits until a request through nginx is answered by
// in (its log holds the request's id): the next subtest starts with both
// instances serving behind nginx, however slowly the restarted one came
// up.
func (l *lab) waitNginxReaches(t *testing.T, in *instance) {
	waitFor(t, 60*time.Second, func() bool {
		resp, err := http.Get(l.nginx + "/api/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		id := resp.Header.Get("X-Request-Id")
		if resp.StatusCode != http.StatusOK || id == "" {
			return false
		}
		// mailauth logs a request once its answer is written.
		waitFor(t, 5*time.Second, func() bool {
			return strings.Contains(l.a.out.String()+l.b.out.String(), `"request_id":"`+id+`"`)
		}, func() string { return "request " + id + " logged by neither instance" })
		return strings.Contains(in.out.String(), `"request_id":"`+id+`"`)
	}, in.out.String)
}

func (l *lab) redisOutage(t *testing.T) {
	redisBin, port := l.redis.cmd.Path, strings.TrimPrefix(strings.TrimSuffix(l.redisURL, "/0"), "redis://"+redisHost+":")
	l.redis.kill()
	_, err := net.DialTimeout("tcp", net.JoinHostPort(redisHost, port), time.Second)
	require.Error(t, err, "nothing answers on the killed Redis's port")
	// Per-instance limits: each instance, asked directly, allows one
	// source exactly rateLimit scans, the other's count notwithstanding
	// (with the shared count B would refuse the source at once). Asked
	// directly, not through nginx: which instance nginx picks is chance,
	// and seven scans in a row to one instance would look like a shared
	// limit.
	for name, in := range map[string]*instance{"A": l.a, "B": l.b} {
		allowed := countAllowed(t, in.base, "127.0.2.30", rateLimit+3)
		t.Logf("Redis down: instance %s allowed %d scans of one source before the first 429 (limit %d per instance)", name, allowed, rateLimit)
		assert.Equal(t, rateLimit, allowed, "with Redis down instance %s counts alone", name)
	}
	for _, in := range []*instance{l.a, l.b} {
		r := in.readiness(t)
		assert.Equal(t, "degraded", r.Status, "%+v", r)
		assert.Equal(t, "degraded", r.Components["ratelimit"], "%+v", r)
	}
	// Through nginx a scan of a new source is answered, not refused.
	a := post(l.nginx, "127.0.2.32", "good.example.com")
	require.NoError(t, a.err)
	assert.Equal(t, 200, a.status, a.body)
	p, _ := strconv.Atoi(port)
	l.startRedis(redisBin, p)
	for _, in := range []*instance{l.a, l.b} {
		waitFor(t, 15*time.Second, func() bool { return in.readiness(t).Status == "ok" }, in.out.String)
	}
	l.expectLimit(t, "127.0.2.31", rateLimit)
	logs := l.a.out.String()
	assert.Equal(t, 1, strings.Count(logs, "rate-limit store unreachable"), "the outage is logged once")
	assert.Contains(t, logs, "rate-limit store answers again")
}

func (l *lab) postgresDownAtStart(t *testing.T) {
	port := pgtest.FreePort(t)
	p := start(t, l.bin, "serve", "-listen", fmt.Sprintf("127.0.1.3:%d", l.port),
		"-admin-listen", fmt.Sprintf("127.0.1.3:%d", l.admin), "-dns", l.unbound, "-canary-name", "example.com",
		"-storage", pgtest.URLAt(port), "-ratelimit", l.redisURL, "-analytics-secret", secret)
	c := &instance{proc: p, base: fmt.Sprintf("http://127.0.1.3:%d", l.port), admin: fmt.Sprintf("http://127.0.1.3:%d", l.admin)}
	waitFor(t, 30*time.Second, func() bool {
		resp, err := http.Get(c.base + "/api/health")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	}, p.out.String)
	require.False(t, p.exited(), p.out.String())
	a := post(c.base, "127.0.2.40", "good.example.com")
	require.Equal(t, 200, a.status, "%s %v", a.body, a.err)
	t0 := time.Now()
	assert.Equal(t, "unavailable", healthStorage(t, c.base))
	t.Logf("health with PostgreSQL down answered in %v", time.Since(t0))
	assert.Equal(t, "degraded", c.readiness(t).Components["analytics"])
	pgtest.StartAt(t, port)
	t0 = time.Now()
	waitFor(t, 30*time.Second, func() bool { return healthStorage(t, c.base) == "ready" }, p.out.String)
	t.Logf("storage ready %v after PostgreSQL accepted connections", time.Since(t0))
	assert.Equal(t, "ok", c.readiness(t).Status)
}

// healthStorage is the storage field of GET /api/health.
func healthStorage(t *testing.T, base string) string {
	resp, err := http.Get(base + "/api/health")
	require.NoError(t, err)
	defer resp.Body.Close()
	var h struct{ Storage string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&h))
	return h.Storage
}

func (l *lab) sighup(t *testing.T) {
	require.NoError(t, l.b.cmd.Process.Signal(syscall.SIGHUP))
	waitFor(t, 5*time.Second, func() bool { return strings.Contains(l.b.out.String(), "SIGHUP received") }, l.b.out.String)
	require.False(t, l.b.exited(), "SIGHUP killed the instance")
	a := post(l.b.base, "127.0.2.50", "good.example.com")
	assert.Equal(t, 200, a.status, "%s %v", a.body, a.err)
}

func (l *lab) metrics(t *testing.T) {
	for _, in := range []*instance{l.a, l.b} {
		resp, err := http.Get(in.admin + "/metrics")
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		text := string(b)
		for _, name := range []string{"mailauth_http_requests_total", "mailauth_diagnostic_duration_seconds_bucket",
			"mailauth_checks_total", "mailauth_ratelimit_decisions_total", "mailauth_admissions_total",
			"mailauth_dns_cache_hits_total", "mailauth_analytics_queue_depth", "mailauth_build_info", "mailauth_ready"} {
			assert.Contains(t, text, name)
		}
		assert.NotContains(t, text, "example.com")
		assert.NotContains(t, text, "127.0.2.")
		assert.NotContains(t, text, "127.0.3.")
	}
	resp, err := http.Get(l.b.admin + "/metrics")
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Regexp(t, `mailauth_ratelimit_fallback_decisions_total [1-9]`, string(b), "B counted per instance during the Redis outage")
}

func (l *lab) logsPrivate(t *testing.T) {
	for name, text := range map[string]string{
		"a": l.a.out.String(), "b": l.b.out.String(), "nginx access": readFile(filepath.Join(l.dir, "access.log")),
	} {
		assert.NotContains(t, text, "example.com", name)
		assert.NotContains(t, text, "127.0.2.", name)
		assert.NotContains(t, text, "127.0.3.", name)
	}
}

func (l *lab) noInstance(t *testing.T) {
	l.a.kill()
	l.b.kill()
	a := post(l.nginx, "127.0.2.60", "good.example.com")
	require.NoError(t, a.err)
	assert.Equal(t, 500, a.status)
	assert.True(t, jsonAnswer(a), "%q %q", a.ctype, a.body)
	assert.Len(t, a.id, 32)
}

// waitFor polls cond until it holds or d passes, then fails with info().
func waitFor(t *testing.T, d time.Duration, cond func() bool, info func() string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out after %v:\n%s", d, info())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// TestSystemdUnit: `systemd-analyze verify` accepts deploy/mailauth.service
// without a warning (its ExecStart pointed at a built binary), and the
// unit has readiness (Type=notify) and a memory bound. Without
// systemd-analyze only the verify step is skipped, with a log line.
func TestSystemdUnit(t *testing.T) {
	raw, err := os.ReadFile("mailauth.service")
	require.NoError(t, err)
	unit := string(raw)
	for _, want := range []string{"\nType=notify\n", "\nNotifyAccess=main\n", "\nMemoryMax=", "\nMemoryHigh="} {
		assert.Contains(t, unit, want)
	}
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Log("systemd-analyze not installed: the verify step is skipped (the unit's content was checked)")
		return
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "mailauth")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/mailauth").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, unit, "/usr/local/bin/mailauth serve")
	path := filepath.Join(dir, "mailauth.service")
	require.NoError(t, os.WriteFile(path, []byte(strings.ReplaceAll(unit, "/usr/local/bin/mailauth serve", bin+" serve")), 0o644))
	out, err = exec.Command(analyze, "verify", path).CombinedOutput()
	assert.NoError(t, err)
	assert.Empty(t, strings.TrimSpace(string(out)), "systemd-analyze verify warns")
}
