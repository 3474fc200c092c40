package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/miekg/dns"

	"github.com/mailauth/mailauth/resolver/dnstest"
)

// -mode spoof: the off-path attacks on the service's DNS lookups
// (RELIABILITY.md, "Spoofed DNS replies"). The lab serves spoofDomains
// copies of a well-set-up domain whose names answer after -spoof-delay;
// every scan takes a domain no earlier scan took, so that its lookups
// go to the resolver and not to the shared cache. A baseline of scans
// with no attack gives the verdict every scan should get; then each
// attack runs for -attack (scans from its own sources meanwhile), and
// after the forged answers the domains they aimed at are scanned again
// from other sources with no attack running: what the shared cache kept
// reaches them.
const (
	spoofDomains   = 200 // copies of the domain in the zone
	spoofBaseline  = 4   // scans of the baseline
	spoofMaxScans  = 16  // scans per attack at most
	spoofWorkers   = 2   // scans in flight at once
	spoofCacheMB   = 32  // the shared DNS cache, as `mailauth serve` has it by default
	spoofBaseNet   = 9   // the baseline's sources: 127.0.9.x
	spoofAttackNet = 10  // attack i's sources: 127.0.(10+i).x
	spoofAfterNet  = 30  // the rescans' sources after attack i: 127.0.(30+i).x
	spoofSettle    = 3 * time.Second
	// The slow domain's scans (undecodable-slow, case-downgrade): its answers come after
	// the scan's deadline, so each scan takes the whole 15 s.
	spoofSlowBaseline = 6
	spoofSlowScans    = 6
	spoofSlowBaseNet  = 8 // 127.0.8.x
)

// spoofKinds are the attacks in the order they run.
// case-downgrade and forge-downgraded come last: a resolver client that
// falls back from 0x20 does so for minutes.
var spoofKinds = []string{attackICMPSweep, attackICMPLive, attackUndecodable, attackRefused, attackForge, attackUndecodableSlow,
	attackCaseDowngrade, attackForgeDowngraded}

func spoofDomain(i int) string { return fmt.Sprintf("sp%d-s.example.com", i) }

// spoofNames are the names of a spoof domain that answer after the delay.
func spoofNames(d string) []string {
	return []string{d, "mx1." + d, "_dmarc." + d, "_mta-sts." + d, "mta-sts." + d, "_smtp._tls." + d}
}

// writeSpoofZone adds the spoof domains, each set up as the scan zone's
// good.example.com is.
func writeSpoofZone(b *strings.Builder) {
	for i := range spoofDomains {
		o := strings.TrimSuffix(spoofDomain(i), ".example.com")
		fmt.Fprintf(b, "%s MX 10 mx1.%s\nmx1.%s A 8.8.8.8\n%s TXT \"v=spf1 mx -all\"\n", o, o, o, o)
		fmt.Fprintf(b, "_dmarc.%s TXT \"v=DMARC1; p=reject; rua=mailto:dmarc-reports@%s.example.com\"\n", o, o)
		fmt.Fprintf(b, "_mta-sts.%s TXT \"v=STSv1; id=20261121T000000\"\nmta-sts.%s A 127.0.0.1\n", o, o)
		fmt.Fprintf(b, "_smtp._tls.%s TXT \"v=TLSRPTv1; rua=mailto:tls-reports@%s.example.com\"\n%s CAA 0 issue \"letsencrypt.org\"\n", o, o, o)
	}
}

// spoofFaults delays every answer about the spoof domains by d: the
// window in which a forged datagram can come first.
func spoofFaults(s *dnstest.Server, d time.Duration) {
	for i := range spoofDomains {
		for _, n := range spoofNames(spoofDomain(i)) {
			s.SetFault(n, dnstest.AnyType, dnstest.Delay(d))
		}
	}
}

// spoofPhase counts the scans of one phase against the baseline verdict.
type spoofPhase struct {
	Scans    int            `json:"scans"`
	Failed   int            `json:"failed"`  // not 200
	Changed  int            `json:"changed"` // 200 with another verdict than the baseline's
	Statuses outcomes       `json:"statuses"`
	Changes  map[string]int `json:"changes"` // what changed, e.g. "spf: pass/info -> fail/high"
	domains  []string       // scanned, in order (for the rescans)
}

