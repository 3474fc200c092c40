// Command abuse is the service's scripted attack and soak (RELIABILITY.md),
// driven by scripts/abuse. It serves a lab on loopback — the real scanner
// and handler behind the connection-limited listener, as `mailauth serve`
// assembles them, over a dnstest DNS server with hostile zones — and runs
// the load in a child process, so that the figures it reads about itself
// (RSS, goroutines, descriptors) are the server's alone; the DNS server
// runs in a third process, as a real resolver would.
//
//	abuse -mode attack [-hostile 20] [-unloaded 30s] [-attack 60s]
//	abuse -mode siege [-unloaded 30s] [-attack 60s] [-recover 2m] [-skip slow-ipv4,slow-ipv6,non-reading] [-attacker-sched idle]
//	abuse -mode capacity [-unloaded 30s] [-attack 60s] [-recover 2m] [-skip fresh-500,fresh-250x3,v6-64,slow-body,mix] [-mix slow,non-readers,spray] [-attacker-sched idle]
//	abuse -mode spray [-recover 2m]
//	abuse -mode soak [-soak 10m] [-sample 10s] [-recover 2m]
//	abuse -mode memory [-sample 20ms] [-memory-domain big|slow]   # as many concurrent scans as the service has slots, twice
//	abuse -mode spoof [-attack 60s] [-spoof-rate 40000] [-spoof-delay 1.9s] [-skip icmp-sweep,icmp-live,undecodable,refused,forge,undecodable-slow,case-downgrade,forge-downgraded]
//
// Every address it uses is in 127.0.0.0/8; scripts/abuse runs it inside a
// private network namespace when it can, where nothing else is reachable
// and the TCP counters are the lab's own. -mode spoof forges packets from
// the resolver's address through a raw socket: it runs only inside a
// private network namespace (another one than PID 1's, with nothing but
// loopback interfaces), and refuses to start anywhere else.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/mailauth/mailauth/httpapi"
)

// loadEnv marks the child process that generates the load.
const loadEnv = "MAILAUTH_ABUSE_LOAD"

// The values of -attacker-sched. The lab runs on one machine, where an
// attacker's own CPU would otherwise be taken from the server's cores; a
// real attacker's is not. At schedIdle (SCHED_IDLE, sched(7)) the
// attacking process gets only the CPU that the server, the lab's DNS
// and the well-behaved client (all at the normal policy) leave idle, and
// loses its core as soon as one of them wakes; the report gives what the
// attack delivered, so that a run shows what the priority cost it.
const (
	schedIdle   = "idle"
	schedNormal = "normal"
)

// attackerSchedEnv tells a siege child the policy to put itself at
// (idleAllThreads): the load process that starts it, which runs the
// well-behaved client, stays at the normal one.
const attackerSchedEnv = "MAILAUTH_ABUSE_ATTACKER_SCHED"

