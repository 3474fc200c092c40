package main

import (
	"math"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"strings"
)

// The server's runtime during a phase, from runtime/metrics: the
// collector's stop-the-world pauses (and, within them, the time taken to
// stop every thread: a thread the kernel has not scheduled delays it) and
// how long goroutines waited to run once runnable (the scheduler's
// latency: the server's goroutines waiting for a core). Each is a
// histogram the runtime keeps since the start; a phase reads the
// difference from the previous reading.
const (
	metricGCCycles  = "/gc/cycles/total:gc-cycles"
	metricGCPauses  = "/sched/pauses/total/gc:seconds"
	metricGCStop    = "/sched/pauses/stopping/gc:seconds"
	metricSchedWait = "/sched/latencies:seconds"
)

// runtimeSide is a phase's runtime figures (ms): the longest values are
// the lower bound of the histogram's highest bucket that was hit.
type runtimeSide struct {
	GCCycles     uint64  `json:"gcCycles"`
	GCPauseMax   float64 `json:"gcPauseMaxMs"`
	GCStopMax    float64 `json:"gcStopMaxMs"`
	SchedWaitP99 float64 `json:"schedWaitP99Ms"`
	SchedWaitMax float64 `json:"schedWaitMaxMs"`
	// OnCPU and RunQueue are the time the server's threads ran, and
	// waited in the kernel's run queue for a core (ms; schedstat of
	// /proc/self/task, proc(5)): a wait near the time run means the
	// machine did not give the server the cores it wanted.
	OnCPU    float64 `json:"onCPUms"`
	RunQueue float64 `json:"runQueueMs"`
	// RunnableP99, RunnableP999 and RunnableMax are quantiles of the
	// server's runnable goroutines, sampled every runnableEvery
	// (runnableSampler); RunnableSamples is how many samples.
	RunnableP99     int    `json:"runnableP99"`
	RunnableP999    int    `json:"runnableP999"`
	RunnableMax     int    `json:"runnableMax"`
	RunnableSamples uint64 `json:"runnableSamples"`
}

// runtimeReading is one reading of the metrics runtimeSide is made of.
type runtimeReading struct {
	cycles                 uint64
	pauses, stops, latency *metrics.Float64Histogram
	onCPU, runQueue        float64 // ms, summed over the threads (threadTimes)
	runnable               []uint64
}

// readRuntime reads the metrics now, and the samples of runnable so far.
func readRuntime(runnable *runnableSampler) runtimeReading {
	s := []metrics.Sample{{Name: metricGCCycles}, {Name: metricGCPauses}, {Name: metricGCStop}, {Name: metricSchedWait}}
	metrics.Read(s)
	var r runtimeReading
	if s[0].Value.Kind() == metrics.KindUint64 {
		r.cycles = s[0].Value.Uint64()
	}
	hist := func(v metrics.Value) *metrics.Float64Histogram {
		if v.Kind() != metrics.KindFloat64Histogram {
			return nil
		}
		h := v.Float64Histogram()
		return &metrics.Float64Histogram{Counts: append([]uint64(nil), h.Counts...), Buckets: h.Buckets}
	}
	r.pauses, r.stops, r.latency = hist(s[1].Value), hist(s[2].Value), hist(s[3].Value)
	r.onCPU, r.runQueue = threadTimes()
	r.runnable = runnable.read()
	return r
}

// since returns the figures of the interval from prev to r.
func (r runtimeReading) since(prev runtimeReading) runtimeSide {
	return runtimeSide{
		GCCycles:     r.cycles - prev.cycles,
		GCPauseMax:   histQuantile(r.pauses, prev.pauses, 1),
		GCStopMax:    histQuantile(r.stops, prev.stops, 1),
		SchedWaitP99: histQuantile(r.latency, prev.latency, 0.99),
		SchedWaitMax: histQuantile(r.latency, prev.latency, 1),
		OnCPU:        r.onCPU - prev.onCPU,
		RunQueue:     r.runQueue - prev.runQueue,
		RunnableP99:  runnableQuantile(r.runnable, prev.runnable, 0.99),
		RunnableP999: runnableQuantile(r.runnable, prev.runnable, 0.999),
		RunnableMax:  runnableQuantile(r.runnable, prev.runnable, 1),
		RunnableSamples: func() (n uint64) {
			for i, c := range r.runnable {
				if i < len(prev.runnable) {
					c -= prev.runnable[i]
				}
				n += c
			}
			return n
		}(),
	}
}

// histQuantile returns the q quantile (ms) of the counts h has beyond
// prev: the lower bound of the bucket it falls in (0 when none).
func histQuantile(h, prev *metrics.Float64Histogram, q float64) float64 {
	if h == nil {
		return 0
	}
	var before []uint64
	if prev != nil {
		before = prev.Counts
	}
	i, ok := countQuantile(h.Counts, before, q)
	if !ok {
		return 0
	}
	return max(h.Buckets[i], 0) * 1000
}

// countQuantile returns the index of the bucket that holds the q
// quantile of the counts in now beyond those in prev (prev may be
// shorter, or nil: counted from zero); false when there is none.
func countQuantile(now, prev []uint64, q float64) (int, bool) {
	diff := make([]uint64, len(now))
	var total uint64
	for i, c := range now {
		if i < len(prev) {
			c -= prev[i]
		}
		diff[i], total = c, total+c
	}
	if total == 0 {
		return 0, false
	}
	want := max(uint64(math.Ceil(q*float64(total))), 1)
	var seen uint64
	for i, c := range diff {
		seen += c
		if seen >= want && c > 0 {
			return i, true
		}
	}
	return len(diff) - 1, true
}

// threadTimes returns the time this process's threads have run and
// waited in the kernel's run queue (ms), from the first two fields of
// each /proc/self/task/*/schedstat; 0 where it cannot be read.
func threadTimes() (onCPU, runQueue float64) {
	files, _ := filepath.Glob("/proc/self/task/*/schedstat")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if v := strings.Fields(string(b)); len(v) >= 2 {
			run, _ := strconv.ParseFloat(v[0], 64)
			wait, _ := strconv.ParseFloat(v[1], 64)
			onCPU, runQueue = onCPU+run/1e6, runQueue+wait/1e6
		}
	}
	return onCPU, runQueue
}
