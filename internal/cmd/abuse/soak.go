package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/mailauth/mailauth/resolver/dnstest"
)

// Soak traffic: soakSources clients, each sending one request every
// soakEvery (15 a minute, half the rate limit), for the soak's duration.
const (
	soakSources = 40
	soakEvery   = 4 * time.Second
)

// soakMix is the traffic mix: domains of testdata/zones/scan.zone and of
// the hostile zones, ptr-checks and health checks.
var soakMix = []string{
	"scan:good.example.com", "scan:good.example.com", "scan:weak.example.com", "scan:bare.example.com",
	"scan:parked.example.com", "scan:flaky.example.com", "scan:" + leakDomain, "scan:" + bigDomain,
	"scan:" + slowDomain, "scan:" + fanoutDomain, "ptr:8.8.8.8", "health", "bad",
}

// soakFaults makes DNS slow and faulty for the soak: delayed answers,
// SERVFAIL, dropped questions (timeouts) and truncation (TCP retries).
func soakFaults(d *dnstest.Server, delay time.Duration) {
	for _, n := range []string{"good.example.com", "_dmarc.good.example.com", "mx1.good.example.com", "8.8.8.8.in-addr.arpa"} {
		d.SetFault(n, dnstest.AnyType, dnstest.Delay(delay))
	}
	d.SetFault("_dmarc.flaky.example.com", dnstest.AnyType, dnstest.ServFail)
	d.SetFault("flaky.example.com", dnstest.AnyType, dnstest.Drop)
	d.SetFault("weak.example.com", dnstest.AnyType, dnstest.Truncate)
	d.SetFault("_spf.weak.example.com", dnstest.AnyType, dnstest.Garbage)
}

// soakResult is what the load process reports for a soak.
type soakResult struct {
	Requests map[string]outcomes `json:"requests"`
}

// runSoak sends the mixed traffic until d has passed.
func runSoak(base string, d time.Duration) soakResult {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var c counters
	var wg sync.WaitGroup
	for i := range soakSources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			soakClient(ctx, base, fmt.Sprintf("127.0.2.%d", i+1), &c)
		}()
	}
	wg.Wait()
	return soakResult{Requests: c.snapshot()}
}

// soakClient sends one request of the mix every soakEvery (with jitter).
func soakClient(ctx context.Context, base, src string, c *counters) {
	cl := newClient(src, 2)
	for {
		jitter := time.Duration(rand.Int64N(int64(soakEvery)))
		select {
		case <-ctx.Done():
			return
		case <-time.After(soakEvery/2 + jitter):
		}
		kind := soakMix[rand.IntN(len(soakMix))]
		var status int
		switch {
		case kind == "health":
			status = get(ctx, cl, base+"/api/health")
		case kind == "bad":
			status, _ = post(ctx, cl, base, `{"domain":`, "")
		case kind[:4] == "ptr:":
			status = postPath(ctx, cl, base+"/api/ptr-check", `{"sendingIp":"`+kind[4:]+`"}`)
		default:
			status, _ = post(ctx, cl, base, scanBody(kind[5:]), "")
		}
		if ctx.Err() == nil {
			c.add(kind, status, "")
		}
	}
}
