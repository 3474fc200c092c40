// Command bench measures mailauth against the physical limit of its DNS
// and HTTPS round trips, entirely on loopback:
//
//	go run ./internal/cmd/bench -quick    # about a minute: every figure once, small N
//	go run ./internal/cmd/bench           # the full run BENCHMARKS.md reports (5 runs)
//
// It generates N distinct domains that share mail providers (big SPF
// include trees, MX hosts, report receivers), serves them from a
// resolver/dnstest server on 127.0.0.1 that holds every answer back by a
// fixed delay, and serves their MTA-STS policies from an HTTPS server on
// 127.0.0.1 with a certificate per host from a CA made on the spot. Then:
//
//   - scans the first -scan-n domains once per delay (5, 20, 50 ms), 100
//     at a time, and reports each scan's wall time against its
//     critical-path bound (mailauth.ScanStats, resolver.Path): median and
//     p95 of wall/bound, distinct questions and wire queries per scan, the
//     shared cache's hit rate; then the same scans with the checks forced
//     one after another (a bench option, internal/seqscan, not a product
//     option) for the sequential/concurrent ratio; then a few domains one
//     at a time, with concurrent and with sequential checks, without the
//     shared cache and with a cache that already holds the providers'
//     records (filled by scanning other domains first);
//   - runs the HTTP service under a closed-loop load generator at 1, 10,
//     100 and 500 concurrent clients with 0 and 20 ms per answer, and 500
//     clients at 100 ms for the memory target. Each load phase starts a
//     service process of its own: this binary again, in a hidden mode
//     (serviceMain) that builds the same scanner (scannerConfig, a 32 MiB
//     shared DNS cache), serves httpapi with the rate limit raised behind
//     httpapi.LimitListener and httpapi.NewServer, and applies `mailauth
//     serve`'s collector settings (internal/gctune). The bench's main
//     process keeps the lab and the load generator. Columns: scans/s and
//     p50/p99 latency; service CPU ms/scan (the service process's
//     getrusage over the load, per answered scan); lab+load CPU ms/scan
//     (the same for the main process: the DNS and HTTPS servers and the
//     load generator); service start RSS and peak RSS (VmRSS when the
//     load starts, VmHWM when it ends: a fresh process per phase, so the
//     peak is the phase's); service GCs (collections the process ran);
//     the shared cache's hit rate, errors, and the share of requests
//     whose domain was fresh in the phase.
//
// -cpuprofile profiles the main process; -service-cpuprofile F writes one
// CPU profile per load phase's service process (F-D0s-100c.prof and so
// on); -service-memprofile F writes the service's heap profile halfway
// through the first run's memory phase (500 clients at 100 ms), after two
// collections so that its in-use figures are those of that moment (a heap
// profile is published one cycle late), and the idle service's beside it,
// taken where the idle figures are read (F.idle.prof for F.prof, with its
// shared DNS cache; F.bare.prof, the cache purged). The notes under the
// load table give the command (internal/cmd/profparts) that splits each
// of these profiles by part of the service.
//
// Nothing leaves 127.0.0.0/8. Every figure is printed with the machine's
// load average: on a shared machine, figures from a busy moment are not
// comparable with a quiet one.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/mailauth/mailauth/httpapi"
)

// options are the bench's flags.
type options struct {
	quick       bool
	n           int
	scanN       int
	runs        int
	delays      []time.Duration
	concurrency int
	sequential  bool
	clients     []int
	loadDelays  []time.Duration
	loadDur     time.Duration
	maxInFlight int
	rssPhase    bool
	cpuProfile  string
	solo        int

	serviceCPUProfile string
	serviceMemProfile string
	analytics         bool
	floorN            int
	spfDelay          time.Duration
}

