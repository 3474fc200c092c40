package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The capacity sieges (RELIABILITY.md, "The capacity sieges"): coalitions
// past the sizes of the first sieges, each run alone while the
// well-behaved client is measured, as -mode siege does.
const (
	capFreshSources = 500 // IPv4 addresses keeping one slow scan each
	capTripleSrcs   = 250 // IPv4 addresses keeping three slow scans each
	capV6Networks   = 64  // IPv6 /48s, 8 /64s each, one slow scan per /64
	capBodySources  = 500 // IPv4 addresses holding slow-body connections
	capBodyConns    = 32  // connections per slow-body address (the per-source cap)
	capBodyEvery    = time.Second
	capMixSlow      = 250 // slow-scan sources of the mix
	// capWarmup is how long each attack runs before the good client is
	// measured: with 500 fresh sources, every one of them has had its
	// first turn (500 of the 512 default slots at once; over 64 slots it
	// took 500 × about 3.5 s / 64, about 27 s); in that first round a
	// visitor shares its turns with sources that never had one, which
	// nothing can tell apart from it.
	capWarmup = 30 * time.Second
)

var capacityPhases = []siegePhase{
	{"fresh-500: 500 addresses x 1 slow scan", func(ctx context.Context, base string, c *counters) {
		slowFrom(ctx, base, c, capFreshSources, 1, capSource(0))
	}},
	{"fresh-250x3: 250 addresses x 3 slow scans", func(ctx context.Context, base string, c *counters) {
		slowFrom(ctx, base, c, capTripleSrcs, 3, capSource(0))
	}},
	{"v6-64: 64 /48s (8 /64s each) x 1 slow scan", slowV6Networks},
	{"slow-body: 500 addresses x 32 slow-body connections", slowBodies},
	{"mix: 250 slow-scan addresses, 80 non-readers, a key spray", func(ctx context.Context, base string, c *counters) {
		parts := mixParts(os.Getenv(mixEnv))
		var wg sync.WaitGroup
		for part, f := range map[string]func(){
			mixSlow:       func() { slowFrom(ctx, base, c, capMixSlow, 1, capSource(0)) },
			mixNonReaders: func() { nonReaders(ctx, base, c) },
			mixSpray:      func() { keyFlood(ctx, base, c) },
		} {
			if parts[part] {
				wg.Go(f)
			}
		}
		wg.Wait()
	}},
}

// The parts of the capacity siege mix (-mix), and the environment
// variable that hands the choice to the siege's attacking process (set
// by runCapacity for each attacker it starts).
const (
	mixSlow       = "slow"
	mixNonReaders = "non-readers"
	mixSpray      = "spray"
	mixEnv        = "MAILAUTH_ABUSE_MIX"
)

// mixParts parses -mix: a comma-separated list of mix's parts, or empty
// for all of them; nil when it names anything else.
func mixParts(list string) map[string]bool {
	parts := map[string]bool{}
	if list == "" {
		list = mixSlow + "," + mixNonReaders + "," + mixSpray
	}
	for _, p := range strings.Split(list, ",") {
		switch p = strings.TrimSpace(p); p {
		case mixSlow, mixNonReaders, mixSpray:
			parts[p] = true
		default:
			return nil
		}
	}
	return parts
}

// capSource returns the i-th address of the block starting at block
// (127.68.0.1 on): 250 per /24.
func capSource(block int) func(i int) string {
	return func(i int) string { return fmt.Sprintf("127.%d.%d.%d", 68+block, i/250, i%250+1) }
}

// slowFrom keeps each slow scans running from each of n addresses.
func slowFrom(ctx context.Context, base string, c *counters, n, each int, src func(int) string) {
	var wg sync.WaitGroup
	for i := range n {
		cl := newClient(src(i), each)
		for range each {
			wg.Add(1)
			go func() { defer wg.Done(); slowLoop(ctx, func() (int, string) { return slowScan(ctx, cl, base, "") }, c) }()
		}
	}
	wg.Wait()
}

// slowV6Networks keeps one slow scan running from each of 8 /64s (over 4
// /56s) of capV6Networks /48s, forwarded by the trusted proxy.
func slowV6Networks(ctx context.Context, base string, c *counters) {
	var wg sync.WaitGroup
	cl := newClient(siegeProxySource, capV6Networks*siegeV6PerNet)
	for n := range capV6Networks {
		for i := range siegeV6PerNet {
			xff := fmt.Sprintf("2001:db8:%x:%x%02x::1", n+1, i/2, i)
			wg.Add(1)
			go func() {
				defer wg.Done()
				slowLoop(ctx, func() (int, string) { return slowScan(ctx, cl, base, xff) }, c)
			}()
		}
	}
	wg.Wait()
}

// slowBodies keeps capBodyConns connections from each of capBodySources
// addresses (127.69.0.1 on), each sending a scan request that announces
// an 8,000-byte body and then sends it a byte every capBodyEvery; a
// connection the server closes is opened again after a second.
func slowBodies(ctx context.Context, base string, c *counters) {
	addr := base[len("http://"):]
	var wg sync.WaitGroup
	src := capSource(1)
	for i := range capBodySources {
		for range capBodyConns {
			wg.Add(1)
			go func() { defer wg.Done(); slowBody(ctx, addr, src(i), c) }()
		}
	}
	wg.Wait()
}

