package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
)

// row is one line of a table: a phase and its figures, one value per
// column and run.
type row struct {
	label  string
	values [][]float64 // [column][run]
	loads  []string    // the load average after each run of the phase
}

// column says how to print one figure.
type column struct {
	name   string
	format string
}

var scanColumns = []column{
	{"wall/bound p50", "%.3f"}, {"wall/bound p95", "%.3f"}, {"wall p50 ms", "%.1f"}, {"bound p50 ms", "%.1f"},
	{"hops p50", "%.0f"}, {"wall/(hops×D) p50", "%.2f"}, {"wall/(hops×D) p95", "%.2f"},
	{"questions/scan", "%.1f"}, {"wire queries/scan", "%.1f"}, {"cache hit rate", "%.2f"}, {"scans/s", "%.0f"},
	{"seq/conc wall", "%.2f"}, {"undetermined %", "%.2f"}, {"failed", "%.0f"},
}

var loadColumns = []column{
	{"scans/s", "%.0f"}, {"p50 ms", "%.1f"}, {"p99 ms", "%.1f"},
	{"service CPU ms/scan", "%.2f"}, {"lab+load CPU ms/scan", "%.2f"},
	{"service start RSS MiB", "%.0f"}, {"service peak RSS MiB", "%.0f"}, {"service GCs", "%.0f"},
	{"cache hit rate", "%.2f"}, {"errors", "%.0f"}, {"fresh domains", "%.2f"},
	{"service CPU / floor", "%.2f"}, {"analytics rows", "%.0f"},
}

// headColumns: the headline table has one figure per row.
var headColumns = []column{{"value", "%.3f"}}

// scanPhases runs the wall/bound phases once: per delay, the concurrent
// scans with the shared cache, the same without it, and (with
// o.sequential) the sequential baseline with the cache.
func scanPhases(l *lab, o options) ([]row, error) {
	var rows []row
	for _, d := range o.delays {
		conc := l.runScans(scanPhase{delay: d, concurrency: o.concurrency, cacheBytes: 32 << 20, limit: o.scanN})
		nocache := l.runScans(scanPhase{delay: d, concurrency: o.concurrency, limit: o.scanN})
		seqRatio := math.NaN()
		if o.sequential {
			seq := l.runScans(scanPhase{delay: d, concurrency: o.concurrency, sequential: true, cacheBytes: 32 << 20, limit: o.scanN})
			seqRatio = seq.wallMedian / conc.wallMedian
			rows = append(rows, scanRow(fmt.Sprintf("D=%s sequential checks, cache", d), seq, math.NaN()))
		}
		rows = append(rows, scanRow(fmt.Sprintf("D=%s concurrent, cache", d), conc, seqRatio),
			scanRow(fmt.Sprintf("D=%s concurrent, no shared cache", d), nocache, math.NaN()))
		if o.solo > 0 {
			rows = append(rows, soloRows(l, d, o)...)
		}
	}
	return rows, nil
}

// soloWarm is how many other domains fill the shared cache before the
// "warm cache" one-at-a-time phases: enough for every provider's records
// to be cached (the world has four providers).
const soloWarm = 40

// soloRows scans the first o.solo domains one at a time, with concurrent
// then sequential checks: the latency a single scan gains from running
// its checks at once, with the CPU idle. Twice: without the shared cache
// (every question on the wire), and with a cache already holding what
// the providers publish, as in a service that has been running.
func soloRows(l *lab, d time.Duration, o options) []row {
	var rows []row
	for _, c := range []struct {
		label       string
		cache, warm int
	}{{"", 0, 0}, {", warm cache", 32 << 20, soloWarm}} {
		conc := l.runScans(scanPhase{delay: d, concurrency: 1, limit: o.solo, cacheBytes: c.cache, warm: c.warm})
		ratio := math.NaN()
		if o.sequential {
			seq := l.runScans(scanPhase{delay: d, concurrency: 1, limit: o.solo, sequential: true, cacheBytes: c.cache, warm: c.warm})
			ratio = seq.wallMedian / conc.wallMedian
			rows = append(rows, scanRow(fmt.Sprintf("D=%s one scan at a time, sequential checks%s", d, c.label), seq, math.NaN()))
		}
		rows = append(rows, scanRow(fmt.Sprintf("D=%s one scan at a time, concurrent checks%s", d, c.label), conc, ratio))
	}
	return rows
}

