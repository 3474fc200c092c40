package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	require.NoError(t, err)
	defer l.close()

	r := l.runScans(scanPhase{delay: time.Millisecond, concurrency: 4, cacheBytes: 1 << 20})
	require.Equal(t, 12, r.scans, "concurrent phase: %+v: want 12 scans, none failed, every check determined", r)
	require.Equal(t, 0, r.failed, "concurrent phase: %+v: want 12 scans, none failed, every check determined", r)
	require.Equal(t, 0.0, r.undeterminedPct, "concurrent phase: %+v: want 12 scans, none failed, every check determined", r)
	assert.GreaterOrEqual(t, r.ratioMedian, 1.0, "concurrent phase: %+v: want wall >= bound", r)
	assert.GreaterOrEqual(t, r.questions, 15.0, "concurrent phase: %+v: want >= 15 questions per scan", r)
	assert.Greater(t, r.hitRate, 0.0, "concurrent phase: %+v: want cache hits", r)
	assert.Less(t, r.wire, r.questions, "concurrent phase: %+v: want fewer wire queries than questions", r)
	seq := l.runScans(scanPhase{delay: time.Millisecond, concurrency: 4, sequential: true})
	require.Equal(t, 12, seq.scans, "sequential phase without cache: %+v: want 12 scans, all determined, one wire query per question", seq)
	require.Equal(t, 0, seq.failed, "sequential phase without cache: %+v: want 12 scans, all determined, one wire query per question", seq)
	require.Equal(t, 0.0, seq.undeterminedPct, "sequential phase without cache: %+v: want 12 scans, all determined, one wire query per question", seq)
	require.Equal(t, seq.questions, seq.wire, "sequential phase without cache: %+v: want 12 scans, all determined, one wire query per question", seq)

	dir := t.TempDir()
	heap := filepath.Join(dir, "heap.prof")
	cpu := filepath.Join(dir, "cpu.prof")
	phase := loadPhase{clients: 3, dur: 300 * time.Millisecond, maxInFlight: 8, cpuProfile: cpu, heapProfile: heap, analytics: true}
	lr, err := l.runLoad(phase)
	require.NoError(t, err)
	const loadWant = "load phase: %+v: want answered scans, no errors, the CPU of both processes measured"
	require.NotZero(t, lr.ok, loadWant, lr)
	require.Zero(t, lr.failed, loadWant, lr)
	require.Greater(t, lr.serviceCPU, 0.0, loadWant, lr)
	require.Greater(t, lr.labCPU, 0.0, loadWant, lr)
	assert.GreaterOrEqual(t, lr.service.Committed, int64(lr.ok), "load phase: %d analytics rows committed for %d answered scans: the SQLite store must record every scan", lr.service.Committed, lr.ok)
	assert.Greater(t, lr.startRSS, int64(0), "load phase: service RSS at start %d, peak %d: want both, peak >= start", lr.startRSS, lr.peakRSS)
	assert.GreaterOrEqual(t, lr.peakRSS, lr.startRSS, "load phase: service RSS at start %d, peak %d: want both, peak >= start", lr.startRSS, lr.peakRSS)
	const serviceWant = "load phase: service figures %+v: want the shared cache's hits and misses and the collector's settings"
	assert.Greater(t, lr.service.HitRate, 0.0, serviceWant, lr.service)
	assert.NotZero(t, lr.service.Cache.Misses, serviceWant, lr.service)
	assert.NotZero(t, lr.service.GCPercent, serviceWant, lr.service)
	assert.Greater(t, lr.service.MemoryLimit, int64(0), serviceWant, lr.service)
	const heapWant = "load phase: heap snapshot %+v: want the service's heap, stacks and goroutines"
	if assert.NotNil(t, lr.heap, heapWant, lr.heap) {
		assert.NotZero(t, lr.heap.HeapInuse, heapWant, lr.heap)
		assert.NotZero(t, lr.heap.StackInuse, heapWant, lr.heap)
		assert.NotZero(t, lr.heap.Goroutines, heapWant, lr.heap)
		assert.GreaterOrEqual(t, lr.heap.Sys, lr.heap.HeapInuse, heapWant, lr.heap)
		assert.NotZero(t, lr.heap.StackStart, heapWant, lr.heap)
	}
	const idleWant = "load phase: idle snapshot %+v: want the idle service's heap and stacks, read after the load"
	if assert.NotNil(t, lr.idle, idleWant, lr.idle) {
		assert.NotZero(t, lr.idle.HeapLive, idleWant, lr.idle)
		assert.NotZero(t, lr.idle.StackInuse, idleWant, lr.idle)
	}
	g, err := os.ReadFile(filepath.Join(dir, "heap.goroutine.txt"))
	if assert.NoError(t, err, "want the service's goroutines beside its heap profile") {
		assert.Contains(t, string(g), "goroutine profile:", "heap.goroutine.txt: want the goroutines grouped by stack")
	}
	if lr.inFlight > 0 && lr.idle != nil && lr.idle.CacheEntries > 0 {
		assert.Contains(t, heapNote(phase, lr), "go run ./internal/cmd/profparts -n ", "the heap note: want the command that gives the heap by part")
		assert.Contains(t, heapNote(phase, lr), "-base "+filepath.Join(dir, "heap.bare.prof")+" "+heap, "the heap note: want the command that gives the heap by part")
	}
	for _, f := range []string{heap, filepath.Join(dir, "heap.idle.prof"), filepath.Join(dir, "heap.bare.prof"), cpu} {
		b, err := os.ReadFile(f)
		assert.NoError(t, err, "%s: want a gzipped profile", filepath.Base(f))
		// pprof files are gzipped
		assert.True(t, bytes.HasPrefix(b, []byte{0x1f, 0x8b}), "%s: %d bytes: want a gzipped profile", filepath.Base(f), len(b))
	}
}

