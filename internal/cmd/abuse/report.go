package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mailauth/mailauth/httpapi"
)

// report prints the run's figures.
// after is read once the server has settled; freed right after it, past
// a GC and a return of free memory to the system; recovered (the soak's)
// at the end of the -recover watch, before either, when not nil.
func report(out io.Writer, o options, raw []byte, baseline sample, samples []sample, after, freed sample, recovered *sample) error {
	peak := baseline
	for _, s := range samples {
		peak.RSSKB, peak.HeapKB, peak.LiveKB = max(peak.RSSKB, s.RSSKB), max(peak.HeapKB, s.HeapKB), max(peak.LiveKB, s.LiveKB)
		peak.StackKB = max(peak.StackKB, s.StackKB)
		peak.Goroutines, peak.FDs, peak.Conns = max(peak.Goroutines, s.Goroutines), max(peak.FDs, s.FDs), max(peak.Conns, s.Conns)
	}
	row := func(name string, s sample) {
		fmt.Fprintf(out, "%-9s rss %7d KB  heap %7d KB  live %7d KB  stacks %6d KB  goroutines %6d  fds %6d  conns %5d\n",
			name, s.RSSKB, s.HeapKB, s.LiveKB, s.StackKB, s.Goroutines, s.FDs, s.Conns)
	}
	fmt.Fprintf(out, "== server resources (%s)\n", o.mode)
	row("baseline", baseline)
	row("peak", peak)
	if recovered != nil {
		row("recovered", *recovered)
		fmt.Fprintf(out, "RSS %s after the %s: %.2f x baseline (target <= 2 after 2m0s, no forced collection)\n",
			o.recover, o.mode, rssRatio(recovered.RSSKB, baseline.RSSKB))
	}
	row("after", after)
	row("freed", freed)
	switch o.mode {
	case "attack":
		var r attackResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return fmt.Errorf("load result: %w", err)
		}
		printAttack(out, o, r)
	case "siege", "capacity":
		var r siegeResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return fmt.Errorf("load result: %w", err)
		}
		printSiege(out, r)
	case "memory":
		var r memoryResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return fmt.Errorf("load result: %w", err)
		}
		printMemory(out, r, baseline, peak)
	case "soak":
		var r soakResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return fmt.Errorf("load result: %w", err)
		}
		fmt.Fprintf(out, "== soak requests by kind and status (0 = transport error)\n")
		printTallies(out, r.Requests)
		fmt.Fprintf(out, "== samples every %s\n", o.sample)
		for _, s := range samples {
			row(s.At.String(), s)
		}
	}
	return nil
}

func printAttack(out io.Writer, o options, r attackResult) {
	fmt.Fprintf(out, "== well-behaved client (scan of %s %s)\n", goodDomain, siegeGood())
	for _, p := range []struct {
		name string
		l    latencies
	}{{"unloaded", r.Unloaded}, {"attack", r.UnderAttack}} {
		fmt.Fprintf(out, "%-9s n %4d  success %6.2f %%  p50 %7.1f ms  p99 %7.1f ms  max %7.1f ms  statuses %v\n",
			p.name, p.l.N, p.l.Success, p.l.P50, p.l.P99, p.l.Max, p.l.Status)
	}
	ratio := 0.0
	if r.Unloaded.P99 > 0 {
		ratio = r.UnderAttack.P99 / r.Unloaded.P99
	}
	interval := ""
	if lo, hi, ok := ratioInterval(r.Unloaded.Samples, r.UnderAttack.Samples); ok {
		interval = fmt.Sprintf(", 95 %% bootstrap interval %.2f-%.2f", lo, hi)
	}
	fmt.Fprintf(out, "p99 under attack / unloaded: %.2f (target <= 2%s); success under attack %.2f %% (target >= 99)\n", ratio, interval, r.UnderAttack.Success)
	fmt.Fprintf(out, "== hostile requests by kind and status (%d sources; 0 = transport error)\n", o.hostile)
	printTallies(out, r.Hostile)
	fmt.Fprintf(out, "held keep-alive connections: %d of %d tried (%d per source allowed)\n", r.HeldConns, r.TriedConns, httpapi.DefaultMaxConnsPerSource)
	fmt.Fprintf(out, "TCP connection attempts during the attack: %d, failed: %d; fan-out attempts per fan-out scan: %.1f\n",
		r.ConnectOpens, r.ConnectFails, r.FanoutPerScan)
}