// spoofAttack is the record of one attack.
type spoofAttack struct {
	Kind       string      `json:"kind"`
	During     spoofPhase  `json:"during"`
	After      *spoofPhase `json:"after,omitempty"` // forge: the same domains from other sources, attack stopped
	Packets    int64       `json:"packets"`
	SendErrors int64       `json:"sendErrors"`
	Seconds    float64     `json:"seconds"`
	Rate       float64     `json:"rate"`
	MaxLive    int64       `json:"maxLivePorts"`
	LoadStart  string      `json:"loadStart"`
	LoadEnd    string      `json:"loadEnd"`
	// Drops are the datagrams and ICMP errors the service's resolver
	// client dropped as forged during the attack, by kind.
	Drops map[string]uint64 `json:"drops"`
	Error string            `json:"error,omitempty"`
}

// spoofResult is what the load process reports for -mode spoof.
type spoofResult struct {
	Baseline spoofPhase    `json:"baseline"`
	Verdict  string        `json:"verdict"` // the baseline verdict, in short
	Delay    string        `json:"delay"`
	Rate     int           `json:"rate"`
	Attacks  []spoofAttack `json:"attacks"`
	Error    string        `json:"error,omitempty"`
	// SlowBaseline and SlowVerdict are the slow domain's (undecodable-slow).
	SlowBaseline *spoofPhase `json:"slowBaseline,omitempty"`
	SlowVerdict  string      `json:"slowVerdict,omitempty"`
}

// verdict is what a scan concluded, with the scanned domain's name
// replaced, so that scans of different copies compare.
type verdict struct {
	Grade  string
	Score  int
	Checks map[string]string // check ID → "status/severity", plus " diagnostics <json>"
	Texts  map[string]string // check ID → its summary in English
}