// TestFloorPhase: the floor phase measures every part of the floor and
// the checks alone, and the SPF deep tree's round trips are counted.
func TestFloorPhase(t *testing.T) {
	l, err := startLab(12)
	require.NoError(t, err)
	defer l.close()
	f, err := l.runFloor(12, 1, true)
	require.NoError(t, err)
	const floorWant = "floor %+v: want every part measured, nothing failed, a real answer's size"
	assert.Greater(t, f.parts.Exchange, time.Duration(0), floorWant, f)
	assert.Greater(t, f.parts.TLS, time.Duration(0), floorWant, f)
	assert.Greater(t, f.http, time.Duration(0), floorWant, f)
	assert.Zero(t, f.parts.Failed, floorWant, f)
	assert.GreaterOrEqual(t, f.answerSize, int64(1000), floorWant, f)
	const aloneWant = "checks alone: SPF %+v, DMARC %+v: want their CPU and DMARC's wire queries"
	assert.Greater(t, f.spf.CPU, time.Duration(0), aloneWant, f.spf, f.dmarc)
	assert.Greater(t, f.dmarc.CPU, time.Duration(0), aloneWant, f.spf, f.dmarc)
	assert.GreaterOrEqual(t, f.dmarc.Wire, 1.0, aloneWant, f.spf, f.dmarc)
	// At a load phase's concurrency: every part measured too, with
	// several clients at once.
	c, err := l.runFloor(12, 4, false)
	require.NoError(t, err)
	assert.Equal(t, 4, c.clients)
	assert.Greater(t, c.parts.Exchange, time.Duration(0), floorWant, c)
	assert.Greater(t, c.parts.TLS, time.Duration(0), floorWant, c)
	assert.Greater(t, c.http, time.Duration(0), floorWant, c)
	assert.Zero(t, c.parts.Failed, floorWant, c)
	assert.NotEmpty(t, c.load, "the load average when it was measured")
	trips, _, lookups, err := l.spfRoundTrips(time.Millisecond)
	require.NoError(t, err)
	// The walk stops at spf.MaxExpandTerms (40) counted terms: the domain's
	// own record and at least 40 targets are fetched. The waves are read
	// from the clock, so a busy machine can only add some (a lookup
	// starting late): the exact count, 4, is spf's synctest unit test's
	// to prove; here the tree must at least take its depth.
	assert.GreaterOrEqual(t, trips, deepTreeDepth, "SPF deep tree: %d round trips, %d lookups: want at least %d and at least %d", trips, lookups, deepTreeDepth, spf.MaxExpandTerms+1)
	assert.GreaterOrEqual(t, lookups, spf.MaxExpandTerms+1, "SPF deep tree: %d round trips, %d lookups: want at least %d and at least %d", trips, lookups, deepTreeDepth, spf.MaxExpandTerms+1)
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
			code := serviceMain(strings.NewReader(line), &out, &errOut)
			const want = "exit %d, stdout %q, stderr %q: want a failure on stderr and nothing on stdout"
			assert.NotZero(t, code, want, code, out.String(), errOut.String())
			assert.Zero(t, out.Len(), want, code, out.String(), errOut.String())
			assert.NotZero(t, errOut.Len(), want, code, out.String(), errOut.String())
		})
	}
}

// TestBenchOutput runs the whole program's flow with tiny settings and
// checks the tables it prints.
func TestBenchOutput(t *testing.T) {
	o, err := parseFlags([]string{"-quick", "-n", "6", "-delays", "1ms", "-concurrency", "3", "-clients", "2",
		"-load-delays", "0", "-load-dur", "200ms", "-rss=false", "-solo", "2", "-spf-delay", "1ms"}, &strings.Builder{})
	require.NoError(t, err)
	var out strings.Builder
	require.NoError(t, run(o, &out))
	for _, want := range []string{"wall/bound p50", "seq/conc wall", "wire queries/scan", "cache hit rate",
		"D=1ms concurrent, cache", "D=1ms sequential checks, cache", "D=1ms one scan at a time, concurrent checks", "D=1ms one scan at a time, concurrent checks, warm cache", "service peak RSS MiB", "scans/s", "service CPU ms/scan", "lab+load CPU ms/scan", "D=0s, 2 clients", "service process: GOGC=",
		"Headline", "floor: CPU ms per scan", "service CPU / floor, D=0s, 2 clients", "SPF deep tree", "round trips", "DMARC alone: CPU / floor", "SPF alone: CPU / floor", "analytics on"} {
		assert.Contains(t, out.String(), want, "output lacks %q", want)
	}
}