func printTallies(out io.Writer, m map[string]outcomes) {
	kinds := make([]string, 0, len(m))
	for k := range m {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		keys := make([]string, 0, len(m[k]))
		for o := range m[k] {
			keys = append(keys, o)
		}
		slices.Sort(keys)
		for _, o := range keys {
			fmt.Fprintf(out, "  %-8s %6d  %s\n", k, m[k][o], o)
		}
	}
}

// printSiege prints the well-behaved client's figures unloaded and during
// each siege, against the targets (success >= 99 %, p99 <= 2 x unloaded).
func printSiege(out io.Writer, r siegeResult) {
	fmt.Fprintf(out, "== well-behaved client (scan of %s %s)\n", goodDomain, r.Good)
	line := func(name string, l latencies) {
		fmt.Fprintf(out, "%-52s n %4d  success %6.2f %%  p50 %7.1f ms  p99 %7.1f ms  max %7.1f ms  statuses %v  new conns %d (slowest setup %.1f ms)\n",
			name, l.N, l.Success, l.P50, l.P99, l.Max, l.Status, l.Dialled, l.SlowestDial)
		if s := l.Server; s.N > 0 {
			fmt.Fprintf(out, "%-52s   server side (n %d): handler p50 %.1f p99 %.1f max %.1f ms; scan p50 %.1f p99 %.1f max %.1f ms\n",
				"", s.N, s.HandlerP50, s.HandlerP99, s.HandlerMax, s.ScanP50, s.ScanP99, s.ScanMax)
			fmt.Fprintf(out, "%-52s   before the scan (admission) p99 %.1f max %.1f ms; after it (answer) p99 %.1f max %.1f ms\n",
				"", s.BeforeP99, s.BeforeMax, s.AfterP99, s.AfterMax)
			fmt.Fprintf(out, "%-52s   their DNS lookups (n %d): p50 %.1f p99 %.1f max %.1f ms; slowest %s\n",
				"", s.LookupN, s.LookupP50, s.LookupP99, s.LookupMax, strings.Join(s.SlowestLookup, ", "))
			rt := s.Runtime
			fmt.Fprintf(out, "%-52s   server runtime: %d GC cycles, longest pause %.2f ms (stopping the threads %.2f ms); goroutines' wait to run p99 %.2f max %.2f ms; threads on a core %.0f ms, waiting for one %.0f ms\n",
				"", rt.GCCycles, rt.GCPauseMax, rt.GCStopMax, rt.SchedWaitP99, rt.SchedWaitMax, rt.OnCPU, rt.RunQueue)
			if rt.RunnableSamples > 0 {
				fmt.Fprintf(out, "%-52s   runnable goroutines (%d samples, one every %s): p99 %d, p99.9 %d, max %d\n",
					"", rt.RunnableSamples, runnableEvery, rt.RunnableP99, rt.RunnableP999, rt.RunnableMax)
			}
		}
		for _, t := range l.Slowest {
			fmt.Fprintf(out, "%-52s   slow: %s\n", "", t)
		}
	}
	line("unloaded", r.Unloaded)
	for _, p := range r.Phases {
		line(p.Name, p.Good)
	}
	for _, p := range r.Phases {
		ratio := 0.0
		if r.Unloaded.P99 > 0 {
			ratio = p.Good.P99 / r.Unloaded.P99
		}
		verdict := "MET"
		if p.Good.Success < 99 || ratio > 2 {
			verdict = "NOT MET"
		}
		interval := ""
		if lo, hi, ok := ratioInterval(r.Unloaded.Samples, p.Good.Samples); ok {
			interval = fmt.Sprintf("; 95 %% bootstrap interval %.2f-%.2f", lo, hi)
		}
		fmt.Fprintf(out, "%s: success %.2f %% (>= 99), p99 %.2f x unloaded (<= 2%s): %s  [CPU: client %d ms, attack %d ms; load average %s]\n",
			p.Name, p.Good.Success, ratio, interval, verdict, p.LoadCPU, p.AttackCPU, p.LoadAvg)
	}
	fmt.Fprintf(out, "== server RSS after each siege, no forced collection (target <= 2 x baseline after 2m0s)\n")
	for _, p := range r.Phases {
		m := p.Memory
		if m.RecoveredKB == 0 {
			fmt.Fprintf(out, "%s: not measured (%s)\n", p.Name, m.Note)
			continue
		}
		fmt.Fprintf(out, "%s: baseline %d KB, before %d KB, at the end %d KB, %s later %d KB: %.2f x baseline\n",
			p.Name, r.BaselineKB, m.BeforeKB, m.EndKB, m.After, m.RecoveredKB, rssRatio(m.RecoveredKB, r.BaselineKB))
	}
	fmt.Fprintf(out, "== what each attack delivered, from its start to its end (warm-up and measurement); the well-behaved client's threads by policy: %s\n", r.LoadSched)
	for _, p := range r.Phases {
		fmt.Fprintf(out, "%s: %s\n", p.Name[:strings.IndexByte(p.Name, ':')], deliveredOf(p))
	}
	fmt.Fprintf(out, "== hostile requests by siege and status (0 = transport event)\n")
	for _, p := range r.Phases {
		printTallies(out, map[string]outcomes{p.Name[:strings.IndexByte(p.Name, ':')]: p.Hostile})
	}
}

