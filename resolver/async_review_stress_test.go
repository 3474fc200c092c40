package resolver_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

// hostileHandler answers n<i>.hostile.test by i's mode: at once, with
// SERVFAIL (the CD and chain tests), truncated (a TCP retry the
// listener closes), a CNAME to the next name, never, late, garbage with
// the query's ID before the answer, or the answer and then a
// contradicting one (a conflict on the tombstones), forged replies with
// other IDs first, or a reply in the wrong case first.
func hostileHandler(w dns.ResponseWriter, r *dns.Msg) {
	q := r.Question[0]
	label := strings.SplitN(strings.ToLower(q.Name), ".", 2)[0]
	i, _ := strconv.Atoi(strings.TrimPrefix(label, "n"))
	m := new(dns.Msg)
	m.SetReply(r)
	a := func(ip string) dns.RR {
		return &dns.A{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 30}, A: net.ParseIP(ip)}
	}
	switch i % 10 {
	case 0:
		m.Answer = append(m.Answer, a("192.0.2.1"))
	case 1:
		m.Rcode = dns.RcodeServerFailure
	case 2:
		m.Truncated = true
	case 3:
		m.Answer = append(m.Answer, &dns.CNAME{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeCNAME, Class: dns.ClassINET, Ttl: 30}, Target: fmt.Sprintf("n%d.hostile.test.", i+1)})
	case 4:
		return
	case 5:
		time.Sleep(time.Duration(rand.IntN(40)) * time.Millisecond)
		m.Answer = append(m.Answer, a("192.0.2.5"))
	case 6:
		garbage := []byte{byte(r.Id >> 8), byte(r.Id), 0xff, 0xff, 0xff}
		_, _ = w.Write(garbage)
		m.Answer = append(m.Answer, a("192.0.2.6"))
	case 7:
		m.Answer = append(m.Answer, a("192.0.2.7"))
		_ = w.WriteMsg(m)
		m.Answer = []dns.RR{a("198.51.100.7")}
	case 8: // an off-path guesser's spray: other IDs, then the answer
		for range 4 {
			f := m.Copy()
			f.Id = uint16(rand.IntN(1 << 16))
			f.Answer = []dns.RR{a("203.0.113.8")}
			_ = w.WriteMsg(f)
		}
		m.Answer = append(m.Answer, a("192.0.2.8"))
	case 9: // the right ID, the wrong case: a quick resend on a fresh port
		f := m.Copy()
		f.Question[0].Name = strings.ToUpper(q.Name)
		if f.Question[0].Name == q.Name {
			f.Question[0].Name = strings.ToLower(q.Name)
		}
		_ = w.WriteMsg(f)
		m.Answer = append(m.Answer, a("192.0.2.9"))
	}
	_ = w.WriteMsg(m)
}

// TestAsyncReviewStress drives many scans at once over one Cache and
// one Client against a hostile server (and a closed port: ICMP errors), their contexts canceled or
// timing out at random moments, and checks that every lookup's done
// is called exactly once and that no goroutine stays behind.
func TestAsyncReviewStress(t *testing.T) {
	if testing.Short() {
		t.Skip("stress")
	}
	addr := startHandler(t, hostileHandler, true)
	baseline := runtime.NumGoroutine()
	// A second server whose port is closed: its queries meet ICMP errors.
	closed, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	closedAddr := closed.LocalAddr().String()
	require.NoError(t, closed.Close())
	client := &resolver.Client{Servers: []string{addr, closedAddr}, Timeout: 30 * time.Millisecond}
	resolver.SetTombstone(client, 50*time.Millisecond)
	cache := resolver.NewCache(client, 0)
	const scans, perScan = 60, 24
	var calls [scans * perScan]atomic.Int32
	var wg sync.WaitGroup
	var twice atomic.Int32
	for s := range scans {
		scan := resolver.NewScan(cache, perScan*2)
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(20+rand.IntN(300))*time.Millisecond)
		if rand.IntN(3) == 0 {
			time.AfterFunc(time.Duration(rand.IntN(100))*time.Millisecond, cancel)
		}
		for j := range perScan {
			k := s*perScan + j
			wg.Add(1)
			name := fmt.Sprintf("n%d.hostile.test", rand.IntN(40))
			var r resolver.Starter = scan
			if j%5 == 0 {
				r = cache // straight to the shared Cache, beside the Scan
			}
			r.Start(ctx, name, resolver.TypeA, func(resolver.Answer) {
				if calls[k].Add(1) == 1 {
					wg.Done()
				} else {
					twice.Add(1)
				}
			})
		}
		defer cancel()
	}
	ended := make(chan struct{})
	go func() { wg.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(60 * time.Second): // generous: every context ends within a second
		var missing []int
		for k := range calls {
			if calls[k].Load() == 0 {
				missing = append(missing, k)
			}
		}
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		require.FailNow(t, "lookups whose done was never called", "%v\n%s", missing, buf[:n])
	}
	require.Zero(t, twice.Load(), "done called twice")
	drops := client.SpoofDrops()
	for _, kind := range []string{"icmp", "wrong_case", "undecodable", "unmatched_id"} {
		require.NotZero(t, drops[kind], "the stress made no %s drop: %v", kind, drops)
	}
	checkNoLeak(t, baseline+2) // the TCP listener's and the server's goroutines may come and go
}