// slowBody is one slow-body connection, opened again until ctx ends.
func slowBody(ctx context.Context, addr, src string, c *counters) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	head := "POST /api/scan HTTP/1.1\r\nHost: lab\r\nContent-Type: application/json\r\nContent-Length: 8000\r\n\r\n"
	for ctx.Err() == nil {
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			c.add("h", 0, "dial failed")
			sleepCtx(ctx, time.Second)
			continue
		}
		c.add("h", 0, "connection opened")
		done := make(chan struct{})
		go func() {
			select {
			case <-ctx.Done():
			case <-done:
			}
			conn.Close()
		}()
		_, err = io.WriteString(conn, head)
		for sent := 0; err == nil && ctx.Err() == nil && sent < 8000; sent++ {
			sleepCtx(ctx, capBodyEvery)
			_, err = conn.Write([]byte{' '})
		}
		close(done)
		c.add("h", 0, "connection closed by the server")
		sleepCtx(ctx, time.Second)
	}
}

// capacityEnv marks a child process that runs one capacity siege (the
// phase index) until its standard input closes, like siegeEnv.
const capacityEnv = "MAILAUTH_ABUSE_CAPACITY"

// runCapacityAttacker is the capacity siege child: it runs phase i
// against base until its standard input closes.
func runCapacityAttacker(i int, base string) int {
	return runPhaseChild(capacityPhases, i, base)
}

// runCapacity measures the good client unloaded, then under each
// capacity siege (after capWarmup, at most attack), and watches the
// server's RSS for recover after each. timesAddr serves the server's
// side of the good client's requests (serverTimes).
func runCapacity(base, timesAddr string, unloaded, attack, recover time.Duration, skip map[string]bool, sched, mix string) siegeResult {
	var res siegeResult
	var rec recorder
	res.Good = capacityGood()
	res.BaselineKB, _ = serverRSSKB()
	readServerSide(timesAddr)
	traceNote("unloaded", startServerTrace(timesAddr, "unloaded"))
	ctx, cancel := context.WithTimeout(context.Background(), unloaded)
	runGood(ctx, base, res.Good, &rec)
	cancel()
	res.Unloaded = rec.summary()
	res.Unloaded.Server = readServerSide(timesAddr)
	for i, p := range capacityPhases {
		if skip[strings.SplitN(p.name, ":", 2)[0]] {
			continue
		}
		var mem siegeMemory
		mem.BeforeKB, _ = serverRSSKB()
		cpu0 := cpuTicks()
		began := time.Now()
		a, err := startPhaseAttacker(capacityEnv, i, base, sched, mixEnv+"="+mix)
		if err != nil {
			fmt.Fprintln(os.Stderr, "abuse: capacity attacker:", err)
			continue
		}
		time.Sleep(min(capWarmup, attack))
		var good recorder
		readServerSide(timesAddr)
		traceNote(p.name, startServerTrace(timesAddr, strings.SplitN(p.name, ":", 2)[0]))
		gctx, gcancel := context.WithTimeout(context.Background(), attack)
		runGood(gctx, base, res.Good, &good)
		gcancel()
		load := loadAvg()
		server := readServerSide(timesAddr)
		rep := a.stop()
		name := p.name
		if strings.HasPrefix(name, "mix:") && mix != "" {
			name += " (-mix " + mix + ")" // the report says which parts ran
		}
		r := siegePhaseResult{Name: name, Good: good.summary(), Hostile: rep.Hostile,
			LoadCPU: (cpuTicks() - cpu0) * 10, AttackCPU: rep.CPUms, AttackSched: rep.Sched,
			AttackFor: time.Since(began).Round(time.Second), LoadAvg: load}
		r.Good.Server = server
		r.Memory = watchServer(p.name, mem, recover)
		res.Phases = append(res.Phases, r)
		time.Sleep(siegeCooldown - min(recover, siegeCooldown))
	}
	res.LoadSched = schedPolicies()
	return res
}

// startPhaseAttacker starts the child that runs phase i of the list env
// names, at the scheduling policy sched names (attackerSchedEnv), with
// the environment variables extra (NAME=value) set as well.
func startPhaseAttacker(env string, i int, base, sched string, extra ...string) (*attacker, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-base", base)
	cmd.Env = append(os.Environ(), env+"="+strconv.Itoa(i), loadEnv+"=", attackerSchedEnv+"="+sched)
	cmd.Env = append(cmd.Env, extra...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("attacker: %w", err)
	}
	return &attacker{cmd: cmd, stdin: stdin, out: &out}, nil
}

// traceNote tells, on stderr, where the trace of a measurement goes (or
// why it does not), when -trace asked for one.
func traceNote(name, note string) {
	if note != "" {
		fmt.Fprintf(os.Stderr, "abuse: %s: trace %s\n", name, note)
	}
}