func scanRow(label string, r scanResult, seqRatio float64) row {
	vals := []float64{r.ratioMedian, r.ratioP95, r.wallMedian, r.boundMedian, r.hopsMedian, r.idealMedian, r.idealP95, r.questions, r.wire, r.hitRate,
		r.scansPerSecond, seqRatio, r.undeterminedPct, float64(r.failed)}
	return single(label, vals)
}

// loadNotes are the figures printed under the load table: the service's
// collector settings, its memory when the heap profile was taken, and
// the command that gives each CPU profile's time by part.
type loadNotes struct {
	gc   serviceFigures
	heap string
	cpu  []string
}

// loadPhases runs the load phases once (run counts from 0). Right before
// each phase, when the floor is measured (o.floorN), it measures the
// floor with as many clients at once as the phase has, and compares the
// phase's service CPU with that floor; the row's load average names both
// moments. It returns the floors of the phases by label.
func loadPhases(l *lab, o options, run int, notes *loadNotes) ([]row, map[string]floorResult, error) {
	var rows []row
	floors := map[string]floorResult{}
	for _, p := range plannedLoadPhases(o, run) {
		var floor floorResult
		if o.floorN > 0 {
			var err error
			if floor, err = l.runFloor(o.floorN, p.clients, false); err != nil {
				return nil, nil, err
			}
		}
		r, err := l.runLoad(p)
		if err != nil {
			return nil, nil, err
		}
		notes.gc = r.service
		if r.heap != nil {
			notes.heap = heapNote(p, r)
		}
		if p.cpuProfile != "" && r.ok > 0 {
			notes.cpu = append(notes.cpu, fmt.Sprintf("service CPU profile (D=%s, %d clients), by part, per scan answered: go run ./internal/cmd/profparts -n %d %s",
				p.delay, p.clients, r.ok, p.cpuProfile))
		}
		perFloor := math.NaN()
		if f := floor.perScan(); f > 0 {
			perFloor = r.serviceCPU / ms(f)
		}
		vals := []float64{r.scansPerSec, r.p50, r.p99, r.serviceCPU, r.labCPU,
			mib(r.startRSS), mib(r.peakRSS), float64(r.service.NumGC),
			r.service.HitRate, float64(r.failed), r.distinctShare, perFloor, float64(r.service.Committed)}
		label := fmt.Sprintf("D=%s, %d clients", p.delay, p.clients)
		rw := single(label, vals)
		if o.floorN > 0 {
			rw.loads = []string{fmt.Sprintf("%s (floor before it: %s)", rw.loads[0], floor.load)}
			floors[label] = floor
		}
		rows = append(rows, rw)
	}
	return rows, floors, nil
}