type options struct {
	mode     string
	hostile  int
	unloaded time.Duration
	attack   time.Duration
	soak     time.Duration
	sample   time.Duration
	// samples: every sample of the server is printed to stderr as it is
	// read (always in the soak).
	samples bool
	zone    string
	base    string
	delay   time.Duration
	recover time.Duration
	skip    string
	// memDomain is -memory-domain: "big" or "slow" (memoryDomains).
	memDomain string
	// mix is -mix: the parts of the capacity siege mix (mixParts).
	mix     string
	cpuProf string
	trace   string
	// attackerSched is the siege attackers' scheduling policy (schedIdle
	// or schedNormal).
	attackerSched string
	// -mode spoof
	dnsAddr    string
	dropsAddr  string
	timesAddr  string
	spoofRate  int
	spoofDelay time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.mode, "mode", "attack", "attack, siege, capacity, spray, soak, memory or spoof")
	flag.IntVar(&o.hostile, "hostile", 20, "hostile sources (attack)")
	flag.DurationVar(&o.unloaded, "unloaded", 30*time.Second, "length of the unloaded measurement (attack)")
	flag.DurationVar(&o.attack, "attack", 60*time.Second, "length of the measurement under attack")
	flag.DurationVar(&o.soak, "soak", 10*time.Minute, "length of the soak")
	flag.DurationVar(&o.sample, "sample", 10*time.Second, "sampling interval of the server's resources (the soak's samples; the peak of every mode)")
	flag.BoolVar(&o.samples, "samples", false, "print every sample of the server's resources (RSS and what maps files, heap in use and what of it holds no object, live heap, free heap not returned, runtime metadata, stacks, goroutines) to stderr as it is read, in every mode (the soak always does)")
	flag.DurationVar(&o.recover, "recover", recoverAfter, "how long the server's RSS is watched, without forcing a collection, after each siege, the spray and the soak")
	flag.DurationVar(&o.delay, "dns-delay", 50*time.Millisecond, "delay of the soak's delayed DNS names")
	flag.StringVar(&o.zone, "zone", "testdata/zones/scan.zone", "zone file of the well-behaved domains")
	flag.StringVar(&o.base, "base", "", "(load process) base URL of the lab")
	flag.StringVar(&o.skip, "skip", "", "comma-separated attack roles to leave out: slow, conns, fanout, leak, big, keyflood (attack); slow-ipv4, slow-ipv6, non-reading (siege); icmp-sweep, icmp-live, undecodable, refused, forge, undecodable-slow, case-downgrade, forge-downgraded (spoof)")
	flag.StringVar(&o.mix, "mix", "", "(capacity) the parts of the siege mix to run, comma-separated: slow (its 250 slow-scan addresses), non-readers (the 80 non-readers), spray (the key spray); empty: all three")
	flag.StringVar(&o.memDomain, "memory-domain", "big", "what -mode memory fills every slot with: big (the big hostile domain) or slow (the never-answering one)")
	flag.StringVar(&o.attackerSched, "attacker-sched", schedIdle, "scheduling policy of the siege and capacity attackers' processes: idle (SCHED_IDLE: only cores the server, the lab's DNS and the well-behaved client leave idle) or normal (the same as theirs)")
	flag.StringVar(&o.cpuProf, "cpuprofile", "", "write the server's CPU profile during the load to this file (go tool pprof)")
	flag.StringVar(&o.trace, "trace", "", "(capacity) write a runtime trace of the server over the first 10 s of each measurement to this prefix followed by -<siege>.trace (go tool trace)")
	flag.StringVar(&o.dnsAddr, "dns-addr", "", "(load process) the lab's resolver address")
	flag.StringVar(&o.dropsAddr, "drops-addr", "", "(load process) where the lab serves its resolver client's spoof drops")
	flag.StringVar(&o.timesAddr, "times-addr", "", "(load process) where the lab serves the server's side of the well-behaved client's requests")
	flag.IntVar(&o.spoofRate, "spoof-rate", 40000, "forged packets a second at most (spoof; icmp-live sends at most 1000)")
	flag.DurationVar(&o.spoofDelay, "spoof-delay", 1900*time.Millisecond, "how long the resolver takes to answer a question about a spoof domain (spoof)")
	flag.Parse()
	if os.Getenv(dnsEnv) != "" {
		os.Exit(runDNS(o, flag.Args()))
	}
	if v := os.Getenv(siegeEnv); v != "" {
		i, err := strconv.Atoi(v)
		if err != nil {
			os.Exit(2)
		}
		os.Exit(runAttacker(i, o.base))
	}
	if v := os.Getenv(capacityEnv); v != "" {
		i, err := strconv.Atoi(v)
		if err != nil {
			os.Exit(2)
		}
		os.Exit(runCapacityAttacker(i, o.base))
	}
	if mixParts(o.mix) == nil {
		fmt.Fprintln(os.Stderr, "abuse: -mix lists the parts of mix to run: slow, non-readers, spray")
		os.Exit(2)
	}
	if o.attackerSched != schedIdle && o.attackerSched != schedNormal {
		fmt.Fprintln(os.Stderr, "abuse: -attacker-sched must be idle or normal")
		os.Exit(2)
	}
	if os.Getenv(loadEnv) != "" {
		os.Exit(load(o))
	}
	if _, ok := memoryDomains[o.memDomain]; !ok {
		fmt.Fprintln(os.Stderr, "abuse: -memory-domain must be big or slow")
		os.Exit(2)
	}
	if o.mode == "spoof" {
		if err := privateNetns(); err != nil {
			fmt.Fprintln(os.Stderr, "abuse: -mode spoof forges packets and runs only inside a private network namespace (scripts/abuse -mode spoof, as root):", err)
			os.Exit(2)
		}
	}
	if err := serve(o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "abuse:", err)
		os.Exit(1)
	}
}

// load is the child process: it runs the load and prints its result.
func load(o options) int {
	var v any
	switch o.mode {
	case "attack":
		v = runAttack(o.base, o.hostile, o.unloaded, o.attack, skipSet(o.skip))
	case "soak":
		v = runSoak(o.base, o.soak)
	case "memory":
		v = runMemory(o.base, memoryDomains[o.memDomain])
	case "siege":
		v = runSiege(o.base, o.unloaded, o.attack, o.recover, skipSet(o.skip), o.attackerSched)
	case "capacity":
		v = runCapacity(o.base, o.timesAddr, o.unloaded, o.attack, o.recover, skipSet(o.skip), o.attackerSched, o.mix)
	case "spray":
		v = runSpray(o.base)
	case "spoof":
		r := runSpoof(o.base, o.dnsAddr, o.dropsAddr, o.attack, o.spoofRate, o.spoofDelay, skipSet(o.skip))
		if err := json.NewEncoder(os.Stdout).Encode(r); err != nil || r.Error != "" {
			return 1
		}
		return 0
	default:
		fmt.Fprintln(os.Stderr, "abuse: -mode must be attack, siege, capacity, spray, soak, memory or spoof")
		return 2
	}
	if err := json.NewEncoder(os.Stdout).Encode(v); err != nil {
		return 1
	}
	return 0
}

