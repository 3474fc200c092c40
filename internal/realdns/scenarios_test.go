package realdns_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/realdns"
	"github.com/mailauth/mailauth/internal/syncbuf"
)

// Which resolver a scenario scans through.
const (
	validating = "validating" // Unbound over the world, a cold cache per path
	// The slow domains' rows each get validating Unbounds of their own,
	// so that what they measure (a scan of a slow domain through a
	// resolver) is not also the resolver's load from the lame and
	// blackholed rows scanned at the same moment: with one shared Unbound
	// the 3 s row missed the deadline on a loaded machine.
	alone1   = "validating, alone (1 s)"
	alone3   = "validating, alone (3 s)"
	servfail = "servfail" // Unbound that SERVFAILs everything
	down     = "down"     // nothing listens
	slow     = "slow"     // the validating Unbound behind a 2.2 s delay
)

// verdict is the documented outcome of a scan (doc/scoring.md,
// "Inconclusive lookups").
type verdict struct {
	exit   int      // exit status of `mailauth scan` (0 ok, 1 a check failed, 3 unavailable)
	status int      // HTTP status of POST /api/scan
	grade  string   // the grade of a 200 ("" not asserted: it depends on the weights); none for a 500
	fail   []string // checks that must be fail (a domain-side fault names its cause)
	says   string   // words every failing check's summary must hold: the cause named
	pass   []string // checks that must pass
	// error is what a 500 must say (the service's error message): which
	// fault it is, not only that there was one.
	error string
	// dnssec: the MX check's details say the records are DNSSEC-validated;
	// every other 200 must not say so.
	dnssec bool
}

// scenario is one row of the table: a domain, the resolver it is scanned
// through, the documented verdict of its FIRST scan, and whether today's
// code gives it (ready). Rows not ready are listed, not scanned.
type scenario struct {
	name     string
	domain   string
	resolver string
	ip       string // a sending IP to scan with, or none
	want     verdict
	ready    bool
	doc      string
	// again: scan a second time once the first has ended, through the
	// same resolver (whose cache then holds what it learnt meanwhile),
	// and check that scan against the same verdict.
	again bool
}

// The causes a domain-side fault names, in the English summaries
// (attribution.go's faultRules).
const (
	saysDNSSEC  = "DNSSEC signatures do not validate"
	saysNoReply = "name servers do not answer"
	saysAlias   = "alias (CNAME) chain"
	// The service's 500s (httpapi/errors.go).
	resolverDown = "DNS resolution temporarily unavailable"
	// ranOutOfTime is what a scan left incomplete by slowness says, in
	// the service's 500 and on the CLI's standard error: neither the
	// domain's fault nor the service's resolver failing.
	ranOutOfTime = "ran out of time waiting for the domain's servers"
)

// domainFault are the checks a scan of a domain whose own DNS fails
// judges: every check that reads the domain's records (dkim without a
// selector and ptr without a sending IP are info, not evaluated).
var domainFault = []string{"mx", "spf", "dmarc", "mta-sts", "tls-rpt", "caa"}