// parseVerdict reads a scan's 200 body.
func parseVerdict(body []byte, domain string) (verdict, error) {
	body = []byte(strings.ReplaceAll(string(body), domain, "DOMAIN"))
	var r struct {
		Grade  string `json:"grade"`
		Score  int    `json:"score"`
		Checks []struct {
			ID          string          `json:"id"`
			Status      string          `json:"status"`
			Severity    string          `json:"severity"`
			Diagnostics json.RawMessage `json:"diagnostics"`
			Summary     struct {
				En string `json:"en"`
			} `json:"summary"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return verdict{}, fmt.Errorf("scan body: %w", err)
	}
	v := verdict{Grade: r.Grade, Score: r.Score, Checks: map[string]string{}, Texts: map[string]string{}}
	for _, c := range r.Checks {
		v.Checks[c.ID] = c.Status + "/" + c.Severity + " diagnostics " + string(c.Diagnostics)
		v.Texts[c.ID] = c.Summary.En
	}
	return v, nil
}

// diff lists how v differs from base (nothing when it does not).
func (v verdict) diff(base verdict) []string {
	var out []string
	if v.Grade != base.Grade || v.Score != base.Score {
		out = append(out, fmt.Sprintf("grade %s %d -> %s %d", base.Grade, base.Score, v.Grade, v.Score))
	}
	ids := make([]string, 0, len(base.Checks))
	for id := range base.Checks {
		ids = append(ids, id)
	}
	for id := range v.Checks {
		if _, ok := base.Checks[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		b, n := base.Checks[id], v.Checks[id]
		bs, _, _ := strings.Cut(b, " ")
		ns, _, _ := strings.Cut(n, " ")
		switch {
		case b == n && base.Texts[id] == v.Texts[id]:
		case bs != ns:
			out = append(out, id+": "+bs+" -> "+ns+" ("+clip(v.Texts[id])+")")
		case b != n:
			out = append(out, id+": "+bs+", other diagnostics")
		default:
			out = append(out, id+": "+bs+", another text ("+clip(v.Texts[id])+")")
		}
	}
	return out
}

// clip shortens a check's text for the report.
func clip(s string) string {
	const n = 90
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// short is the verdict in one line: grade, score and each check's status.
func (v verdict) short() string {
	ids := make([]string, 0, len(v.Checks))
	for id := range v.Checks {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var b strings.Builder
	fmt.Fprintf(&b, "grade %s %d:", v.Grade, v.Score)
	for _, id := range ids {
		s, _, _ := strings.Cut(v.Checks[id], " ")
		fmt.Fprintf(&b, " %s %s", id, s)
	}
	return b.String()
}

// inflight is the set of domains being scanned: the attacker that forges
// replies knows the questions (it may well have asked for the scan).
type inflight struct {
	mu sync.Mutex
	m  map[string]int
}

func (f *inflight) add(d string, delta int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]int{}
	}
	f.m[d] += delta
	if f.m[d] <= 0 {
		delete(f.m, d)
	}
}

func (f *inflight) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.m))
	for d := range f.m {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// scanDomain scans d from src and returns the status, the error message
// or the verdict.
func scanDomain(c *http.Client, base, d string) (int, string, verdict) {
	req, err := http.NewRequest(http.MethodPost, base+"/api/scan", strings.NewReader(scanBody(d)))
	if err != nil {
		return 0, err.Error(), verdict{}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, "transport error", verdict{}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, "transport error", verdict{}
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(body, &e)
		return resp.StatusCode, e.Error, verdict{}
	}
	v, err := parseVerdict(body, d)
	if err != nil {
		return 0, "undecodable 200", verdict{}
	}
	return resp.StatusCode, "", v
}

// spoofScanner runs the scans of the spoof mode.
type spoofScanner struct {
	base   string
	next   atomic.Int64 // the next unused spoof domain
	flight inflight
}

// fresh picks a spoof domain no scan took before.
func (s *spoofScanner) fresh(int) (string, bool) {
	n := int(s.next.Add(1)) - 1
	return spoofDomain(n), n < spoofDomains
}

// listed picks the domains of l in turn.
func listed(l []string) func(int) (string, bool) {
	return func(i int) (string, bool) {
		if i >= len(l) {
			return "", false
		}
		return l[i], true
	}
}

// phase scans the domains pick gives from the sources 127.0.net.x,
// spoofWorkers at a time, until ctx ends, pick has no more or max scans
// ran. Each 200 is compared with *baseline, or becomes it when nil.
func (s *spoofScanner) phase(ctx context.Context, net, max int, pick func(i int) (string, bool), baseline **verdict) spoofPhase {
	var mu sync.Mutex
	p := spoofPhase{Statuses: outcomes{}, Changes: map[string]int{}}
	var started atomic.Int64
	var wg sync.WaitGroup
	for range spoofWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(started.Add(1)) - 1
				if i >= max {
					return
				}
				d, ok := pick(i)
				if !ok {
					return
				}
				s.flight.add(d, 1)
				c := newClient(fmt.Sprintf("127.0.%d.%d", net, i%250+1), 1)
				status, msg, v := scanDomain(c, s.base, d)
				c.CloseIdleConnections()
				s.flight.add(d, -1)
				mu.Lock()
				p.Scans++
				p.domains = append(p.domains, d)
				key := fmt.Sprint(status)
				if msg != "" {
					key += " " + msg
				}
				p.Statuses[key]++
				switch {
				case status != http.StatusOK:
					p.Failed++
				case *baseline == nil:
					*baseline = &v
				default:
					if ch := v.diff(**baseline); len(ch) > 0 {
						p.Changed++
						for _, c := range ch {
							p.Changes[c]++
						}
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return p
}

// payloads returns the forged DNS replies of kind for the scans in
// flight: REFUSED for the MX, SPF and DMARC questions, or the answers
// SPF +all and DMARC p=none.
func (s *spoofScanner) payloads(kind string) func() [][]byte {
	if kind == attackUndecodable || kind == attackUndecodableSlow {
		u := undecodable()
		return func() [][]byte { return [][]byte{u} }
	}
	var mu sync.Mutex
	cache := map[string][][]byte{}
	return func() [][]byte {
		var out [][]byte
		for _, d := range s.flight.list() {
			mu.Lock()
			p, ok := cache[d]
			if !ok {
				p = forgedFor(kind, d)
				cache[d] = p
			}
			mu.Unlock()
			out = append(out, p...)
		}
		return out
	}
}

// forgedFor packs the forged replies of kind for a scan of d.
func forgedFor(kind, d string) [][]byte {
	type q struct {
		name  string
		qtype uint16
		txt   string
	}
	var qs []q
	rcode := dns.RcodeSuccess
	switch kind {
	case attackRefused, attackCaseDowngrade:
		rcode = dns.RcodeRefused
		qs = []q{{d, dns.TypeMX, ""}, {d, dns.TypeTXT, ""}, {"_dmarc." + d, dns.TypeTXT, ""}}
	case attackForge, attackForgeDowngraded:
		qs = []q{{d, dns.TypeTXT, "v=spf1 +all"}, {"_dmarc." + d, dns.TypeTXT, "v=DMARC1; p=none"}}
	}
	var out [][]byte
	for _, x := range qs {
		b, err := forgedReply(x.name, x.qtype, rcode, x.txt)
		if err == nil {
			out = append(out, b)
		}
	}
	return out
}

// readDrops reads the service's spoof drops from the lab (nil when it
// cannot).
func readDrops(addr string) map[string]uint64 {
	if addr == "" {
		return nil
	}
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get("http://" + addr + "/")
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var m map[string]uint64
	if json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&m) != nil {
		return nil
	}
	return m
}

// dropsSince is what each count of b gained over a.
func dropsSince(a, b map[string]uint64) map[string]uint64 {
	if b == nil {
		return nil
	}
	out := map[string]uint64{}
	for k, v := range b {
		if d := v - a[k]; v >= a[k] && d > 0 {
			out[k] = d
		}
	}
	return out
}

// runSpoof is the load process of -mode spoof: the baseline, then each
// attack not skipped.
func runSpoof(base, dnsAddr, dropsAddr string, attack time.Duration, rate int, delay time.Duration, skip map[string]bool) spoofResult {
	res := spoofResult{Delay: delay.String(), Rate: rate}
	if err := privateNetns(); err != nil {
		res.Error = err.Error()
		return res
	}
	resolverAddr, err := netip.ParseAddrPort(dnsAddr)
	if err != nil {
		res.Error = fmt.Sprintf("resolver address: %v", err)
		return res
	}
	s := &spoofScanner{base: base}
	var baseline, slowBaseline *verdict
	res.Baseline = s.phase(context.Background(), spoofBaseNet, spoofBaseline, s.fresh, &baseline)
	if baseline == nil {
		res.Error = "no baseline scan answered 200"
		return res
	}
	res.Verdict = baseline.short()
	fmt.Fprintf(os.Stderr, "spoof baseline: %d scans, %d failed, %d changed; %s\n",
		res.Baseline.Scans, res.Baseline.Failed, res.Baseline.Changed, res.Verdict)
	for i, kind := range spoofKinds {
		if skip[kind] {
			continue
		}
		time.Sleep(spoofSettle) // the previous attack's sockets retire and close
		pick, base, scans := s.fresh, &baseline, spoofMaxScans
		if kind == attackUndecodableSlow || kind == attackCaseDowngrade {
			slow := func(int) (string, bool) { return slowDomain, true }
			if res.SlowBaseline == nil {
				p := s.phase(context.Background(), spoofSlowBaseNet, spoofSlowBaseline, slow, &slowBaseline)
				res.SlowBaseline = &p
				// The slow domain's answers come after the scan deadline:
				// without an attack its scans may end "ran out of time"
				// (a 500). An attack changes nothing when its scans end
				// the same ways (slowOutcomes).
				res.SlowVerdict = strings.Join(slices.Sorted(maps.Keys(p.Statuses)), "; ")
				if slowBaseline != nil {
					res.SlowVerdict = slowBaseline.short() + "; " + res.SlowVerdict
				}
				fmt.Fprintf(os.Stderr, "spoof baseline of the slow domain: %d scans, %d failed, %d changed; %s\n",
					p.Scans, p.Failed, p.Changed, res.SlowVerdict)
			}
			pick, base, scans = slow, &slowBaseline, spoofSlowScans
		}
		a := &forger{kind: kind, service: netip.MustParseAddr("127.0.0.1"), resolver: resolverAddr, rate: rate,
			max: int64(float64(rate) * attack.Seconds())}
		if kind == attackICMPLive {
			a.rate = min(rate, icmpLiveRate)
			a.max = int64(float64(a.rate) * attack.Seconds())
		}
		if kind != attackICMPSweep && kind != attackICMPLive {
			a.payloads = s.payloads(kind)
		}
		rec := spoofAttack{Kind: kind, LoadStart: loadAvg()}
		drops0 := readDrops(dropsAddr)
		ctx, cancel := context.WithTimeout(context.Background(), attack)
		done := make(chan error, 1)
		go func() { done <- a.run(ctx) }()
		rec.During = s.phase(ctx, spoofAttackNet+i, scans, pick, base)
		cancel()
		if kind == attackUndecodableSlow || kind == attackCaseDowngrade {
			rec.During.Failed = slowOutcomes(rec.During, *res.SlowBaseline)
		}
		if err := <-done; err != nil {
			rec.Error = err.Error()
		}
		rec.LoadEnd = loadAvg()
		rec.Drops = dropsSince(drops0, readDrops(dropsAddr))
		rec.Packets, rec.SendErrors, rec.MaxLive = a.sent.Load(), a.errs.Load(), a.maxLive.Load()
		rec.Seconds = a.elapsed.Seconds()
		if rec.Seconds > 0 {
			rec.Rate = float64(rec.Packets) / rec.Seconds
		}
		if kind == attackForge || kind == attackForgeDowngraded {
			after := s.phase(context.Background(), spoofAfterNet+i, spoofMaxScans, listed(rec.During.domains), &baseline)
			rec.After = &after
		}
		fmt.Fprintf(os.Stderr, "spoof %s: %d scans, %d failed, %d changed; %d packets in %.1f s; load %s\n",
			kind, rec.During.Scans, rec.During.Failed, rec.During.Changed, rec.Packets, rec.Seconds, rec.LoadEnd)
		res.Attacks = append(res.Attacks, rec)
	}
	return res
}

// printSpoof prints the spoof mode's figures.
func printSpoof(out io.Writer, r spoofResult) {
	fmt.Fprintf(out, "== spoofed DNS replies (answers delayed %s; brute force at most %d packets/s)\n", r.Delay, r.Rate)
	if r.Error != "" {
		fmt.Fprintf(out, "error: %s\n", r.Error)
	}
	fmt.Fprintf(out, "baseline (no attack): %d scans, %d failed, %d changed; %s\n",
		r.Baseline.Scans, r.Baseline.Failed, r.Baseline.Changed, r.Verdict)
	if r.SlowBaseline != nil {
		fmt.Fprintf(out, "baseline of %s (no attack; its answers come after the scan deadline): %d scans, %d failed, %d changed; %s\n",
			slowDomain, r.SlowBaseline.Scans, r.SlowBaseline.Failed, r.SlowBaseline.Changed, r.SlowVerdict)
	}
	fmt.Fprintf(out, "%-12s %6s %7s %8s %10s %8s %9s %6s  %s\n", "attack", "scans", "failed", "changed", "packets", "seconds", "packets/s", "ports", "load average (start; end)")
	for _, a := range r.Attacks {
		ports := fmt.Sprint(a.MaxLive)
		if a.Kind == attackICMPSweep {
			ports = "sweep" // every ephemeral port, none read
		}
		fmt.Fprintf(out, "%-12s %6d %7d %8d %10d %8.1f %9.0f %6s  %s; %s\n", a.Kind, a.During.Scans, a.During.Failed, a.During.Changed,
			a.Packets, a.Seconds, a.Rate, ports, a.LoadStart, a.LoadEnd)
		if a.After != nil {
			fmt.Fprintf(out, "%-12s %6d %7d %8d  (the same domains from other sources, no attack running)\n", "  then", a.After.Scans, a.After.Failed, a.After.Changed)
		}
	}
	for _, a := range r.Attacks {
		if a.Error != "" {
			fmt.Fprintf(out, "%s: error: %s\n", a.Kind, a.Error)
		}
		if a.SendErrors > 0 {
			fmt.Fprintf(out, "%s: %d sends failed\n", a.Kind, a.SendErrors)
		}
		if a.Drops != nil {
			kinds := make([]string, 0, len(a.Drops))
			for k := range a.Drops {
				kinds = append(kinds, k)
			}
			slices.Sort(kinds)
			parts := make([]string, len(kinds))
			for i, k := range kinds {
				parts[i] = fmt.Sprintf("%s %d", k, a.Drops[k])
			}
			fmt.Fprintf(out, "  %s: dropped by the service as forged: %s\n", a.Kind, strings.Join(parts, ", "))
		}
		printPhase(out, a.Kind, a.During)
		if a.After != nil {
			printPhase(out, a.Kind+", then other sources", *a.After)
		}
	}
	printPhase(out, "baseline", r.Baseline)
	if r.SlowBaseline != nil {
		printPhase(out, "baseline of "+slowDomain, *r.SlowBaseline)
	}
}

// printPhase prints a phase's statuses and what changed.
func printPhase(out io.Writer, name string, p spoofPhase) {
	fmt.Fprintf(out, "  %s: statuses %s\n", name, outcomeList(p.Statuses))
	keys := make([]string, 0, len(p.Changes))
	for k := range p.Changes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(out, "    %3d x %s\n", p.Changes[k], k)
	}
}

// outcomeList prints outcomes sorted.
func outcomeList(o outcomes) string {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d x %s", o[k], k)
	}
	return strings.Join(parts, ", ")
}

// slowOutcomes counts the failed scans of an attack on the slow domain
// whose outcome (status and message) no scan of its unattacked baseline
// had: a scan that ran out of time as it does without an attack is not
// a failure the attack caused.
func slowOutcomes(during, baseline spoofPhase) int {
	n := 0
	for key, count := range during.Statuses {
		if !strings.HasPrefix(key, "200") && baseline.Statuses[key] == 0 {
			n += count
		}
	}
	return n
}