// heapNote describes the service's memory when its heap profile was
// taken.
func heapNote(p loadPhase, r loadResult) string {
	h := r.heap
	perScan, perScanAll := math.NaN(), math.NaN()
	if r.inFlight > 0 {
		perScan = float64(h.HeapLive) / float64(r.inFlight) / 1024
		perScanAll = float64(h.HeapLive+h.StackInuse) / float64(r.inFlight) / 1024
	}
	note := fmt.Sprintf("service heap profile (D=%s, %d clients, %d requests in flight, after two collections that took %s): live heap %.1f MiB (%.0f KiB per request in flight), heap spans in use %.1f MiB, idle %.1f MiB, stacks %.1f MiB, %d goroutines (new ones start with %d KiB of stack), %.1f MiB from the OS; live heap and stacks %.0f KiB per request in flight; peak RSS of the phase %.0f MiB",
		p.delay, p.clients, r.inFlight, h.GCTook.Round(time.Millisecond), mib(int64(h.HeapLive)), perScan, mib(int64(h.HeapInuse)), mib(int64(h.HeapIdle)),
		mib(int64(h.StackInuse)), h.Goroutines, h.StackStart/1024, mib(int64(h.Sys)), perScanAll, mib(r.peakRSS))
	if i := r.idle; i != nil && r.inFlight > 0 {
		n := float64(r.inFlight) * 1024
		heap := (float64(h.HeapLive) - float64(i.HeapLive)) / n
		stacks := (float64(h.StackInuse) - float64(i.StackInuse)) / n
		gor := float64(h.Goroutines-i.Goroutines) / float64(r.inFlight)
		if b := r.bare; b != nil && i.CacheEntries > 0 {
			perEntry := (float64(i.HeapLive) - float64(b.HeapLive)) / float64(i.CacheEntries)
			cacheHeap := (float64(h.HeapLive) - float64(b.HeapLive) - float64(h.CacheEntries)*perEntry) / n
			note += fmt.Sprintf("; above the idle service, its shared DNS cache's answers taken off (%s after the load ended: live heap %.1f MiB, stacks %.1f MiB, %d goroutines; %.1f MiB with the cache purged, %d answers, %.0f B each on the heap, charged %.0f B each against the cache's bound; %d answers at the snapshot): %.0f KiB per request in flight (heap %.0f KiB, stacks %.0f KiB, %.1f goroutines; with the idle service's cache taken off whole, as before: heap %.0f KiB)",
				serviceLinger, mib(int64(i.HeapLive)), mib(int64(i.StackInuse)), i.Goroutines, mib(int64(b.HeapLive)), i.CacheEntries, perEntry, float64(i.CacheBytes)/float64(i.CacheEntries), h.CacheEntries,
				cacheHeap+stacks, cacheHeap, stacks, gor, heap)
			if p.heapProfile != "" {
				note += fmt.Sprintf("; the heap by part: go run ./internal/cmd/profparts -n %d -off %.0f -base %s %s",
					r.inFlight, float64(h.CacheEntries)*perEntry, idleProfile(p.heapProfile, "bare"), p.heapProfile)
			}
			return note
		}
		note += fmt.Sprintf("; above the idle service (%s after the load ended: live heap %.1f MiB, stacks %.1f MiB, %d goroutines): %.0f KiB per request in flight (heap %.0f KiB, stacks %.0f KiB, %.1f goroutines)",
			serviceLinger, mib(int64(i.HeapLive)), mib(int64(i.StackInuse)), i.Goroutines, heap+stacks, heap, stacks, gor)
	}
	return note
}

// plannedLoadPhases lists the load phases of one run: every delay with
// every number of clients, then the memory phase. The service's CPU
// profiles go to one file per phase (and per run after the first); its
// heap profile is taken in the first run's memory phase.
func plannedLoadPhases(o options, run int) []loadPhase {
	var phases []loadPhase
	for _, d := range o.loadDelays {
		for _, c := range o.clients {
			phases = append(phases, loadPhase{delay: d, clients: c, dur: o.loadDur, maxInFlight: o.maxInFlight, analytics: o.analytics})
		}
	}
	if o.rssPhase {
		mem := loadPhase{delay: memoryPhaseDelay, clients: memoryPhaseClients, dur: o.loadDur, maxInFlight: max(o.maxInFlight, memoryPhaseClients), analytics: o.analytics}
		if run == 0 {
			mem.heapProfile = o.serviceMemProfile
		}
		phases = append(phases, mem)
	}
	if o.serviceCPUProfile != "" {
		for i := range phases {
			phases[i].cpuProfile = phaseFile(o.serviceCPUProfile, phases[i], run)
		}
	}
	return phases
}

// The memory phase: the RSS target is for 500 scans at once with
// 100 ms per DNS answer.
const (
	memoryPhaseClients = 500
	memoryPhaseDelay   = 100 * time.Millisecond
)