// scenarios is the verdict table; every row is ready since the
// attribution and the retry schedule landed.
var scenarios = []scenario{
	{name: "good signed domain", domain: realdns.Signed, resolver: validating, ready: true,
		want: verdict{exit: 0, status: 200, grade: "A", dnssec: true},
		doc:  "complete, grade A, no check undetermined; the MX details say the records are DNSSEC-validated (item 4)"},
	{name: "bogus (expired signatures)", domain: realdns.Bogus, resolver: validating, ready: true,
		want: verdict{exit: 1, status: 200, grade: "F", fail: domainFault, says: saysDNSSEC},
		doc:  "200; the domain's checks fail naming DNSSEC (signatures do not validate; validating receivers see none of its records), scored like any fail"},
	{name: "bogus, with a sending IP whose reverse DNS checks out", domain: realdns.Bogus, ip: realdns.MXAddress, resolver: validating, ready: true,
		want: verdict{exit: 1, status: 200, grade: "F", fail: domainFault, says: saysDNSSEC, pass: []string{"ptr"}},
		doc:  "200, grade F (it was a green A 100/100 beside 'the scan is incomplete'): the PTR check passes, the domain's checks fail naming DNSSEC"},
	{name: "lame (dead port)", domain: realdns.Lame, resolver: validating, ready: true, again: true,
		want: verdict{exit: 1, status: 200, grade: "F", fail: domainFault, says: saysNoReply},
		doc:  "Unbound gives up on these servers (SERVFAIL) only after about 18 s, past the 15 s scan: the first scan ran out of time (exit 3, a 500 that says so), never a fail built on a time-out; the second gets the SERVFAIL, and the domain's checks fail: its name servers do not answer"},
	{name: "refused", domain: realdns.Refused, resolver: validating, ready: true,
		want: verdict{exit: 1, status: 200, grade: "F", fail: domainFault, says: saysNoReply},
		doc:  "200; the domain's checks fail: its name servers refuse"},
	{name: "blackholed", domain: realdns.Blackhole, resolver: validating, ready: true, again: true,
		want: verdict{exit: 1, status: 200, grade: "F", fail: domainFault, says: saysNoReply},
		doc:  "as lame: the first scan ran out of time (Unbound's SERVFAIL comes after about 18 s); the second names the fault: its name servers do not answer"},
	{name: "1 s name servers", domain: realdns.Slow1, resolver: alone1, ready: true,
		want: verdict{exit: 0, status: 200, grade: "A"},
		doc:  "complete, grade A on the first scan: retries use the deadline and outlast Unbound's discard-timeout"},
	{name: "3 s name servers", domain: realdns.Slow3, resolver: alone3, ready: true,
		want: verdict{exit: 0, status: 200, grade: "A"},
		doc:  "complete, grade A on the first scan when every answer comes inside the 15 s deadline; on a loaded machine the checks that ran out of time say so (warn, left out of the score), never a fail (TestSlowDomainUnderLoad)"},
	{name: "CNAME loop", domain: realdns.Loop, resolver: validating, ready: true,
		want: verdict{exit: 1, status: 200, fail: []string{"mx", "spf", "caa"}, says: saysAlias},
		doc:  "200; the checks that read the domain's own name fail: a CNAME loop (Unbound answers SERVFAIL and shows no chain; the client asks the links as CNAME questions)"},
	{name: "12-name (11-link) CNAME chain", domain: realdns.Chain, resolver: validating, ready: true,
		want: verdict{exit: 0, status: 200, grade: "A"},
		doc:  "the resolver follows it: complete, grade A, judged on the records at the chain's end"},
	{name: "12-link CNAME chain", domain: realdns.LongChain, resolver: validating, ready: true,
		want: verdict{exit: 1, status: 200, fail: []string{"mx", "spf", "caa"}, says: saysAlias},
		doc:  "Unbound 1.17 gives up after 11 links (SERVFAIL): the checks that read the domain's own name fail, an over-long CNAME chain"},
	{name: "resolver answers in 2.2 s", domain: realdns.Signed, resolver: slow, ready: true,
		want: verdict{exit: 0, status: 200, grade: "A", dnssec: true},
		doc:  "complete, grade A on the first scan: an answer to an earlier attempt that arrives late is still taken"},
	{name: "resolver SERVFAILs everything", domain: realdns.Signed, resolver: servfail, ready: true,
		want: verdict{exit: 3, status: 500, error: resolverDown},
		doc:  "the service's own resolver fails a control question: 500 \"A DNS … dependency is temporarily unavailable\"; the CLI exits 3"},
	{name: "resolver down", domain: realdns.Signed, resolver: down, ready: true,
		want: verdict{exit: 3, status: 500, error: resolverDown},
		doc:  "the service's own resolver is down: 500; the CLI exits 3"},
}

