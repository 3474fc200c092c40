package realdns_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mailauth/mailauth/internal/realdns"
)

// TestSlowDomainUnderLoad: the first scan of a domain whose name servers
// take 3 s to answer, on a machine held busy by CPU hogs the test starts
// itself (realdns.BusyLoad processes that only burn CPU). CPU starvation
// spends part of the scan's time, so the scan may not see every answer:
// what it must say is "complete, or ran out of time", never a fail that
// blames the domain and never a 500 that blames the service's resolver.
// The time-outs are the product's own; no deadline is raised for the
// test. MAILAUTH_BUSY_HOGS overrides the number of hogs (0: none).
func TestSlowDomainUnderLoad(t *testing.T) {
	w := realdns.Start(t)
	bin := buildCLI(t) // before the hogs: the build is not what is measured
	lab := []string{"-https-port", strconv.Itoa(w.HTTPSPort), "-ca-file", w.CAFile, "-allow-loopback-targets"}
	cliDNS := w.Resolver(t)
	svc := serve(t, bin, append([]string{"-dns", w.Resolver(t)}, lab...))

	hogs := realdns.BusyLoad
	if v := os.Getenv("MAILAUTH_BUSY_HOGS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			t.Fatalf("MAILAUTH_BUSY_HOGS=%q: want a count", v)
		}
		hogs = n
	}
	realdns.Hog(t, hogs) // until the parallel subtests end
	start := time.Now()
	logLoad(t, "hogs started", hogs)

	want := verdict{exit: 0, status: 200, grade: "A"}
	t.Run("cli", func(t *testing.T) {
		t.Parallel()
		exit, res, stderr := cliScan(t, bin, append(append([]string{"-dns", cliDNS}, lab...), realdns.Slow3))
		checkCLI(t, want, exit, res, stderr)
	})
	t.Run("service", func(t *testing.T) {
		t.Parallel()
		status, res, body := serviceScan(t, svc, realdns.Slow3, "")
		checkService(t, want, status, res, body)
	})
	t.Cleanup(func() { logLoad(t, "scans done after "+time.Since(start).Round(time.Second).String(), hogs) })
}

// logLoad logs the load average, for the record (no verdict reads it).
func logLoad(t *testing.T, when string, hogs int) {
	t.Helper()
	if l, err := realdns.LoadAverage(); err == nil {
		t.Logf("%s: %d CPU hogs, load average %.1f", when, hogs, l)
	}
}
