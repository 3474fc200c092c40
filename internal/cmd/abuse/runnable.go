package main

import (
	"fmt"
	"os"
	"runtime/metrics"
	"runtime/trace"
	"sync"
	"time"
)

// The server's runnable goroutines, sampled: how many goroutines were
// ready to run and waiting for a P, every runnableEvery. The scheduler's
// latency (metricSchedWait) says how long a goroutine waited; this says
// how many were queued at once: a siege's bursts (hundreds of goroutines
// made runnable in the same millisecond, ahead of a visitor's) show as
// its high quantiles and maximum.
const (
	metricRunnable = "/sched/goroutines/runnable:goroutines"
	runnableEvery  = 500 * time.Microsecond
	runnableCap    = 1 << 12 // counts above it are counted as it
)

// runnableSampler keeps the count of samples by number of runnable
// goroutines, since it started.
type runnableSampler struct {
	mu     sync.Mutex
	counts [runnableCap + 1]uint64
}

// startRunnableSampler samples until the process ends.
func startRunnableSampler() *runnableSampler {
	r := new(runnableSampler)
	go func() {
		s := []metrics.Sample{{Name: metricRunnable}}
		for {
			metrics.Read(s)
			if s[0].Value.Kind() != metrics.KindUint64 {
				return // not in this Go version
			}
			n := min(s[0].Value.Uint64(), runnableCap)
			r.mu.Lock()
			r.counts[n]++
			r.mu.Unlock()
			time.Sleep(runnableEvery)
		}
	}()
	return r
}

// read returns a copy of the counts so far (nil without a sampler).
func (r *runnableSampler) read() []uint64 {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]uint64(nil), r.counts[:]...)
}

// runnableQuantile returns the q quantile of the samples in now beyond
// prev (0 when none).
func runnableQuantile(now, prev []uint64, q float64) int {
	i, _ := countQuantile(now, prev, q)
	return i
}

// traceFor is how long the runtime trace of a siege's measurement runs
// (-trace).
const traceFor = 10 * time.Second

// serverTrace writes, when asked by the load process at the start of a
// measurement, a runtime trace of the server for traceFor to
// prefix-<name>.trace; one at a time.
type serverTrace struct {
	prefix string
	mu     sync.Mutex
	busy   bool
}

// start begins the trace named name, unless no prefix was given or one
// runs; it reports the file or why not.
func (t *serverTrace) start(name string) string {
	if t == nil || t.prefix == "" || name == "" {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.busy {
		return "a trace is running"
	}
	path := fmt.Sprintf("%s-%s.trace", t.prefix, name)
	f, err := os.Create(path)
	if err != nil {
		return err.Error()
	}
	if err := trace.Start(f); err != nil {
		_ = f.Close()
		return err.Error()
	}
	t.busy = true
	time.AfterFunc(traceFor, func() {
		trace.Stop()
		_ = f.Close()
		t.mu.Lock()
		t.busy = false
		t.mu.Unlock()
	})
	return path
}