func main() {
	if os.Getenv(serviceEnv) == serviceRole {
		os.Exit(serviceMain(os.Stdin, os.Stdout, os.Stderr))
	}
	o, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if err := run(o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string, errOut io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.BoolVar(&o.quick, "quick", false, "small N, one run, short load phases (under 2 minutes)")
	fs.IntVar(&o.n, "n", 0, "distinct domains the lab serves (default 10000, 2000 with -quick): enough that every request of a load phase asks for a domain the service has not seen")
	fs.IntVar(&o.scanN, "scan-n", 0, "domains each wall/bound phase scans, the first ones (default 3000, 600 with -quick; at most -n)")
	fs.IntVar(&o.runs, "runs", 0, "runs of every phase; tables show the median and the spread (default 5, 1 with -quick)")
	delays := fs.String("delays", "5ms,20ms,50ms", "DNS delays per answer for the wall/bound phases")
	fs.IntVar(&o.concurrency, "concurrency", 100, "scans at once in the wall/bound phases")
	fs.BoolVar(&o.sequential, "sequential", true, "also run the scans with the checks one after another (the baseline)")
	fs.IntVar(&o.solo, "solo", -1, "domains scanned one at a time per delay, with concurrent and sequential checks (default 40, 15 with -quick; 0 skips)")
	clients := fs.String("clients", "1,10,100,500", "concurrent clients of the load phases")
	loadDelays := fs.String("load-delays", "0,20ms", "DNS delays per answer for the load phases")
	fs.DurationVar(&o.loadDur, "load-dur", 0, "length of each load phase (default 5s, 2s with -quick)")
	fs.IntVar(&o.maxInFlight, "max-inflight", 512, fmt.Sprintf("the service's concurrent-diagnostics bound (product default %d); the 500-client phases need 500", httpapi.DefaultMaxInFlight))
	fs.BoolVar(&o.rssPhase, "rss", true, "run the memory phase: 500 clients at 100 ms per answer")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the bench's main process (lab, load generator, scan phases) to this file")
	fs.StringVar(&o.serviceCPUProfile, "service-cpuprofile", "", "write a CPU profile of each load phase's service process, one file per phase: F.prof becomes F-D0s-100c.prof (-run2 and up after the first run)")
	fs.StringVar(&o.serviceMemProfile, "service-memprofile", "", "write a heap profile of the service process halfway through the first run's memory phase (500 clients at 100 ms) to this file")
	fs.BoolVar(&o.analytics, "analytics", true, "the load phases' service records analytics in a SQLite file, as mailauth serve does by default (-analytics=false: none)")
	fs.IntVar(&o.floorN, "floor-n", 0, "distinct domains of the floor phase (default 300, 100 with -quick; 0 with -floor=false skips it)")
	floor := fs.Bool("floor", true, "measure the floor: the CPU of a scan's unavoidable work (DNS exchanges, TLS handshake, HTTP answer) and of SPF and DMARC alone")
	fs.DurationVar(&o.spfDelay, "spf-delay", 20*time.Millisecond, "DNS delay per answer for the SPF deep-tree round trips (0 skips them)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	var err error
	if o.delays, err = durations(*delays); err != nil {
		return o, fmt.Errorf("-delays: %w", err)
	}
	if o.loadDelays, err = durations(*loadDelays); err != nil {
		return o, fmt.Errorf("-load-delays: %w", err)
	}
	if o.clients, err = ints(*clients); err != nil {
		return o, fmt.Errorf("-clients: %w", err)
	}
	o.n = defaultInt(o.n, 10000, 2000, o.quick)
	o.scanN = min(defaultInt(o.scanN, 3000, 600, o.quick), o.n)
	o.runs = defaultInt(o.runs, 5, 1, o.quick)
	o.floorN = defaultInt(o.floorN, 300, 100, o.quick)
	if !*floor {
		o.floorN = 0
	}
	if o.solo < 0 {
		o.solo = 40
		if o.quick {
			o.solo = 15
		}
	}
	if o.loadDur == 0 {
		o.loadDur = 5 * time.Second
		if o.quick {
			o.loadDur = 2 * time.Second
		}
	}
	if o.serviceMemProfile != "" && !o.rssPhase {
		return o, errors.New("-service-memprofile needs the memory phase (-rss)")
	}
	if o.n < 1 || o.scanN < 1 || o.runs < 1 || o.concurrency < 1 || o.maxInFlight < 1 || o.floorN < 0 || o.spfDelay < 0 {
		return o, errors.New("-n, -scan-n, -runs, -concurrency and -max-inflight must be positive, -floor-n and -spf-delay not negative")
	}
	return o, nil
}

func defaultInt(v, full, quick int, isQuick bool) int {
	switch {
	case v != 0:
		return v
	case isQuick:
		return quick
	}
	return full
}

func durations(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if f == "0" {
			out = append(out, 0)
			continue
		}
		d, err := time.ParseDuration(f)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("%q is not a duration", f)
		}
		out = append(out, d)
	}
	return out, nil
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive number", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// run starts the lab and runs every phase o.runs times, then prints the
// tables.
func run(o options, w io.Writer) error {
	t0 := time.Now()
	host, _ := os.Hostname()
	fmt.Fprintf(w, "mailauth bench: %d domains (%d per wall/bound phase), %d run(s), %s, GOMAXPROCS=%d, %d CPUs, host %s, load %s\n",
		o.n, o.scanN, o.runs, runtime.Version(), runtime.GOMAXPROCS(0), runtime.NumCPU(), host, loadAverage())
	l, err := startLab(o.n)
	if err != nil {
		return err
	}
	defer l.close()
	if o.cpuProfile != "" {
		stop, err := startProfile(o.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	fmt.Fprintf(w, "lab ready in %s\n", time.Since(t0).Round(time.Millisecond))
	var scanRows, loadRows, headRows []row
	var notes loadNotes
	for r := range o.runs {
		var floor floorResult // one client at a time, with the checks alone
		if o.floorN > 0 {
			if floor, err = l.runFloor(o.floorN, 1, true); err != nil {
				return err
			}
		}
		sRows, err := scanPhases(l, o)
		if err != nil {
			return err
		}
		scanRows = merge(scanRows, sRows, r)
		lRows, floors, err := loadPhases(l, o, r, &notes)
		if err != nil {
			return err
		}
		loadRows = merge(loadRows, lRows, r)
		hRows, err := headline(l, o, floor, floors, sRows, lRows)
		if err != nil {
			return err
		}
		headRows = merge(headRows, hRows, r)
		fmt.Fprintf(w, "run %d/%d done at %s, load %s\n", r+1, o.runs, time.Since(t0).Round(time.Second), loadAverage())
	}
	if len(scanRows) > 0 {
		printTable(w, "Scans: wall time against the critical-path bound ("+strconv.Itoa(o.concurrency)+" scans at once, every domain once)", scanColumns, scanRows, o.runs)
	}
	printTable(w, "The service under load (httpapi in a process of its own, over loopback TCP, closed loop, "+o.loadDur.String()+" per phase, analytics "+onOff(o.analytics)+")", loadColumns, loadRows, o.runs)
	printTable(w, "Headline: against the physical floor, measured on this machine in this run", headColumns, headRows, o.runs)
	if len(loadRows) > 0 {
		fmt.Fprintf(w, "service process: %s\n", gcSettings(notes.gc))
	}
	for _, c := range notes.cpu {
		fmt.Fprintln(w, c)
	}
	if notes.heap != "" {
		fmt.Fprintln(w, notes.heap)
	}
	fmt.Fprintf(w, "total %s, load %s\n", time.Since(t0).Round(time.Second), loadAverage())
	return nil
}

// onOff says whether a setting is on.
func onOff(on bool) string {
	if on {
		return "on (SQLite, as mailauth serve's default)"
	}
	return "off"
}

// gcSettings describes the service process's collector settings.
func gcSettings(f serviceFigures) string {
	src := "internal/gctune, as mailauth serve"
	if f.GCFromEnv {
		src = "GOGC or GOMEMLIMIT from the environment"
	}
	limit := "none"
	if f.MemoryLimit != math.MaxInt64 {
		limit = fmt.Sprintf("%d MiB", f.MemoryLimit>>20)
	}
	return fmt.Sprintf("GOGC=%d, soft memory limit %s (%s)", f.GCPercent, limit, src)
}

// startProfile starts a CPU profile written to path; stop ends it.
func startProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); _ = f.Close() }, nil
}
