package resolver_test

import (
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

const zoneFile = "testdata/resolver.zone"

// bigTXT is the content of the 4 KB TXT record served at big.resolver.test:
// sixteen character-strings of 250 octets each.
var bigTXT = func() []string {
	out := make([]string, 16)
	for i := range out {
		out[i] = strings.Repeat(string(rune('a'+i)), 250)
	}
	return out
}()

// zones loads the test zone file plus the generated 4 KB TXT record.
func zones(tb testing.TB) *dnstest.Zones {
	tb.Helper()
	text, err := os.ReadFile(zoneFile)
	require.NoError(tb, err)
	var b strings.Builder
	b.Write(text)
	b.WriteString("\n$ORIGIN resolver.test.\nbig TXT")
	for _, s := range bigTXT {
		fmt.Fprintf(&b, " %q", s)
	}
	b.WriteString("\n")
	return dnstest.MustParse(tb, b.String())
}

// client returns a Client that asks only srv, once, with a timeout that
// no loopback reply comes near.
func client(srv *dnstest.Server) *resolver.Client {
	return srv.Client(2 * time.Second)
}

func addr(s string) netip.Addr { return netip.MustParseAddr(s) }

func found(recs ...resolver.Record) resolver.Answer {
	return resolver.Answer{Outcome: resolver.Found, Records: recs}
}

func rrA(name, ip string) resolver.Record {
	t := resolver.TypeA
	if strings.Contains(ip, ":") {
		t = resolver.TypeAAAA
	}
	return resolver.Record{Name: name, Type: t, TTL: 300, Addr: addr(ip)}
}

func rrTXT(name string, strs ...string) resolver.Record {
	return resolver.Record{Name: name, Type: resolver.TypeTXT, TTL: 300, TXT: strs}
}

func rrTarget(name string, t resolver.Type, target string) resolver.Record {
	return resolver.Record{Name: name, Type: t, TTL: 300, Target: target}
}

func withCNAMEs(a resolver.Answer, cnames ...string) resolver.Answer {
	a.CNAMEs = cnames
	return a
}

func noData(cnames ...string) resolver.Answer {
	return resolver.Answer{Outcome: resolver.NoData, CNAMEs: cnames}
}

func nxDomain(cnames ...string) resolver.Answer {
	return resolver.Answer{Outcome: resolver.NXDomain, Rcode: dns.RcodeNameError, CNAMEs: cnames}
}

func inconclusive(r resolver.Reason, rcode int, cnames ...string) resolver.Answer {
	return resolver.Answer{Outcome: resolver.Inconclusive, Reason: r, Rcode: rcode, CNAMEs: cnames}
}

func show(a resolver.Answer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{%s reason=%q rcode=%d ad=%v cnames=%q records=[", a.Outcome, a.Reason, a.Rcode, a.Authentic, a.CNAMEs)
	for i, r := range a.Records {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%+v", r)
	}
	b.WriteString("]}")
	return b.String()
}

// nets returns the networks over which srv received questions for name
// (without the CD bit: not the second ask after a SERVFAIL).
func nets(srv *dnstest.Server, name string) []string {
	var out []string
	for _, q := range srv.Queries() {
		if q.Name == resolver.CanonicalName(name) && !q.CD {
			out = append(out, q.Net)
		}
	}
	return out
}

// startHandler serves h over UDP on a free loopback port, for replies
// dnstest cannot produce. When tcpClose is set, a TCP listener on the same
// port accepts connections and closes them at once. It returns the
// address; everything stops when t ends.
func startHandler(t *testing.T, h dns.HandlerFunc, tcpClose bool) string {
	t.Helper()
	pc, l := testlab.ListenPair(t, tcpClose)
	srv := &dns.Server{PacketConn: pc, Handler: h}
	started := make(chan struct{})
	srv.NotifyStartedFunc = func() { close(started) }
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.ActivateAndServe()
	}()
	<-started
	t.Cleanup(func() {
		_ = srv.Shutdown()
		<-done
	})
	if l != nil {
		acceptDone := make(chan struct{})
		go func() {
			defer close(acceptDone)
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		t.Cleanup(func() {
			l.Close()
			<-acceptDone
		})
	}
	return pc.LocalAddr().String()
}

// checkNoLeak polls until the number of goroutines is back to baseline,
// and fails with the stacks of the extra ones otherwise.
func checkNoLeak(t *testing.T, baseline int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > baseline {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			require.FailNow(t, "goroutines above the baseline", "goroutines: %d, baseline %d\n%s", runtime.NumGoroutine(), baseline, buf[:n])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
