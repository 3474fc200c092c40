package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The sieges (RELIABILITY.md, "The sieges"): each runs alone
// for its phase while the well-behaved client is measured.
const (
	siegeV4Sources   = 30 // IPv4 addresses running slow scans
	siegeV6Networks  = 6  // IPv6 /48s running slow scans
	siegeV6PerNet    = 8  // /64s per /48, spread over 4 /56s
	siegeSlowEach    = 3  // slow scans each source keeps running
	siegeNonReaders  = 80 // IPv4 addresses pipelining page requests without reading
	nonReaderConns   = 32 // connections each non-reader keeps trying to hold (the per-source cap)
	nonReaderBatch   = 200
	siegeWarmup      = 8 * time.Second // at most -attack
	siegeCooldown    = 5 * time.Second
	nonReaderRcvBuf  = 4096
	nonReaderRedial  = 200 * time.Millisecond
	siegeProxySource = "127.0.0.1" // the trusted proxy, through which the IPv6 sources come
)

// siegeResult is what the load process reports for -mode siege.
type siegeResult struct {
	Good       goodLoad           `json:"good"` // the well-behaved client's pace
	Unloaded   latencies          `json:"unloaded"`
	Phases     []siegePhaseResult `json:"phases"`
	BaselineKB int                `json:"baselineKB"` // the server's RSS before any load (0: not readable)
	// LoadSched is the well-behaved client's process's threads by
	// scheduling policy at the end ("normal 9"): the attackers', not
	// its, are at SCHED_IDLE.
	LoadSched string `json:"loadSched"`
}

// siegeMemory is the server's RSS around one siege: before the attack,
// when it ends, and After later (0 KB: not readable, Note says why).
type siegeMemory struct {
	BeforeKB    int           `json:"beforeKB"`
	EndKB       int           `json:"endKB"`
	After       time.Duration `json:"after"`
	RecoveredKB int           `json:"recoveredKB"`
	Note        string        `json:"note,omitempty"`
}

// siegePhaseResult is one attack's figures.
type siegePhaseResult struct {
	Name      string    `json:"name"`
	Good      latencies `json:"good"`
	Hostile   outcomes  `json:"hostile"`
	LoadCPU   int       `json:"loadCPUms"`   // CPU the good client's process used during the phase
	AttackCPU int       `json:"attackCPUms"` // CPU the attacking process used
	// AttackSched is the attacking process's threads by scheduling
	// policy when it ended ("idle 12"), AttackFor how long it ran.
	AttackSched string        `json:"attackSched"`
	AttackFor   time.Duration `json:"attackFor"`
	LoadAvg     string        `json:"loadavg"` // the machine's load average at the end of the phase
	Memory      siegeMemory   `json:"memory"`
}

// siegePhase is one attack: it runs until ctx ends.
type siegePhase struct {
	name string
	run  func(ctx context.Context, base string, c *counters)
}

var siegePhases = []siegePhase{
	{"slow-ipv4: 30 addresses x 3 slow scans", slowIPv4},
	{"slow-ipv6: 6 /48s (8 /64s each) x 3 slow scans", slowIPv6},
	{"non-reading: 80 addresses pipelining page requests", nonReaders},
}

// runSiege measures the good client unloaded, then under each attack,
// and watches the server's RSS for recover after each (instead of the
// cooldown, when longer).
func runSiege(base string, unloaded, attack, recover time.Duration, skip map[string]bool, sched string) siegeResult {
	var res siegeResult
	var rec recorder
	res.Good = siegeGood()
	res.BaselineKB, _ = serverRSSKB()
	ctx, cancel := context.WithTimeout(context.Background(), unloaded)
	runGood(ctx, base, res.Good, &rec)
	cancel()
	res.Unloaded = rec.summary()
	for i, p := range siegePhases {
		if skip[strings.SplitN(p.name, ":", 2)[0]] {
			continue
		}
		var mem siegeMemory
		mem.BeforeKB, _ = serverRSSKB()
		cpu0 := cpuTicks()
		began := time.Now()
		attacker, err := startAttacker(i, base, sched)
		if err != nil {
			fmt.Fprintln(os.Stderr, "abuse: siege attacker:", err)
			continue
		}
		time.Sleep(min(siegeWarmup, attack))
		var good recorder
		gctx, gcancel := context.WithTimeout(context.Background(), attack)
		runGood(gctx, base, res.Good, &good)
		gcancel()
		rep := attacker.stop()
		r := siegePhaseResult{Name: p.name, Good: good.summary(), Hostile: rep.Hostile,
			LoadCPU: (cpuTicks() - cpu0) * 10, AttackCPU: rep.CPUms, AttackSched: rep.Sched,
			AttackFor: time.Since(began).Round(time.Second), LoadAvg: loadAvg()}
		r.Memory = watchServer(p.name, mem, recover)
		res.Phases = append(res.Phases, r)
		time.Sleep(siegeCooldown - min(recover, siegeCooldown))
	}
	res.LoadSched = schedPolicies()
	return res
}

