package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/mailauth/mailauth/httpapi"
)

// memoryScans is the number of concurrent scans in -mode memory, each
// from its own source: every diagnostic slot of the service's default
// (httpapi.DefaultMaxInFlight), so the peak is the service with its slots
// full.
const memoryScans = httpapi.DefaultMaxInFlight

// memoryDomains are the domains -mode memory can fill the slots with
// (-memory-domain): the big hostile domain, whose scans end quickly but
// hold the most, and the never-answering one, whose scans hold their
// slots until they are cut or reach their deadline.
var memoryDomains = map[string]string{"big": bigDomain, "slow": slowDomain}

// memoryResult is what the load process reports for -mode memory.
type memoryResult struct {
	Domain string   `json:"domain"`
	Scans  outcomes `json:"scans"`
}

// memorySource is the i-th source address of -mode memory (127.3.0.1
// on): 250 per /24.
func memorySource(i int) string { return fmt.Sprintf("127.3.%d.%d", i/250, i%250+1) }

// runMemory sends memoryScans scans of domain at once, twice.
func runMemory(base, domain string) memoryResult {
	var c counters
	for range 2 {
		var wg sync.WaitGroup
		for i := range memoryScans {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cl := newClient(memorySource(i), 1)
				status, msg, _ := postMsg(context.Background(), cl, base, scanBody(domain), "")
				cl.CloseIdleConnections() // the next round's clients are new ones
				c.add("scan", status, msg)
			}()
		}
		wg.Wait()
	}
	return memoryResult{Domain: domain, Scans: c.snapshot()["scan"]}
}

// cpuTicks returns the process's user and system time in clock ticks
// (/proc/self/stat fields 14 and 15; 100 per second on Linux).
func cpuTicks() int {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.Atoi(f[11])
	k, _ := strconv.Atoi(f[12])
	return u + k
}
