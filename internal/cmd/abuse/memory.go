package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// memoryScans is the number of concurrent scans of the big hostile
// domain in -mode memory, each from its own source (RELIABILITY.md:
// 64 at once peaked at 280 MB).
const memoryScans = 64

// memoryResult is what the load process reports for -mode memory.
type memoryResult struct {
	Scans outcomes `json:"scans"`
}

// runMemory sends memoryScans scans of bigDomain at once, twice.
func runMemory(base string) memoryResult {
	var c counters
	for range 2 {
		var wg sync.WaitGroup
		for i := range memoryScans {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cl := newClient(fmt.Sprintf("127.0.3.%d", i+1), 1)
				status, msg, _ := postMsg(context.Background(), cl, base, scanBody(bigDomain), "")
				c.add("big", status, msg)
			}()
		}
		wg.Wait()
	}
	return memoryResult{Scans: c.snapshot()["big"]}
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