// watchServer reads the server's RSS as a siege ends, then every
// recoverEvery(recover) for recover (printed to stderr as it goes), and
// returns mem with the figures.
func watchServer(name string, mem siegeMemory, recover time.Duration) siegeMemory {
	var err error
	if mem.EndKB, err = serverRSSKB(); err != nil {
		mem.Note = err.Error()
		time.Sleep(recover)
		return mem
	}
	start := time.Now()
	for {
		time.Sleep(min(recoverEvery(recover), recover-time.Since(start)))
		rss, err := serverRSSKB()
		if err != nil {
			mem.Note = err.Error()
			return mem
		}
		fmt.Fprintf(os.Stderr, "after %s: %6s rss %6d KB\n", name[:strings.IndexByte(name, ':')], time.Since(start).Round(time.Second), rss)
		if time.Since(start) >= recover {
			mem.After, mem.RecoveredKB = recover, rss
			return mem
		}
	}
}

// serverRSSKB reads the lab server's RSS: the load process's parent,
// checked to be this same program.
func serverRSSKB() (int, error) {
	ppid := os.Getppid()
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	if parent, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", ppid)); err != nil || parent != self {
		return 0, fmt.Errorf("the parent process is not the lab server")
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", ppid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			return strconv.Atoi(f[1])
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", ppid)
}

// slowIPv4 keeps siegeSlowEach slow scans running from each of
// siegeV4Sources addresses.
func slowIPv4(ctx context.Context, base string, c *counters) {
	var wg sync.WaitGroup
	for i := range siegeV4Sources {
		cl := newClient(fmt.Sprintf("127.66.1.%d", i+1), siegeSlowEach)
		for range siegeSlowEach {
			wg.Add(1)
			go func() { defer wg.Done(); slowLoop(ctx, func() (int, string) { return slowScan(ctx, cl, base, "") }, c) }()
		}
	}
	wg.Wait()
}

// slowIPv6 does the same from siegeV6PerNet /64s of each of
// siegeV6Networks /48s, forwarded by the trusted proxy.
func slowIPv6(ctx context.Context, base string, c *counters) {
	var wg sync.WaitGroup
	cl := newClient(siegeProxySource, siegeV6Networks*siegeV6PerNet*siegeSlowEach)
	for n := range siegeV6Networks {
		for i := range siegeV6PerNet {
			xff := fmt.Sprintf("2001:db8:%x:%x%02x::1", n+1, i/2, i)
			for range siegeSlowEach {
				wg.Add(1)
				go func() {
					defer wg.Done()
					slowLoop(ctx, func() (int, string) { return slowScan(ctx, cl, base, xff) }, c)
				}()
			}
		}
	}
	wg.Wait()
}

// slowScan sends one scan of the slow domain.
func slowScan(ctx context.Context, cl *http.Client, base, xff string) (int, string) {
	status, msg, _ := postMsg(ctx, cl, base, scanBody(slowDomain), xff)
	return status, msg
}

// slowLoop sends one request at a time until ctx ends, pausing backoff
// after a refusal.
func slowLoop(ctx context.Context, send func() (int, string), c *counters) {
	for ctx.Err() == nil {
		status, msg := send()
		if ctx.Err() != nil {
			return
		}
		c.add("h", status, msg)
		pause := attackCooldown
		if status != 200 {
			pause = backoff
		}
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
	}
}

