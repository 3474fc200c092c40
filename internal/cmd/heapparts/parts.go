package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// part is one part of the service a sample can be charged to: the first
// whose pattern a frame of the sample's stack matches, from the
// allocating frame up.
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
		p("DNS client: lookups in flight and the tombstones of those ended", `resolver\.\(\*(Client|lookup|socket|watcher)\)|resolver\.(newWaiter|mixCase|newQuery|newRetry)\b`),
		p("shared DNS cache: the questions it asks", `resolver\.\(\*cacheAsk\)|resolver\.\(\*Cache\)\.(Start|StartMemo|claim)\b`),
		p("the scan's resolver and the checks' limits", `resolver\.\(\*(Scan|Limited)\)|resolver\.(NewScan|Limit|newPending)\b`),
		p("leak guard", `mailauth/redact\.`),
		p("MTA-STS policy fetch (TLS handshake, HTTP GET)", `^crypto/|cryptobyte|mailauth/mtasts\.`),
		p("HTTP server (connection, request, answer)", `^net/http\.|^net/textproto\.|mailauth/httpapi\.`),
		p("contexts and timers", `^context\.|^time\.(newTimer|AfterFunc)\b`),
		p("checks and the scan's run", `mailauth/mailauth\.|mailauth/(spf|dmarc|dkim|mx|ptr|caa|tlsrpt|dane)\.`),
	}
}

// sample is one stack's in-use bytes, its frames from the allocating one
// up.
type sample struct {
	bytes  float64
	frames []string
}

// blockSep is the line between two samples in `go tool pprof -traces`.
const blockSep = "-----------+-------------------------------------------------------"

// parseTraces reads the output of `go tool pprof -traces` for one sample
// type: each sample is a block whose first line gives the value (with a
// unit: B, kB, MB, GB, decimal) and the allocating frame, and whose
// following lines give the frames above it; "bytes:" lines (the size
// buckets of a heap profile) are skipped.
func parseTraces(r io.Reader) ([]sample, error) {
	var out []sample
	var cur *sample
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	started := false
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == blockSep {
			started = true
			cur = nil
			continue
		}
		if !started {
			continue // the header: file, build ID, type, time
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
			return nil, fmt.Errorf("a sample's first line without a frame: %q", line)
		}
		v, err := parseBytes(val)
		if err != nil {
			return nil, err
		}
		out = append(out, sample{bytes: v, frames: []string{frameName(strings.TrimSpace(frame))}})
		cur = &out[len(out)-1]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the traces: %w", err)
	}
	if !started {
		return nil, errors.New("no samples: not the output of go tool pprof -traces")
	}
	return out, nil
}

// frameName is a frame's function, without " (inline)" and the like.
func frameName(f string) string {
	name, _, _ := strings.Cut(f, " ")
	return name
}

// parseBytes reads a value as pprof prints it: a number and a decimal
// unit (B, kB, MB, GB, TB), or a bare number of bytes.
func parseBytes(s string) (float64, error) {
	num, mult := s, 1.0
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			num, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("not a number of bytes: %q", s)
	}
	return v * mult, nil
}

// classify sums the samples' bytes by part.
func classify(samples []sample, ps []part) map[string]float64 {
	sums := make(map[string]float64, len(ps)+1)
	for _, s := range samples {
		sums[partOf(s.frames, ps)] += s.bytes
	}
	return sums
}

// partOf returns the part of the first frame, from the allocating one
// up, that a part's pattern matches.
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

// inUse returns a heap profile's in-use bytes by part.
func inUse(path string, ps []part) (map[string]float64, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("go", "tool", "pprof", "-sample_index=inuse_space", "-traces", path)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go tool pprof %s: %w: %s", path, err, strings.TrimSpace(stderr.String()))
	}
	samples, err := parseTraces(&stdout)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return classify(samples, ps), nil
}

// run writes, part by part, what profile holds beyond base (none: all
// of it), over n, in KiB, then the total, and with off the total less
// off.
func run(w io.Writer, profile, base string, n, off float64) error {
	ps := parts()
	a, err := inUse(profile, ps)
	if err != nil {
		return err
	}
	b := map[string]float64{}
	if base != "" {
		if b, err = inUse(base, ps); err != nil {
			return err
		}
	}
	kib := func(v float64) float64 { return v / n / 1024 }
	fmt.Fprintf(w, "| part | KiB |\n|---|---|\n")
	total := 0.0
	for _, name := range append(partNames(ps), otherPart) {
		d := a[name] - b[name]
		total += d
		fmt.Fprintf(w, "| %s | %.1f |\n", name, kib(d))
	}
	fmt.Fprintf(w, "| total | %.1f |\n", kib(total))
	if off != 0 {
		fmt.Fprintf(w, "| taken off (-off) | %.1f |\n| total less it | %.1f |\n", -kib(off), kib(total-off))
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