// TestScenarios scans every ready scenario once, on a cold resolver,
// through the CLI (`mailauth scan -json`) and through the service
// (`mailauth serve`, POST /api/scan), and checks the documented verdict.
// Rows not ready yet are listed.
func TestScenarios(t *testing.T) {
	var pending []string
	for _, sc := range scenarios {
		if !sc.ready {
			pending = append(pending, sc.name+" → "+sc.doc)
		}
	}
	for _, p := range pending {
		t.Logf("not ready yet (not scanned): %s", p)
	}
	w := realdns.Start(t)
	bin := buildCLI(t)
	lab := []string{"-https-port", strconv.Itoa(w.HTTPSPort), "-ca-file", w.CAFile, "-allow-loopback-targets"}
	cliDNS := map[string]string{}
	svc := map[string]string{}
	for _, sc := range scenarios {
		if !sc.ready || cliDNS[sc.resolver] != "" {
			continue
		}
		switch sc.resolver {
		case validating, alone1, alone3: // a cold cache for each path: the scan is a first try
			cliDNS[sc.resolver] = w.Resolver(t)
			svc[sc.resolver] = serve(t, bin, append([]string{"-dns", w.Resolver(t)}, lab...))
		case servfail:
			cliDNS[sc.resolver] = w.ServfailResolver(t)
			svc[sc.resolver] = serve(t, bin, append([]string{"-dns", cliDNS[sc.resolver]}, lab...))
		case slow: // each path its own resolver, so each scan is a first try
			cliDNS[sc.resolver] = w.SlowResolver(t, 2200*time.Millisecond)
			svc[sc.resolver] = serve(t, bin, append([]string{"-dns", w.SlowResolver(t, 2200*time.Millisecond)}, lab...))
		case down:
			cliDNS[sc.resolver] = w.DeadResolver(t)
			svc[sc.resolver] = serve(t, bin, append([]string{"-dns", cliDNS[sc.resolver]}, lab...))
		}
	}
	for _, sc := range scenarios {
		if !sc.ready {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			t.Run("cli", func(t *testing.T) {
				t.Parallel()
				args := append([]string{"-dns", cliDNS[sc.resolver]}, lab...)
				if sc.ip != "" {
					args = append(args, "-ip", sc.ip)
				}
				exit, res, stderr := cliScanKnowing(t, bin, sc.want, append(args, sc.domain))
				checkCLI(t, sc.want, exit, res, stderr)
				if sc.again {
					exit, res, stderr = cliScan(t, bin, append(args, sc.domain))
					checkCLI(t, sc.want, exit, res, stderr)
				}
			})
			t.Run("service", func(t *testing.T) {
				t.Parallel()
				status, res, body := serviceScan(t, svc[sc.resolver], sc.domain, sc.ip)
				checkService(t, sc.want, status, res, body)
				if sc.again {
					status, res, body = serviceScan(t, svc[sc.resolver], sc.domain, sc.ip)
					checkService(t, sc.want, status, res, body)
				}
			})
		})
	}
}

// What a scan must say when the machine is slow. A row's verdict is what
// its first scan says when every answer comes in time; on a loaded
// machine (or with name servers slower than the scan's deadline) a check
// may instead run out of time: a warn that says so (slow, or not
// finished), left out of the score, and never a fail, a pass or another
// cause. A scan left incomplete that way is an exit 3 or a 500 whose
// message says it ran out of time, never a grade and never the service's
// resolver failing. So each row asserts its verdict where the scan
// completed, and "ran out of time" where it did not: no row depends on
// how fast the machine is.

// checkCLI checks the exit status and the result of `mailauth scan`.
func checkCLI(t *testing.T, want verdict, exit int, res result, stderr string) {
	t.Helper()
	if exit == 3 && want.exit != 3 {
		assert.Contains(t, stderr, ranOutOfTime, "exit 3 for a domain with an answer: only when the scan ran out of time")
		checkChecks(t, want, res)
		return
	}
	assert.Equal(t, want.exit, exit, "exit status")
	if want.status == http.StatusOK {
		checkResult(t, want, res)
	}
}