// nonReaders keeps nonReaderConns connections open from each of
// siegeNonReaders addresses, each pipelining page requests and never
// reading an answer; a connection the server closes is opened again.
func nonReaders(ctx context.Context, base string, c *counters) {
	addr := base[len("http://"):]
	var wg sync.WaitGroup
	for i := range siegeNonReaders {
		src := fmt.Sprintf("127.67.%d.%d", i/200, i%200+1)
		for range nonReaderConns {
			wg.Add(1)
			go func() { defer wg.Done(); nonReader(ctx, addr, src, c) }()
		}
	}
	wg.Wait()
}

// nonReader is one non-reading connection, opened again until ctx ends.
func nonReader(ctx context.Context, addr, src string, c *counters) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second,
		Control: func(_, _ string, rc syscall.RawConn) error {
			return rc.Control(func(fd uintptr) {
				_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, nonReaderRcvBuf)
			})
		}}
	batch := strings.Repeat("GET / HTTP/1.1\r\nHost: lab\r\n\r\n", nonReaderBatch)
	for ctx.Err() == nil {
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			c.add("h", 0, "dial failed")
			sleepCtx(ctx, nonReaderRedial)
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
		for ctx.Err() == nil {
			if _, err := conn.Write([]byte(batch)); err != nil {
				break
			}
		}
		close(done)
		c.add("h", 0, "connection closed by the server")
		sleepCtx(ctx, nonReaderRedial)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// loadAvg returns the machine's load averages (/proc/loadavg).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

// siegeEnv marks a child process that runs one siege's attack (the phase
// index) until its standard input closes, then prints what the hostile
// requests got and the CPU it used. The attack runs apart from the
// well-behaved client so that the client's latency is the server's, not
// its own process's competition with thousands of attacking goroutines.
const siegeEnv = "MAILAUTH_ABUSE_SIEGE"

// attackReport is what a siege child prints: what its requests and
// connections got, the CPU it used and its threads' scheduling policies.
type attackReport struct {
	Hostile outcomes `json:"hostile"`
	CPUms   int      `json:"cpuMs"`
	Sched   string   `json:"sched"`
}

// runAttacker is the siege child: it runs phase i against base until its
// standard input closes.
func runAttacker(i int, base string) int {
	return runPhaseChild(siegePhases, i, base)
}

// runPhaseChild runs phases[i] against base until standard input
// closes, then prints its attackReport: the body of a siege child.
func runPhaseChild(phases []siegePhase, i int, base string) int {
	if i < 0 || i >= len(phases) {
		return 2
	}
	if os.Getenv(attackerSchedEnv) == schedIdle {
		if err := idleAllThreads(); err != nil {
			fmt.Fprintln(os.Stderr, "abuse: attacker:", err)
			return 2
		}
	}
	ctx, stop := context.WithCancel(context.Background())
	var c counters
	done := make(chan struct{})
	go func() { defer close(done); phases[i].run(ctx, base, &c) }()
	_, _ = io.Copy(io.Discard, os.Stdin)
	stop()
	<-done
	rep := attackReport{Hostile: outcomes{}, CPUms: cpuTicks() * 10, Sched: schedPolicies()}
	for kind, o := range c.snapshot() {
		for k, n := range o {
			if kind != "h" {
				k = kind + ": " + k // the key spray's requests, in mix
			}
			rep.Hostile[k] += n
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(rep); err != nil {
		return 1
	}
	return 0
}

// attacker is a running siege child.
type attacker struct {
	cmd   *exec.Cmd
	stdin io.Closer
	out   *bytes.Buffer
}

// startAttacker starts the child that runs siege phase i.
func startAttacker(i int, base, sched string) (*attacker, error) {
	return startPhaseAttacker(siegeEnv, i, base, sched)
}

// stop ends the attack and returns its report.
func (a *attacker) stop() attackReport {
	_ = a.stdin.Close()
	_ = a.cmd.Wait()
	var r attackReport
	if err := json.Unmarshal(a.out.Bytes(), &r); err != nil {
		return attackReport{Hostile: outcomes{"attacker report unreadable": 1}}
	}
	return r
}
