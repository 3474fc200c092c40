package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mailauth/mailauth/spf"
)

// TestMain lets the test binary serve as the bench's service process:
// the load phases re-execute os.Executable, which is this binary here.
func TestMain(m *testing.M) {
	if os.Getenv(serviceEnv) == serviceRole {
		os.Exit(serviceMain(os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestBenchSmoke runs every phase of the bench on a tiny world: each
// domain scans without failure and with every check determined, the
// bound never exceeds the wall time, the shared cache answers the
// providers' shared questions, the load phase gets only 200s, and the
// printed tables carry every figure.
func TestBenchSmoke(t *testing.T) {
	l, err := startLab(12)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()

	r := l.runScans(scanPhase{delay: time.Millisecond, concurrency: 4, cacheBytes: 1 << 20})
	if r.scans != 12 || r.failed != 0 || r.undeterminedPct != 0 {
		t.Fatalf("concurrent phase: %+v: want 12 scans, none failed, every check determined", r)
	}
	if r.ratioMedian < 1 || r.questions < 15 || r.hitRate <= 0 || r.wire >= r.questions {
		t.Errorf("concurrent phase: %+v: want wall >= bound, >= 15 questions per scan, cache hits, fewer wire queries than questions", r)
	}
	seq := l.runScans(scanPhase{delay: time.Millisecond, concurrency: 4, sequential: true})
	if seq.scans != 12 || seq.failed != 0 || seq.undeterminedPct != 0 || seq.wire != seq.questions {
		t.Fatalf("sequential phase without cache: %+v: want 12 scans, all determined, one wire query per question", seq)
	}

	dir := t.TempDir()
	heap := filepath.Join(dir, "heap.prof")
	cpu := filepath.Join(dir, "cpu.prof")
	lr, err := l.runLoad(loadPhase{clients: 3, dur: 300 * time.Millisecond, maxInFlight: 8, cpuProfile: cpu, heapProfile: heap, analytics: true})
	if err != nil {
		t.Fatal(err)
	}
	if lr.ok == 0 || lr.failed != 0 || lr.serviceCPU <= 0 || lr.labCPU <= 0 {
		t.Fatalf("load phase: %+v: want answered scans, no errors, the CPU of both processes measured", lr)
	}
	if lr.service.Committed < int64(lr.ok) {
		t.Errorf("load phase: %d analytics rows committed for %d answered scans: the SQLite store must record every scan", lr.service.Committed, lr.ok)
	}
	if lr.startRSS <= 0 || lr.peakRSS < lr.startRSS {
		t.Errorf("load phase: service RSS at start %d, peak %d: want both, peak >= start", lr.startRSS, lr.peakRSS)
	}
	if lr.service.HitRate <= 0 || lr.service.Cache.Misses == 0 || lr.service.GCPercent == 0 || lr.service.MemoryLimit <= 0 {
		t.Errorf("load phase: service figures %+v: want the shared cache's hits and misses and the collector's settings", lr.service)
	}
	if lr.heap == nil || lr.heap.HeapInuse == 0 || lr.heap.StackInuse == 0 || lr.heap.Goroutines == 0 || lr.heap.Sys < lr.heap.HeapInuse {
		t.Errorf("load phase: heap snapshot %+v: want the service's heap, stacks and goroutines", lr.heap)
	}
	for _, f := range []string{heap, cpu} {
		b, err := os.ReadFile(f)
		if err != nil || !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) { // pprof files are gzipped
			t.Errorf("%s: %d bytes, %v: want a gzipped profile", filepath.Base(f), len(b), err)
		}
	}
}

// TestFloorPhase: the floor phase measures every part of the floor and
// the checks alone, and the SPF deep tree's round trips are counted.
func TestFloorPhase(t *testing.T) {
	l, err := startLab(12)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	f, err := l.runFloor(12)
	if err != nil {
		t.Fatal(err)
	}
	if f.parts.Exchange <= 0 || f.parts.TLS <= 0 || f.http <= 0 || f.parts.Failed != 0 || f.answerSize < 1000 {
		t.Errorf("floor %+v: want every part measured, nothing failed, a real answer's size", f)
	}
	if f.spf.CPU <= 0 || f.dmarc.CPU <= 0 || f.dmarc.Wire < 1 {
		t.Errorf("checks alone: SPF %+v, DMARC %+v: want their CPU and DMARC's wire queries", f.spf, f.dmarc)
	}
	trips, _, lookups, err := l.spfRoundTrips(time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	// The walk stops at spf.MaxExpandTerms (40) counted terms: the domain's
	// own record and at least 40 targets are fetched. The waves are read
	// from the clock, so a busy machine can only add some (a lookup
	// starting late): the exact count, 4, is spf's synctest unit test's
	// to prove; here the tree must at least take its depth.
	if trips < deepTreeDepth || lookups < spf.MaxExpandTerms+1 {
		t.Errorf("SPF deep tree: %d round trips, %d lookups: want at least %d and at least %d", trips, lookups, deepTreeDepth, spf.MaxExpandTerms+1)
	}
}

// TestServiceRefuses: the service process refuses a configuration that
// would reach beyond 127.0.0.1 or lacks what it needs, before it serves
// anything, and says why.
func TestServiceRefuses(t *testing.T) {
	good := `"httpsPort":8443,"caPem":"x","cacheBytes":0,"maxInFlight":1,"rateLimit":1`
	for name, line := range map[string]string{
		"public DNS":     `{"dns":"192.0.2.1:53",` + good + `}`,
		"other loopback": `{"dns":"127.0.0.2:53",` + good + `}`,
		"no port":        `{"dns":"127.0.0.1:0",` + good + `}`,
		"no CA":          `{"dns":"127.0.0.1:53",` + good + `}`,
		"not JSON":       `dns=127.0.0.1:53`,
		"relative store": `{"dns":"127.0.0.1:53",` + good + `,"analytics":"sqlite:x.db"}`,
		"nothing":        ``,
	} {
		t.Run(name, func(t *testing.T) {
			var out, errOut strings.Builder
			if code := serviceMain(strings.NewReader(line), &out, &errOut); code == 0 || out.Len() != 0 || errOut.Len() == 0 {
				t.Errorf("exit %d, stdout %q, stderr %q: want a failure on stderr and nothing on stdout", code, out.String(), errOut.String())
			}
		})
	}
}

// TestBenchOutput runs the whole program's flow with tiny settings and
// checks the tables it prints.
func TestBenchOutput(t *testing.T) {
	o, err := parseFlags([]string{"-quick", "-n", "6", "-delays", "1ms", "-concurrency", "3", "-clients", "2",
		"-load-delays", "0", "-load-dur", "200ms", "-rss=false", "-solo", "2", "-spf-delay", "1ms"}, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(o, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"wall/bound p50", "seq/conc wall", "wire queries/scan", "cache hit rate",
		"D=1ms concurrent, cache", "D=1ms sequential checks, cache", "D=1ms one scan at a time, concurrent checks", "D=1ms one scan at a time, concurrent checks, warm cache", "service peak RSS MiB", "scans/s", "service CPU ms/scan", "lab+load CPU ms/scan", "D=0s, 2 clients", "service process: GOGC=",
		"Headline", "floor: CPU ms per scan", "service CPU / floor, D=0s, 2 clients", "SPF deep tree", "round trips", "DMARC alone: CPU / floor", "SPF alone: CPU / floor", "analytics on"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestBenchFlags: defaults of the full and quick runs, and bad values.
func TestBenchFlags(t *testing.T) {
	full, err := parseFlags(nil, &strings.Builder{})
	if err != nil || full.n != 10000 || full.scanN != 3000 || full.runs != 5 || full.loadDur != 5*time.Second || len(full.clients) != 4 {
		t.Fatalf("full defaults %+v, %v", full, err)
	}
	quick, err := parseFlags([]string{"-quick"}, &strings.Builder{})
	if err != nil || quick.n != 2000 || quick.scanN != 600 || quick.runs != 1 || quick.loadDur != 2*time.Second {
		t.Fatalf("quick defaults %+v, %v", quick, err)
	}
	for _, bad := range [][]string{{"-delays", "x"}, {"-clients", "0"}, {"-n", "-1"}, {"-scan-n", "-3"}, {"-load-delays", "-5ms"}, {"-rss=false", "-service-memprofile", "m.prof"}} {
		if _, err := parseFlags(bad, &strings.Builder{}); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// TestPlannedLoadPhases: every phase's service CPU profile has a file of
// its own, and the heap profile is taken once, in the memory phase.
func TestPlannedLoadPhases(t *testing.T) {
	o, err := parseFlags([]string{"-clients", "1,500", "-load-delays", "0,20ms", "-service-cpuprofile", "/tmp/x/cpu.prof", "-service-memprofile", "m.prof"}, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	for run, wantSuffix := range []string{"", "-run2"} {
		phases := plannedLoadPhases(o, run)
		if len(phases) != 5 {
			t.Fatalf("run %d: %d phases, want 4 and the memory phase", run, len(phases))
		}
		files := map[string]bool{}
		for _, p := range phases {
			files[p.cpuProfile] = true
		}
		if !files["/tmp/x/cpu-D0s-500c"+wantSuffix+".prof"] || !files["/tmp/x/cpu-D100ms-500c"+wantSuffix+".prof"] || len(files) != 5 {
			t.Errorf("run %d: CPU profile files %v", run, files)
		}
		mem := phases[4]
		wantHeap := map[int]string{0: "m.prof", 1: ""}[run]
		if mem.clients != 500 || mem.delay != 100*time.Millisecond || mem.maxInFlight < 500 || mem.heapProfile != wantHeap {
			t.Errorf("run %d: memory phase %+v, want 500 clients at 100ms with heap profile %q", run, mem, wantHeap)
		}
		for _, p := range phases[:4] {
			if p.heapProfile != "" {
				t.Errorf("run %d: heap profile in %+v", run, p)
			}
		}
	}
}

// TestWarmSkipsMeasuredDomains: the warm-up of a "warm cache" phase fills
// the shared cache from other domains only, even when the lab is smaller
// than the measured domains plus the warm-up (a small -n): the measured
// domains' own records must still go to the wire.
func TestWarmSkipsMeasuredDomains(t *testing.T) {
	l, err := startLab(6)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	r := l.runScans(scanPhase{concurrency: 1, limit: 2, cacheBytes: 1 << 20, warm: soloWarm})
	if r.scans != 2 || r.failed != 0 {
		t.Fatalf("warm phase: %+v: want 2 scans, none failed", r)
	}
	if r.wire == 0 || r.hitRate >= 1 {
		t.Errorf("warm phase: %+v: the measured domains were answered from the warm-up's cache (%.1f wire queries per scan, hit rate %.2f)", r, r.wire, r.hitRate)
	}
}