// checkService checks the status and the body of POST /api/scan.
func checkService(t *testing.T, want verdict, status int, res result, body string) {
	t.Helper()
	if status == http.StatusInternalServerError && want.status == http.StatusOK {
		assert.Contains(t, body, ranOutOfTime, "a 500 for a domain with an answer: only when the scan ran out of time")
		return
	}
	assert.Equal(t, want.status, status, "HTTP status")
	if want.status == http.StatusOK && status == http.StatusOK {
		checkResult(t, want, res)
	}
	if want.error != "" {
		assert.Contains(t, body, want.error, "the 500 names the service's resolver")
	}
}

// result is the part of a ScanSummary the verdicts look at.
type result struct {
	Grade  string `json:"grade"`
	Score  int    `json:"score"`
	Checks []struct {
		ID      string                 `json:"id"`
		Status  string                 `json:"status"`
		Summary mailauth.LocalizedText `json:"summary"`
		Details mailauth.LocalizedText `json:"details"`
	} `json:"checks"`
}

// checkResult checks a 200 scan result against the verdict: the grade
// (a check that ran out of time leaves the score, so the others still
// give the row's grade), and each check (checkChecks).
func checkResult(t *testing.T, want verdict, res result) {
	t.Helper()
	if want.grade != "" {
		assert.Equal(t, want.grade, res.Grade, "grade (score %d)", res.Score)
	}
	checkChecks(t, want, res)
}

// checkChecks checks each check of a result: one that ran out of time
// is a warn and nothing else is said of it; any other is determined, and
// fails naming the row's cause, passes, or (grade A rows) does not fail.
func checkChecks(t *testing.T, want verdict, res result) {
	t.Helper()
	require.Len(t, res.Checks, len(mailauth.CheckOrder()))
	for _, c := range res.Checks {
		// The JSON says "undetermined" only in words: read it back as the
		// CLI's -server mode does.
		read := []mailauth.CheckSummary{{Summary: c.Summary}}
		mailauth.RestoreDetermination(read)
		if d := read[0].Determination; d == mailauth.UndeterminedSlow || d == mailauth.UndeterminedTimeout {
			assert.Equal(t, "warn", c.Status, "%s ran out of time: a warn, never a fail", c.ID)
			t.Logf("%s ran out of time (%s): %s", c.ID, d, c.Summary.EN)
			continue
		}
		assert.False(t, read[0].Undetermined(), "%s is undetermined: %s", c.ID, c.Summary.EN)
		switch {
		case slices.Contains(want.fail, c.ID):
			assert.Equal(t, "fail", c.Status, "%s: %s", c.ID, c.Summary.EN)
			assert.Contains(t, c.Summary.EN, want.says, "%s names the cause", c.ID)
		case slices.Contains(want.pass, c.ID):
			assert.Equal(t, "pass", c.Status, "%s: %s", c.ID, c.Summary.EN)
		case want.grade == "A":
			assert.NotEqual(t, "fail", c.Status, "%s: %s", c.ID, c.Summary.EN)
		}
		if c.ID == "mx" {
			said := strings.Contains(c.Details.EN, "DNSSEC-signed and validated")
			assert.Equal(t, want.dnssec, said, "the MX details say the records are DNSSEC-validated: %s", c.Details.EN)
		}
	}
}

// buildCLI builds cmd/mailauth into the test's temporary directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mailauth")
	goBin, err := exec.LookPath("go")
	require.NoError(t, err, "the go command")
	out, err := exec.Command(goBin, "build", "-o", bin, "github.com/mailauth/mailauth/cmd/mailauth").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// cliScan runs `mailauth scan -json ARGS` and returns its exit status,
