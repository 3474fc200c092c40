package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// dnsEnv marks the child process that serves the lab's DNS. It runs apart
// from the server, as a real resolver would, so that its work does not
// count as the server's.
const dnsEnv = "MAILAUTH_ABUSE_DNS"

// runDNS is the DNS child: it serves the zone files (the flag arguments)
// with the lab's faults, prints its address, and serves until its
// standard input closes (its parent ended).
func runDNS(o options, zoneFiles []string) int {
	z, err := dnstest.Load(zoneFiles...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "abuse dns:", err)
		return 1
	}
	d, err := dnstest.Listen(z)
	if err != nil {
		fmt.Fprintln(os.Stderr, "abuse dns:", err)
		return 1
	}
	defer d.Close()
	// The lab's resolver keeps no log of the questions (nothing reads
	// it): in a siege of slow scans it would grow by hundreds of entries
	// a second, and its collector's work with it, which is the lab's
	// cost, not the server's.
	d.KeepLog(false)
	for _, n := range slowNames {
		d.SetFault(n, dnstest.AnyType, dnstest.Delay(2*mailauth.DefaultScanTimeout))
	}
	if o.mode == "soak" {
		soakFaults(d, o.delay)
	}
	if o.mode == "spoof" {
		spoofFaults(d, o.spoofDelay)
	}
	fmt.Println(d.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// startDNS starts the DNS child and returns its address and a func that
// stops it.
func startDNS(o options, zoneFiles []string) (string, func(), error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	args := append([]string{"-mode", o.mode, "-dns-delay", o.delay.String(), "-spoof-delay", o.spoofDelay.String()}, zoneFiles...)
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), dnsEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { _ = stdin.Close(); _ = cmd.Wait() }
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("dns child: %w", err)
	}
	return strings.TrimSpace(line), stop, nil
}
