package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// The key spray (-mode spray): distinct forwarded
// IPv6 clients, each in its own /48, fill the rate limiter's three
// in-memory tables (the source, /56 and /48 windows) at the default
// capacity; the server's RSS is then watched, without forcing a
// collection, for -recover (recoverAfter by default). The sieges and
// the soak are followed by the same watch.
const (
	sprayKeys    = 1 << 18 // httpapi.DefaultMaxKeys
	sprayWorkers = 16
	recoverAfter = 2 * time.Minute // RSS must be within 2 x the baseline 2 minutes after any attack
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

// watchRecovery samples the server every recoverEvery(d) for d after a
// load, printing each sample, and returns the last. It never forces a
// collection: the figure is what the collector's own settings give back.
func watchRecovery(l *lab, start time.Time, out io.Writer, d time.Duration) sample {
	deadline := time.Now().Add(d)
	var s sample
	for {
		s = l.readSample(start)
		fmt.Fprintf(out, "%6s rss %6d KB  heap %6d KB  live %6d KB  goroutines %5d\n", s.At, s.RSSKB, s.HeapKB, s.LiveKB, s.Goroutines)
		if !time.Now().Before(deadline) {
			return s
		}
		time.Sleep(min(recoverEvery(d), time.Until(deadline)))
	}
}

// recoverEvery is the sampling interval of a recovery window of d: 10 s,
// or a quarter of a shorter window.
func recoverEvery(d time.Duration) time.Duration {
	return max(min(10*time.Second, d/4), time.Millisecond)
}

// reportSpray prints the spray's figures.
func reportSpray(out io.Writer, o options, r sprayResult, baseline, peak, recovered sample) {
	fmt.Fprintf(out, "== key spray: %d forwarded clients (one /48 each) in %s: %v\n", sprayKeys, r.Took.Round(time.Second), r.Requests)
	fmt.Fprintf(out, "RSS baseline %d KB, peak %d KB, %s after the spray %d KB: %.2f x baseline (target <= 2 after 2m0s, no forced collection)\n",
		baseline.RSSKB, peak.RSSKB, o.recover, recovered.RSSKB, rssRatio(recovered.RSSKB, baseline.RSSKB))
}

// rssRatio is rss / baseline.
func rssRatio(rss, baseline int) float64 { return float64(rss) / float64(max(baseline, 1)) }