// the decoded result (zero when it printed none) and its standard error.
func cliScan(t *testing.T, bin string, args []string) (int, result, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(bin, append([]string{"scan", "-json"}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Env = []string{"LANG=C"}
	err := cmd.Run()
	exit := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		exit = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	var res result
	if out.Len() > 0 {
		require.NoError(t, json.Unmarshal(out.Bytes(), &res), "scan output: %s", out.String())
	}
	t.Logf("cli: exit %d, grade %q, score %d; %s", exit, res.Grade, res.Score, strings.TrimSpace(errOut.String()))
	return exit, res, errOut.String()
}

// probeWait is how long a CLI scan waits for its probe of the resolver's
// properties: a quarter of its time (the CLI's default 15 s).
const probeWait = mailauth.DefaultScanTimeout / 4

// cliScanKnowing is cliScan, made again when a row that must say the MX
// records are DNSSEC-validated got a determined MX check that does not
// say so from a run that took probeWait or longer: such a scan may have
// gone on without knowing that its resolver validates (its probe, a few
// seconds, had not ended when a loaded machine spent the wait), and does
// not count. A scan that never says so still fails, after five runs.
func cliScanKnowing(t *testing.T, bin string, want verdict, args []string) (int, result, string) {
	t.Helper()
	for run := 0; ; run++ {
		start := time.Now()
		exit, res, stderr := cliScan(t, bin, args)
		if !want.dnssec || time.Since(start) < probeWait || run == 4 || saysValidated(res) {
			return exit, res, stderr
		}
		t.Logf("run %d took %v and its MX check does not say validated: made again", run, time.Since(start))
	}
}

// saysValidated reports whether res has no determined MX check that
// leaves out that the records are DNSSEC-validated.
func saysValidated(res result) bool {
	for _, c := range res.Checks {
		if c.ID != "mx" {
			continue
		}
		read := []mailauth.CheckSummary{{Summary: c.Summary}}
		mailauth.RestoreDetermination(read)
		return read[0].Undetermined() || strings.Contains(c.Details.EN, "DNSSEC-signed and validated")
	}
	return true
}

// serve starts `mailauth serve` on 127.0.0.1 (no storage) and returns its
// base URL. It stops when the test ends.
func serve(t *testing.T, bin string, args []string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "-listen", "127.0.0.1:0", "-admin-listen", "127.0.0.1:0", "-storage", "none",
		"-rate-limit-max", "1000", "-dns-cache-mb", "0"}, args...)...)
	cmd.Env = []string{"LANG=C"}
	realdns.DieWithTest(cmd)
	pr, pw := io.Pipe()
	var log syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &log, io.MultiWriter(&log, pw)
	require.NoError(t, cmd.Start())
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); _ = pw.Close(); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
		if t.Failed() {
			t.Logf("serve log:\n%s", log.String())
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" {
				addr <- line.Addr
			}
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		require.True(t, ok, "serve exited: %s", log.String())
		go func() { _, _ = io.Copy(io.Discard, pr) }()
		return "http://" + a
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not start: %s", log.String())
	}
	return ""
}

// serviceScan posts a scan of domain and returns the status and the
// decoded 200 body.
// sourceSeq numbers the service scans' source addresses.
var sourceSeq atomic.Uint32

func serviceScan(t *testing.T, base, domain, ip string) (int, result, string) {
	t.Helper()
	req := map[string]string{"domain": domain}
	if ip != "" {
		req["sendingIp"] = ip
	}
	body, _ := json.Marshal(req)
	// Each scan comes from its own loopback address (all of 127.0.0.0/8
	// is local on Linux): the service gives a source's second and third
	// concurrent diagnostics a shorter deadline, and the rows run in
	// parallel, but each documents the FIRST scan of one user.
	src := &net.TCPAddr{IP: net.IPv4(127, 0, 9, byte(sourceSeq.Add(1)))}
	client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{
		DialContext: (&net.Dialer{LocalAddr: src, Timeout: 5 * time.Second}).DialContext,
	}}
	resp, err := client.Post(base+"/api/scan", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var res result
	if resp.StatusCode == http.StatusOK {
		require.NoError(t, json.Unmarshal(raw, &res), "body: %s", raw)
	}
	t.Logf("service: %d, grade %q, score %d", resp.StatusCode, res.Grade, res.Score)
	return resp.StatusCode, res, string(raw)
}