// printMemory prints what -mode memory's scans held at the peak, above
// the idle baseline, in all and per slot (memoryScans).
func printMemory(out io.Writer, r memoryResult, baseline, peak sample) {
	per := func(a, b uint64) (uint64, uint64) { d := a - min(a, b); return d, d / memoryScans }
	fmt.Fprintf(out, "== %d concurrent scans of %s (every slot), twice: %v\n", memoryScans, r.Domain, r.Scans)
	heap, heapPer := per(peak.HeapKB, baseline.HeapKB)
	live, livePer := per(peak.LiveKB, baseline.LiveKB)
	stack, stackPer := per(peak.StackKB, baseline.StackKB)
	rss, rssPer := per(uint64(peak.RSSKB), uint64(baseline.RSSKB))
	fmt.Fprintf(out, "above baseline at peak: heap in use %d KB (%d KB per slot); live heap after a GC %d KB (%d KB per slot); stacks %d KB (%d KB per slot); RSS %d KB (%d KB per slot)\n",
		heap, heapPer, live, livePer, stack, stackPer, rss, rssPer)
}

// delivered sums an attack's outcomes: requests answered (200, refused
// with 429 or 500 busy, other answers such as a slow scan's 500),
// requests that got no answer, and connections opened, closed by the
// server and not made.
type delivered struct {
	OK, Refused, Other, NoAnswer int
	Opened, Closed, DialFailed   int
}

// sumDelivered classifies the outcome keys of counters.add ("<status>
// <message>", the key spray's prefixed "keyflood: ").
func sumDelivered(o outcomes) delivered {
	var d delivered
	for k, n := range o {
		k = strings.TrimPrefix(k, "keyflood: ")
		status, msg, _ := strings.Cut(k, " ")
		switch {
		case status == "200":
			d.OK += n
		case status == "429", status == "500" && strings.Contains(msg, "busy"):
			d.Refused += n
		case status != "0":
			d.Other += n
		case msg == "connection opened":
			d.Opened += n
		case msg == "connection closed by the server":
			d.Closed += n
		case msg == "dial failed":
			d.DialFailed += n
		default:
			d.NoAnswer += n
		}
	}
	return d
}

// deliveredOf formats what phase p's attack delivered, per second of
// its run, with the attacking process's CPU and scheduling policy.
func deliveredOf(p siegePhaseResult) string {
	d := sumDelivered(p.Hostile)
	secs := max(p.AttackFor.Seconds(), 1)
	answered := d.OK + d.Refused + d.Other
	return fmt.Sprintf("in %s: %d requests answered (%.0f/s: %d 200, %d refused, %d other), %d unanswered; "+
		"%d connections opened (%.0f/s), %d closed by the server, %d dials failed; attacker CPU %d ms (%.2f cores), threads by policy: %s",
		p.AttackFor, answered, float64(answered)/secs, d.OK, d.Refused, d.Other, d.NoAnswer,
		d.Opened, float64(d.Opened)/secs, d.Closed, d.DialFailed, p.AttackCPU, float64(p.AttackCPU)/1000/secs, p.AttackSched)
}
