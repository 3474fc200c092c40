package main

import (
	"strings"
	"testing"
	"time"
)

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

	lr, err := l.runLoad(loadPhase{clients: 3, dur: 300 * time.Millisecond, maxInFlight: 8})
	if err != nil {
		t.Fatal(err)
	}
	if lr.ok == 0 || lr.failed != 0 || lr.cpuPerScan <= 0 {
		t.Fatalf("load phase: %+v: want answered scans, no errors, CPU measured", lr)
	}
}

// TestBenchOutput runs the whole program's flow with tiny settings and
// checks the tables it prints.
func TestBenchOutput(t *testing.T) {
	o, err := parseFlags([]string{"-quick", "-n", "6", "-delays", "1ms", "-concurrency", "3", "-clients", "2",
		"-load-delays", "0", "-load-dur", "200ms", "-rss=false", "-solo", "2"}, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(o, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"wall/bound p50", "seq/conc wall", "wire queries/scan", "cache hit rate",
		"D=1ms concurrent, cache", "D=1ms sequential checks, cache", "D=1ms one scan at a time, concurrent checks", "base RSS MiB", "scans/s", "CPU ms/scan", "D=0s, 2 clients"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestBenchFlags: defaults of the full and quick runs, and bad values.
func TestBenchFlags(t *testing.T) {
	full, err := parseFlags(nil, &strings.Builder{})
	if err != nil || full.n != 3000 || full.runs != 5 || full.loadDur != 5*time.Second || len(full.clients) != 4 {
		t.Fatalf("full defaults %+v, %v", full, err)
	}
	quick, err := parseFlags([]string{"-quick"}, &strings.Builder{})
	if err != nil || quick.n != 600 || quick.runs != 1 || quick.loadDur != 2*time.Second {
		t.Fatalf("quick defaults %+v, %v", quick, err)
	}
	for _, bad := range [][]string{{"-delays", "x"}, {"-clients", "0"}, {"-n", "-1"}, {"-load-delays", "-5ms"}} {
		if _, err := parseFlags(bad, &strings.Builder{}); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
