package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// part is one part of the service a sample can be charged to: the first
// whose pattern a frame of the sample's stack matches, from the frame at
// the top of the stack (the one that allocated, or was on the CPU) down.
type part struct {
	name string
	re   *regexp.Regexp
}

// otherPart is where a sample no part matches goes; answersPart holds
// the DNS answers, the shared cache's and the scans'.
const (
	otherPart   = "other"
	answersPart = "DNS answers: the shared cache's entries, and the records the scans hold"
)

// parts returns the service's parts, in the order a frame is tried
// against them: the more specific first (the answers before the DNS
// client that decoded them, the sockets before the lookups that opened
// them).
func parts() []part {
	p := func(name, re string) part { return part{name, regexp.MustCompile(re)} }
	return []part{
		// The cache's entries and the scans' answers share their
		// records' strings (decoded once from a reply), so the two are
		// one part.
		p(answersPart, `resolver\.\(\*Cache\)\.(keep|insert|store)\b|resolver\.(recordsAt|canonicalRR|cloneAnswer)\b|resolver\.\(\*Scan\)\.served\b`),
		p("DNS client: UDP sockets and the tombstones' queue", `resolver\.\(\*tombQueue\)|resolver\.\(\*upstream\)\.dial\b|resolver\.\(\*socket\)\.open\b|^net\.newFD\b|^net\.sockaddrToUDP\b|^syscall\.anyToSockaddr\b`),
		p("DNS client: lookups in flight and the tombstones of those ended", `resolver\.\(\*(Client|lookup|socket|watcher|upstream|pool)\)|resolver\.(newWaiter|mixCase|newQuery|newRetry|fromMsg)\b`),
		p("shared DNS cache: the questions it asks", `resolver\.\(\*cacheAsk\)|resolver\.\(\*Cache\)`),
		p("the scan's resolver and the checks' limits", `resolver\.\(\*(Scan|scanAsk|Limited)\)|resolver\.(NewScan|Limit|newPending)\b`),
		p("leak guard", `mailauth/redact\.`),
		p("MTA-STS policy fetch (TLS handshake, HTTP GET)", `^crypto/(tls|x509)\.|mailauth/mtasts\.`),
		p("analytics (keyed hashes, SQLite)", `mailauth/analytics\.|mailauth/internal/keyed\.|^modernc\.org/|^database/sql\.`),
		p("HTTP server (connection, request, answer)", `^net/http\.|^net/textproto\.|mailauth/httpapi\.`),
		p("contexts and timers", `^context\.|^time\.(newTimer|AfterFunc)\b`),
		p("checks and the scan's run", `mailauth/mailauth\.|mailauth/(spf|dmarc|dkim|mx|ptr|caa|tlsrpt|dane)\.`),
		p("garbage collector", `^runtime\.(gcBgMarkWorker|gcAssistAlloc|bgsweep|bgscavenge|gcStart|gcMarkTermination)\b`),
		p("scheduler and network poller", `^runtime\.(schedule|findRunnable|park_m|goexit0|mcall|netpoll|sysmon|mstart|gopark)\b`),
	}
}

// sample is one stack's value (bytes in use, or CPU seconds), its frames
// from the top of the stack down.
type sample struct {
	value  float64
	frames []string
}

// blockSep is the line between two samples in `go tool pprof -traces`.
const blockSep = "-----------+-------------------------------------------------------"

// maxTraceLine bounds one line of the traces: a frame's function name
// with its package path and generic shape, far below it in practice.
const maxTraceLine = 1 << 20

// kind is what a profile's values are.
type kind int

const (
	bytesKind kind = iota // a heap profile's: bytes
	timeKind              // a CPU profile's: seconds
)

// parseTraces reads the output of `go tool pprof -traces` for the
// profile's default sample type: its "Type:" line says whether values
// are bytes (inuse_space, alloc_space) or time (cpu); each sample is a
// block whose first line gives the value (with a unit) and the frame at
// the top of the stack, and whose following lines give the frames below
// it; "bytes:" lines (the size buckets of a heap profile) are skipped.
func parseTraces(r io.Reader) (kind, []sample, error) {
	var out []sample
	var cur *sample
	k, typed := bytesKind, false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxTraceLine)
	started := false
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == blockSep {
			started = true
			cur = nil
			continue
		}
		if !started {
			// The header: file, build ID, type, time.
			if t, ok := strings.CutPrefix(strings.TrimSpace(line), "Type: "); ok {
				switch t {
				case "inuse_space", "alloc_space":
					k, typed = bytesKind, true
				case "cpu":
					k, typed = timeKind, true
				default:
					return 0, nil, fmt.Errorf("a profile of %s: want inuse_space, alloc_space or cpu", t)
				}
			}
			continue
		}
		f := strings.TrimSpace(line)
		if f == "" || strings.HasPrefix(f, "bytes:") {
			continue
		}
		if cur != nil {
			cur.frames = append(cur.frames, frameName(f))
			continue
		}
		val, frame, ok := strings.Cut(f, " ")
		if !ok {
			return 0, nil, fmt.Errorf("a sample's first line without a frame: %q", line)
		}
		v, err := parseValue(k, val)
		if err != nil {
			return 0, nil, err
		}
		out = append(out, sample{value: v, frames: []string{frameName(strings.TrimSpace(frame))}})
		cur = &out[len(out)-1]
	}
	if err := sc.Err(); err != nil {
		return 0, nil, fmt.Errorf("reading the traces: %w", err)
	}
	if !started || !typed {
		return 0, nil, errors.New("no samples or no type: not the output of go tool pprof -traces")
	}
	return k, out, nil
}