// phaseFile names a phase's file after path: "cpu.prof" becomes
// "cpu-D20ms-100c.prof", with "-run2" and up after the first run.
func phaseFile(path string, p loadPhase, run int) string {
	ext := filepath.Ext(path)
	suffix := fmt.Sprintf("-D%s-%dc", p.delay, p.clients)
	if run > 0 {
		suffix += fmt.Sprintf("-run%d", run+1)
	}
	return strings.TrimSuffix(path, ext) + suffix + ext
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func single(label string, vals []float64) row {
	r := row{label: label, loads: []string{loadAverage()}}
	for _, v := range vals {
		r.values = append(r.values, []float64{v})
	}
	return r
}

// merge adds the rows of one run to the rows of the earlier runs.
func merge(all, run []row, i int) []row {
	if i == 0 {
		return run
	}
	for k := range all {
		for c := range all[k].values {
			all[k].values[c] = append(all[k].values[c], run[k].values[c]...)
		}
		all[k].loads = append(all[k].loads, run[k].loads...)
	}
	return all
}

// printTable prints a Markdown table: the median over runs and, with
// several runs, the spread (min–max).
func printTable(w io.Writer, title string, cols []column, rows []row, runs int) {
	fmt.Fprintf(w, "\n%s\n\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	head := []string{"phase"}
	for _, c := range cols {
		head = append(head, c.name)
	}
	head = append(head, "load avg (1, 5, 15 min)")
	fmt.Fprintln(tw, "| "+strings.Join(head, "\t| ")+"\t|")
	fmt.Fprintln(tw, "|"+strings.Repeat("---\t|", len(head)))
	for _, r := range rows {
		cells := []string{r.label}
		for c, col := range cols {
			cells = append(cells, cell(col.format, r.values[c], runs))
		}
		cells = append(cells, r.loads[len(r.loads)-1])
		fmt.Fprintln(tw, "| "+strings.Join(cells, "\t| ")+"\t|")
	}
	_ = tw.Flush()
}

func cell(format string, vals []float64, runs int) string {
	var ok []float64
	for _, v := range vals {
		if !math.IsNaN(v) {
			ok = append(ok, v)
		}
	}
	if len(ok) == 0 {
		return "–"
	}
	lo, hi := ok[0], ok[0]
	for _, v := range ok {
		lo, hi = min(lo, v), max(hi, v)
	}
	med := quantile(ok, 0.5)
	if runs == 1 || len(ok) == 1 {
		return fmt.Sprintf(format, med)
	}
	return fmt.Sprintf(format+" ("+format+"–"+format+")", med, lo, hi)
}

// headline returns the headline figures of one run: first the service's
// CPU per scan at D = 0 against the floor measured with as many clients
// at once right before each phase, then the floors (one client at a
// time, with the checks alone against it, and at each D = 0 phase's
// concurrency), wall/(hops×D) and wall/bound one scan at a time at
// 20 ms, the SPF deep tree's round trips, and the memory phase's peak
// RSS.
func headline(l *lab, o options, floor floorResult, floors map[string]floorResult, scans, loads []row) ([]row, error) {
	var out []row
	if o.floorN > 0 {
		for _, r := range loads {
			if strings.HasPrefix(r.label, "D=0s, ") {
				f := floors[r.label]
				rw := single(fmt.Sprintf("service CPU / floor, %s, the floor measured %d at once right before, distinct domains, analytics %s (target ≤ 1.5)",
					r.label, f.clients, onOffShort(o.analytics)), []float64{value(r, loadColumns, "service CPU / floor")})
				rw.loads = r.loads
				out = append(out, rw)
			}
		}
		out = append(out, floorRows(floor, true)...)
		for _, r := range loads {
			if f, ok := floors[r.label]; ok && strings.HasPrefix(r.label, "D=0s, ") && f.clients > 1 {
				out = append(out, floorRows(f, false)...)
			}
		}
	}
	for _, r := range scans {
		if r.label == "D=20ms one scan at a time, concurrent checks" {
			out = append(out,
				single("wall/(hops×D) p50, one scan at a time, D=20ms, no shared cache (target ≤ 1.10)", []float64{value(r, scanColumns, "wall/(hops×D) p50")}),
				single("wall/bound p50, the same scans", []float64{value(r, scanColumns, "wall/bound p50")}))
		}
	}
	if o.spfDelay > 0 {
		trips, wall, lookups, err := l.spfRoundTrips(o.spfDelay)
		if err != nil {
			return nil, err
		}
		label := fmt.Sprintf("SPF deep tree (%d include targets, %d records deep), D=%s", deepTreeTargets, deepTreeDepth, o.spfDelay)
		out = append(out,
			single(label+": round trips (target 4)", []float64{float64(trips)}),
			single(label+": wall / D", []float64{float64(wall) / float64(o.spfDelay)}),
			single(label+": lookups", []float64{float64(lookups)}))
	}
	for _, r := range loads {
		if r.label == fmt.Sprintf("D=%s, %d clients", memoryPhaseDelay, memoryPhaseClients) {
			out = append(out, single("service peak RSS MiB, "+r.label+" (target ≤ 150)", []float64{value(r, loadColumns, "service peak RSS MiB")}))
		}
	}
	return out, nil
}

// onOffShort is onOff in one word.
func onOffShort(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// value is the figure of column name in a row of one run.
func value(r row, cols []column, name string) float64 {
	for i, c := range cols {
		if c.name == name {
			return r.values[i][0]
		}
	}
	return math.NaN()
}
