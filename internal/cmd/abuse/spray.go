package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// The key spray of issue 25, item 4 (-mode spray): distinct forwarded
// IPv6 clients, each in its own /48, fill the rate limiter's three
// in-memory tables (the source, /56 and /48 windows) at the default
// capacity; the server's RSS is then watched, without forcing a
// collection, until recoverAfter has passed.
const (
	sprayKeys    = 1 << 18 // httpapi.DefaultMaxKeys
	sprayWorkers = 16
	recoverAfter = 2 * time.Minute
)

// sprayResult is what the load process reports for -mode spray.
type sprayResult struct {
	Requests outcomes      `json:"requests"`
	Took     time.Duration `json:"took"`
}

// sprayClient is the i-th forwarded client of the spray.
func sprayClient(i int) string { return fmt.Sprintf("2001:%x:%x::1", 0x1000+i>>16, i&0xffff) }

// runSpray sends sprayKeys requests with invalid bodies (each counted by
// the limiters, then refused 400) through the trusted proxy.
func runSpray(base string) sprayResult {
	start := time.Now()
	cl := newClient(keyFloodSource, sprayWorkers)
	next := make(chan int)
	var c counters
	var wg sync.WaitGroup
	for range sprayWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				status, msg, _ := postMsg(context.Background(), cl, base, `{}`, sprayClient(i))
				c.add("spray", status, msg)
			}
		}()
	}
	for i := range sprayKeys {
		next <- i
	}
	close(next)
	wg.Wait()
	return sprayResult{Requests: c.snapshot()["spray"], Took: time.Since(start)}
}

// watchRecovery samples the server every 10 s for recoverAfter after the
// spray, printing each sample, and returns the last.
func watchRecovery(l *lab, start time.Time, out io.Writer) sample {
	deadline := time.Now().Add(recoverAfter)
	var s sample
	for {
		s = l.readSample(start)
		fmt.Fprintf(out, "%6s rss %6d KB  heap %6d KB  live %6d KB  goroutines %5d\n", s.At, s.RSSKB, s.HeapKB, s.LiveKB, s.Goroutines)
		if !time.Now().Before(deadline) {
			return s
		}
		time.Sleep(min(10*time.Second, time.Until(deadline)))
	}
}

// reportSpray prints the spray's figures.
func reportSpray(out io.Writer, r sprayResult, baseline, peak, recovered sample) {
	fmt.Fprintf(out, "== key spray: %d forwarded clients (one /48 each) in %s: %v\n", sprayKeys, r.Took.Round(time.Second), r.Requests)
	fmt.Fprintf(out, "RSS baseline %d KB, peak %d KB, %s after the spray %d KB: %.2f x baseline (target <= 2, no forced collection)\n",
		baseline.RSSKB, peak.RSSKB, recoverAfter, recovered.RSSKB, float64(recovered.RSSKB)/float64(max(baseline.RSSKB, 1)))
}
