package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Shape of the attack (RELIABILITY.md). Every number bounds the attack's size.
const (
	slowPerSource  = 30                   // item 1: concurrent slow scans per hostile source
	connsPerSource = 100                  // item 4: keep-alive connections each source tries to hold
	keyFloodMax    = 3 * labMaxKeys       // item 3: distinct forwarded sources of the key flood
	keyFloodEvery  = 2 * time.Millisecond // item 3: at most 500 flood requests a second
	otherEvery     = 3 * time.Second      // items 2, 5, 8: one fan-out, leak and big scan per source this often
	backoff        = time.Second          // a hostile worker's pause after a refused request
	warmup         = 5 * time.Second      // attack running before the good client's phase starts
	attackCooldown = 200 * time.Millisecond
)

// attackResult is what the load process reports for an attack run.
type attackResult struct {
	Unloaded      latencies           `json:"unloaded"`
	UnderAttack   latencies           `json:"underAttack"`
	Hostile       map[string]outcomes `json:"hostile"`
	HeldConns     int                 `json:"heldConns"`
	TriedConns    int                 `json:"triedConns"`
	ConnectFails  int                 `json:"connectFails"`
	ConnectOpens  int                 `json:"connectOpens"`
	FanoutPerScan float64             `json:"fanoutAttemptsPerScan"`
}

// runAttack measures the good client unloaded, then under the attack of
// n hostile sources.
func runAttack(base string, n int, unloaded, attack time.Duration, skip map[string]bool) attackResult {
	var res attackResult
	var rec recorder
	ctx, cancel := context.WithTimeout(context.Background(), unloaded)
	runGood(ctx, base, siegeGood(), &rec)
	cancel()
	res.Unloaded = rec.summary()

	opens0, fails0 := tcpCounters()
	var hostile counters
	actx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	held := make(chan int, n)
	for i := range n {
		src := hostileSource(i)
		role := roleOf(i, n)
		if skip[role] {
			continue
		}
		switch role {
		case "conns":
			wg.Add(1)
			go func() { defer wg.Done(); held <- holdConns(actx, base, src) }()
		case "slow":
			for range slowPerSource {
				wg.Add(1)
				go func() { defer wg.Done(); hammer(actx, base, src, slowDomain, role, 0, &hostile) }()
			}
		default:
			wg.Add(1)
			go func() { defer wg.Done(); hammer(actx, base, src, roleDomains[role], role, otherEvery, &hostile) }()
		}
	}
	if !skip["keyflood"] {
		wg.Add(1)
		go func() { defer wg.Done(); keyFlood(actx, base, &hostile) }()
	}
	time.Sleep(warmup)
	var good recorder
	gctx, gcancel := context.WithTimeout(context.Background(), attack)
	runGood(gctx, base, siegeGood(), &good)
	gcancel()
	res.UnderAttack = good.summary()
	stop()
	wg.Wait()
	close(held)
	for h := range held {
		res.HeldConns += h
	}
	for i := range n {
		if roleOf(i, n) == "conns" && !skip["conns"] {
			res.TriedConns += connsPerSource
		}
	}
	opens1, fails1 := tcpCounters()
	res.ConnectOpens, res.ConnectFails = opens1-opens0, fails1-fails0
	res.Hostile = hostile.snapshot()
	// Every good scan answered 200 tried the policy host's one address (a
	// closed port) once; the rest of the failed attempts are the fan-out
	// scans'.
	if f := res.Hostile["fanout"]["200"]; f > 0 {
		res.FanoutPerScan = float64(res.ConnectFails-good.summary().OK) / float64(f)
	}
	return res
}

// roleDomains are the domains of the scanning roles other than slow.
var roleDomains = map[string]string{"fanout": fanoutDomain, "leak": leakDomain, "big": bigDomain}

// roleOf assigns hostile source i of n its attack: half scan the slow
// domain (item 1), a fifth hold connections (item 4), and the rest scan
// the fan-out (item 2), leak (item 5) and big (item 8) domains in turn.
// The key flood (item 3) comes through the trusted proxy.
func roleOf(i, n int) string {
	switch {
	case i < n/2:
		return "slow"
	case i < n/2+n/5:
		return "conns"
	}
	return []string{"fanout", "leak", "big"}[i%3]
}

// hammer scans domain from src until ctx ends; after a refusal it pauses
// backoff, and between requests every (0: no pause).
func hammer(ctx context.Context, base, src, domain, kind string, every time.Duration, c *counters) {
	cl := newClient(src, slowPerSource)
	for ctx.Err() == nil {
		status, msg, _ := postMsg(ctx, cl, base, scanBody(domain), "")
		if ctx.Err() != nil {
			return
		}
		c.add(kind, status, msg)
		pause := every
		if status != 200 {
			pause = max(pause, backoff)
		}
		select {
		case <-ctx.Done():
		case <-time.After(max(pause, attackCooldown)):
		}
	}
}

// keyFlood fills the rate limiter's key table through the trusted proxy:
// each request names a new forwarded client and carries an invalid body
// (400 after it was counted).
func keyFlood(ctx context.Context, base string, c *counters) {
	cl := newClient(keyFloodSource, 8)
	var wg sync.WaitGroup
	next := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				status, msg, _ := postMsg(ctx, cl, base, `{}`, fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255))
				c.add("keyflood", status, msg)
			}
		}()
	}
	tick := time.NewTicker(keyFloodEvery)
	defer tick.Stop()
	for i := 0; i < keyFloodMax && ctx.Err() == nil; i++ {
		select {
		case <-tick.C:
		case <-ctx.Done():
			continue
		}
		select {
		case next <- i:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
}

// holdConns opens connsPerSource keep-alive connections from src, each
// with one health request, and holds those the server kept until ctx
// ends. It returns how many were held.
func holdConns(ctx context.Context, base, src string) int {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	addr := base[len("http://"):]
	var conns []net.Conn
	for range connsPerSource {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			continue
		}
		if healthOn(c) {
			conns = append(conns, c)
		} else {
			c.Close()
		}
	}
	<-ctx.Done()
	for _, c := range conns {
		c.Close()
	}
	return len(conns)
}

// healthOn sends GET /api/health on c and reports whether it got a 200.
func healthOn(c net.Conn) bool {
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	defer func() { _ = c.SetDeadline(time.Time{}) }()
	if _, err := io.WriteString(c, "GET /api/health HTTP/1.1\r\nHost: lab\r\n\r\n"); err != nil {
		return false
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == 200
}