// frameName is a frame's function, without " (inline)" and the like.
func frameName(f string) string {
	name, _, _ := strings.Cut(f, " ")
	return name
}

// parseValue reads a value as pprof prints it: for bytes a number and a
// decimal unit (B, kB, MB, GB, TB) or a bare number; for time a number
// and a unit (ns, us, µs, ms, s, mins, hrs), in seconds.
func parseValue(k kind, s string) (float64, error) {
	type unit struct {
		suffix string
		mult   float64
	}
	units := []unit{{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}, {"B", 1}}
	if k == timeKind {
		units = []unit{{"ns", 1e-9}, {"us", 1e-6}, {"µs", 1e-6}, {"ms", 1e-3}, {"mins", 60}, {"hrs", 3600}, {"s", 1}}
	}
	num, mult, found := s, 1.0, false
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mult, found = n, u.mult, true
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || k == timeKind && !found && v != 0 {
		return 0, fmt.Errorf("not a value of the profile: %q", s)
	}
	return v * mult, nil
}

// classify sums the samples' values by part.
func classify(samples []sample, ps []part) map[string]float64 {
	sums := make(map[string]float64, len(ps)+1)
	for _, s := range samples {
		sums[partOf(s.frames, ps)] += s.value
	}
	return sums
}

// partOf returns the part of the first frame, from the top of the stack
// down, that a part's pattern matches.
func partOf(frames []string, ps []part) string {
	for _, f := range frames {
		for _, p := range ps {
			if p.re.MatchString(f) {
				return p.name
			}
		}
	}
	return otherPart
}

// load returns a profile's kind and its values by part: a heap
// profile's in-use bytes, a CPU profile's time.
func load(path string, ps []part) (kind, map[string]float64, error) {
	var stdout, stderr bytes.Buffer
	// "--": a path that begins with "-" is a path, not one of pprof's
	// flags.
	cmd := exec.Command("go", "tool", "pprof", "-traces", "--", path)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return 0, nil, fmt.Errorf("go tool pprof %s: %w: %s", path, err, strings.TrimSpace(stderr.String()))
	}
	k, samples, err := parseTraces(&stdout)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, classify(samples, ps), nil
}

// run writes, part by part, what profile holds beyond base (none: all
// of it), over n, in KiB for bytes or ms for time, then the total and
// each part's share of it, and with off the total less off (bytes).
func run(w io.Writer, profile, base string, n, off float64) error {
	if !(n > 0) || math.IsInf(n, 0) {
		return fmt.Errorf("-n %v: want a count above 0", n)
	}
	if math.IsNaN(off) || math.IsInf(off, 0) {
		return fmt.Errorf("-off %v: want a number of bytes", off)
	}
	ps := parts()
	k, a, err := load(profile, ps)
	if err != nil {
		return err
	}
	b := map[string]float64{}
	if base != "" {
		var kb kind
		if kb, b, err = load(base, ps); err != nil {
			return err
		}
		if kb != k {
			return errors.New("the profile and its base are not of one kind")
		}
	}
	unit, scale := "KiB", 1.0/1024
	if k == timeKind {
		unit, scale = "ms", 1e3
		if off != 0 {
			return errors.New("-off is in bytes: a heap profile's")
		}
	}
	val := func(v float64) float64 { return v * scale / n }
	names := append(partNames(ps), otherPart)
	total := 0.0
	for _, name := range names {
		total += a[name] - b[name]
	}
	// A CPU profile's parts are shares of the whole; a heap profile's are
	// not, with its total less the cache's answers (-off).
	row := func(name string, v float64) {
		if k == timeKind && total != 0 {
			fmt.Fprintf(w, "| %s | %.3f | %.1f %% |\n", name, val(v), 100*v/total)
			return
		}
		fmt.Fprintf(w, "| %s | %.1f |\n", name, val(v))
	}
	if k == timeKind {
		fmt.Fprintf(w, "| part | %s | share |\n|---|---|---|\n", unit)
	} else {
		fmt.Fprintf(w, "| part | %s |\n|---|---|\n", unit)
	}
	for _, name := range names {
		row(name, a[name]-b[name])
	}
	row("total", total)
	if off != 0 {
		row("taken off (-off)", -off)
		row("total less it", total-off)
	}
	return nil
}

// partNames returns the parts' names in their order.
func partNames(ps []part) []string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.name
	}
	return names
}