// TestBenchFlags: defaults of the full and quick runs, and bad values.
func TestBenchFlags(t *testing.T) {
	full, err := parseFlags(nil, &strings.Builder{})
	require.NoError(t, err, "full defaults")
	require.Equal(t, 10000, full.n, "full defaults %+v", full)
	require.Equal(t, 3000, full.scanN, "full defaults %+v", full)
	require.Equal(t, 5, full.runs, "full defaults %+v", full)
	require.Equal(t, 5*time.Second, full.loadDur, "full defaults %+v", full)
	require.Len(t, full.clients, 4, "full defaults %+v", full)
	quick, err := parseFlags([]string{"-quick"}, &strings.Builder{})
	require.NoError(t, err, "quick defaults")
	require.Equal(t, 2000, quick.n, "quick defaults %+v", quick)
	require.Equal(t, 600, quick.scanN, "quick defaults %+v", quick)
	require.Equal(t, 1, quick.runs, "quick defaults %+v", quick)
	require.Equal(t, 2*time.Second, quick.loadDur, "quick defaults %+v", quick)
	for _, bad := range [][]string{{"-delays", "x"}, {"-clients", "0"}, {"-n", "-1"}, {"-scan-n", "-3"}, {"-load-delays", "-5ms"}, {"-rss=false", "-service-memprofile", "m.prof"}} {
		_, err := parseFlags(bad, &strings.Builder{})
		assert.Error(t, err, "%v accepted", bad)
	}
}

// TestPlannedLoadPhases: every phase's service CPU profile has a file of
// its own, and the heap profile is taken once, in the memory phase.
func TestPlannedLoadPhases(t *testing.T) {
	o, err := parseFlags([]string{"-clients", "1,500", "-load-delays", "0,20ms", "-service-cpuprofile", "/tmp/x/cpu.prof", "-service-memprofile", "m.prof"}, &strings.Builder{})
	require.NoError(t, err)
	for run, wantSuffix := range []string{"", "-run2"} {
		phases := plannedLoadPhases(o, run)
		require.Len(t, phases, 5, "run %d: want 4 and the memory phase", run)
		files := map[string]bool{}
		for _, p := range phases {
			files[p.cpuProfile] = true
		}
		assert.True(t, files["/tmp/x/cpu-D0s-500c"+wantSuffix+".prof"], "run %d: CPU profile files %v", run, files)
		assert.True(t, files["/tmp/x/cpu-D100ms-500c"+wantSuffix+".prof"], "run %d: CPU profile files %v", run, files)
		assert.Len(t, files, 5, "run %d: CPU profile files %v", run, files)
		mem := phases[4]
		wantHeap := map[int]string{0: "m.prof", 1: ""}[run]
		const memWant = "run %d: memory phase %+v, want 500 clients at 100ms with heap profile %q"
		assert.Equal(t, 500, mem.clients, memWant, run, mem, wantHeap)
		assert.Equal(t, 100*time.Millisecond, mem.delay, memWant, run, mem, wantHeap)
		assert.GreaterOrEqual(t, mem.maxInFlight, 500, memWant, run, mem, wantHeap)
		assert.Equal(t, wantHeap, mem.heapProfile, memWant, run, mem, wantHeap)
		for _, p := range phases[:4] {
			assert.Empty(t, p.heapProfile, "run %d: heap profile in %+v", run, p)
		}
	}
}

// TestWarmSkipsMeasuredDomains: the warm-up of a "warm cache" phase fills
// the shared cache from other domains only, even when the lab is smaller
// than the measured domains plus the warm-up (a small -n): the measured
// domains' own records must still go to the wire.
func TestWarmSkipsMeasuredDomains(t *testing.T) {
	l, err := startLab(6)
	require.NoError(t, err)
	defer l.close()
	r := l.runScans(scanPhase{concurrency: 1, limit: 2, cacheBytes: 1 << 20, warm: soloWarm})
	require.Equal(t, 2, r.scans, "warm phase: %+v: want 2 scans, none failed", r)
	require.Equal(t, 0, r.failed, "warm phase: %+v: want 2 scans, none failed", r)
	const warmWant = "warm phase: %+v: the measured domains were answered from the warm-up's cache (%.1f wire queries per scan, hit rate %.2f)"
	assert.NotZero(t, r.wire, warmWant, r, r.wire, r.hitRate)
	assert.Less(t, r.hitRate, 1.0, warmWant, r, r.wire, r.hitRate)
}