// serve runs the lab, starts the load process, samples the server while
// it runs and until it settles, and prints the report.
func serve(o options, out io.Writer) error {
	dir, err := os.MkdirTemp("", "mailauth-abuse-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	hostile, err := writeHostileZone(dir, time.Now())
	if err != nil {
		return err
	}
	l, err := startLab(o, []string{o.zone, hostile})
	if err != nil {
		return err
	}
	defer l.close()
	if o.mode == "spoof" {
		res, _, err := runLoad(o, l, time.Now())
		var r spoofResult
		if jerr := json.Unmarshal(res, &r); jerr != nil {
			return errors.Join(err, fmt.Errorf("load result: %w", jerr))
		}
		printSpoof(out, r)
		return err
	}
	start := time.Now()
	time.Sleep(time.Second)
	baseline := l.readSample(start)
	cpu0 := cpuTicks()
	stopProfile, err := startCPUProfile(o.cpuProf)
	if err != nil {
		return err
	}
	res, samples, err := runLoad(o, l, start)
	stopProfile()
	if err != nil {
		return err
	}
	cpu := cpuTicks() - cpu0
	if o.mode == "spray" {
		return sprayReport(out, o, l, start, res, baseline, samples)
	}
	var recovered *sample
	if o.mode == "soak" {
		fmt.Fprintf(out, "== server after the soak, every %s for %s\n", recoverEvery(o.recover), o.recover)
		s := watchRecovery(l, start, out, o.recover)
		recovered = &s
	}
	after := settle(l, start, baseline)
	runtime.GC()
	debug.FreeOSMemory()
	freed := l.readSample(start)
	fmt.Fprintf(out, "server CPU during the load: %d ms\n", cpu*10)
	return report(out, o, res, baseline, samples, after, freed, recovered)
}

// runLoad starts the load process and samples the server every
// o.sample until it exits; it returns the load's JSON result.
func runLoad(o options, l *lab, start time.Time) ([]byte, []sample, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	args := []string{"-mode", o.mode, "-base", "http://" + l.addr, "-hostile", fmt.Sprint(o.hostile),
		"-unloaded", o.unloaded.String(), "-attack", o.attack.String(), "-soak", o.soak.String(), "-recover", o.recover.String(), "-skip", o.skip, "-mix", o.mix, "-attacker-sched", o.attackerSched,
		"-dns-addr", l.dnsAddr, "-drops-addr", l.dropsAddr, "-times-addr", l.timesAddr, "-spoof-rate", fmt.Sprint(o.spoofRate), "-spoof-delay", o.spoofDelay.String(), "-memory-domain", o.memDomain}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), loadEnv+"=1")
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var samples []sample
	tick := time.NewTicker(o.sample)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return stdout.Bytes(), samples, fmt.Errorf("load process: %w", err)
			}
			return stdout.Bytes(), samples, nil
		case <-tick.C:
			s := l.readSample(start)
			samples = append(samples, s)
			if o.mode == "soak" || o.samples {
				fmt.Fprintf(os.Stderr, "%6s rss %6d KB (files %5d)  heap %6d KB (unused %6d)  live %6d KB  free %6d KB  metadata %5d KB  stacks %6d KB  goroutines %5d  fds %5d  conns %4d\n",
					s.At, s.RSSKB, s.RSSFileKB, s.HeapKB, s.UnusedKB, s.LiveKB, s.FreeKB, s.MetaKB, s.StackKB, s.Goroutines, s.FDs, s.Conns)
			}
		}
	}
}

// settleMax bounds the wait for the server to return to rest after the
// load: idle connections close after the server's IdleTimeout, scans end
// within their deadline.
const settleMax = httpapi.ServerIdleTimeout + 30*time.Second

// settle waits until the server has no connection open and at most the
// baseline's goroutines (or settleMax), then reads a sample.
func settle(l *lab, start time.Time, baseline sample) sample {
	deadline := time.Now().Add(settleMax)
	for time.Now().Before(deadline) {
		s := l.readSample(start)
		if s.Conns == 0 && s.Goroutines <= baseline.Goroutines {
			break
		}
		time.Sleep(time.Second)
	}
	return l.readSample(start)
}

// sprayReport watches the server's recovery after a key spray and prints
// the figures.
func sprayReport(out io.Writer, o options, l *lab, start time.Time, raw []byte, baseline sample, samples []sample) error {
	var r sprayResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("load result: %w", err)
	}
	peak := baseline
	for _, s := range samples {
		peak.RSSKB = max(peak.RSSKB, s.RSSKB)
	}
	fmt.Fprintf(out, "== server after the spray, every %s for %s\n", recoverEvery(o.recover), o.recover)
	recovered := watchRecovery(l, start, out, o.recover)
	reportSpray(out, o, r, baseline, peak, recovered)
	return nil
}

// skipSet parses -skip.
func skipSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, r := range strings.Split(s, ",") {
		if r = strings.TrimSpace(r); r != "" {
			out[r] = true
		}
	}
	return out
}

// startCPUProfile profiles the server's CPU into path until the returned
// func is called; an empty path profiles nothing.
func startCPUProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); _ = f.Close() }, nil
}
