package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/miekg/dns"

	"github.com/mailauth/mailauth/dmarc"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/spf"
)

// The floor: the CPU, on the machine in use, of the work a scan of a
// fresh domain cannot avoid, measured in the service process (alone in
// it, with the service idle) so that neither the lab's servers nor the
// load generator count, at the concurrency of the load phase it is
// compared with (as many clients at once: a process serving 100 clients
// pays fewer wake-ups per exchange than one doing a single exchange at a
// time on an idle machine, and a floor measured the latter way flatters
// the service):
//
//   - floorExchanges DNS exchanges over UDP with miekg/dns, each client
//     on one socket of its own reused for all of its exchanges (the wire
//     queries of a scan whose providers' records are cached: 15.0 per
//     scan in the load phases);
//   - one full TLS 1.3 handshake (X25519, the lab's ECDSA P-256
//     certificate chain verified) and a GET of the policy, the way the
//     MTA-STS fetch does it;
//   - one HTTP answer: reading a scan request of the load generator's
//     size over a keep-alive connection, decoding its JSON, and writing a
//     canned answer as long as a real scan's (no scan, no encoding).
//
// Everything a scan does beyond that (the checks, the guard, the shared
// cache, encoding the result, the collector) is what the service costs
// over the floor. The product's DNS client is not used here: the floor is
// what any client must spend, not what ours does.
const floorExchanges = 15

// floorQuestions are the questions of domain d's exchanges, cycled: the
// names and types a scan asks, so that the answers have their sizes.
func floorQuestions(name string) []dns.Question {
	qs := []struct {
		name  string
		qtype uint16
	}{
		{name, dns.TypeTXT}, {"_dmarc." + name, dns.TypeTXT}, {"s1._domainkey." + name, dns.TypeTXT},
		{"_mta-sts." + name, dns.TypeTXT}, {"_smtp._tls." + name, dns.TypeTXT}, {name, dns.TypeMX},
		{"mta-sts." + name, dns.TypeA}, {"mta-sts." + name, dns.TypeAAAA}, {name, dns.TypeCAA},
		{"mta-sts." + name, dns.TypeCAA},
	}
	out := make([]dns.Question, floorExchanges)
	for i := range out {
		q := qs[i%len(qs)]
		out[i] = dns.Question{Name: dns.Fqdn(q.name), Qtype: q.qtype, Qclass: dns.ClassINET}
	}
	return out
}

// floorFigures are the floor's parts, CPU per unit.
type floorFigures struct {
	Exchange time.Duration `json:"exchange"` // one DNS exchange on a reused UDP socket
	TLS      time.Duration `json:"tls"`      // one full TLS 1.3 handshake and GET
	Failed   int           `json:"failed"`   // exchanges or fetches that failed (the figure is then suspect)
}

// measureFloorClient measures, in this process, the DNS exchanges and the
// TLS fetches of the domains names (one each) against the lab, conc
// clients at once, each with the names i, i+conc, i+2·conc and so on.
func measureFloorClient(dnsAddr string, httpsPort int, roots *x509.CertPool, names []string, conc int) (floorFigures, error) {
	var f floorFigures
	if len(names) == 0 {
		return f, fmt.Errorf("floor: no domains")
	}
	conc = min(max(conc, 1), len(names))
	var failed atomic.Int64
	each := func(work func(name string) error) {
		var wg sync.WaitGroup
		for i := range conc {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := i; k < len(names); k += conc {
					if err := work(names[k]); err != nil {
						failed.Add(1)
					}
				}
			}()
		}
		wg.Wait()
	}
	c := &dns.Client{Net: "udp", Timeout: 5 * time.Second}
	conns := make(chan *dns.Conn, len(names))
	for range conc {
		conn, err := c.Dial(dnsAddr)
		if err != nil {
			return f, fmt.Errorf("floor: %w", err)
		}
		defer conn.Close()
		conns <- conn
	}
	cpu0 := cpuTime()
	each(func(name string) error {
		conn := <-conns
		defer func() { conns <- conn }()
		var err error
		for _, q := range floorQuestions(name) {
			m := new(dns.Msg)
			m.Id = dns.Id()
			m.RecursionDesired = true
			m.Question = []dns.Question{q}
			m.SetEdns0(1232, false)
			if _, _, e := c.ExchangeWithConn(m, conn); e != nil {
				err = e
			}
		}
		return err
	})
	cpu1 := cpuTime()
	each(func(name string) error { return floorFetch(httpsPort, roots, "mta-sts."+name) })
	cpu2 := cpuTime()
	f.Exchange = (cpu1 - cpu0) / time.Duration(len(names)*floorExchanges)
	f.TLS = (cpu2 - cpu1) / time.Duration(len(names))
	f.Failed = int(failed.Load())
	return f, nil
}

// floorFetch connects to host on 127.0.0.1, runs a full TLS handshake and
// GETs the policy, as mtasts does (its curves, one request per
// connection).
func floorFetch(port int, roots *x509.CertPool, host string) error {
	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 5*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	tc := tls.Client(conn, &tls.Config{ServerName: host, RootCAs: roots, MinVersion: tls.VersionTLS12,
		NextProtos: []string{"http/1.1"}, CurvePreferences: []tls.CurveID{tls.X25519, tls.CurveP256}})
	if err := tc.Handshake(); err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodGet, "https://"+host+"/.well-known/mta-sts.txt", nil)
	if err != nil {
		return err
	}
	req.Close = true
	if err := req.Write(tc); err != nil {
		return err
	}
	resp, err := http.ReadResponse(bufio.NewReader(tc), req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// floorAnswer is the service process's stand-in for the scan handler:
// it reads and decodes the request and writes a canned answer of the set
// size.
type floorAnswer struct {
	body atomic.Pointer[[]byte]
}

// setSize makes the canned answer n bytes of JSON.
func (f *floorAnswer) setSize(n int) {
	pad := max(n-len(`{"x":""}`), 0)
	b := []byte(`{"x":"` + strings.Repeat("a", pad) + `"}`)
	f.body.Store(&b)
}

func (f *floorAnswer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req map[string]string
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	body := f.body.Load()
	if body == nil {
		http.Error(w, "no size", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(*body)
}

// aloneFigures are one check run alone over distinct domains.
type aloneFigures struct {
	CPU  time.Duration `json:"cpu"`  // per check
	Wire float64       `json:"wire"` // DNS queries on the wire per check
}

// countingResolver counts the questions that reach the wire.
type countingResolver struct {
	next resolver.Resolver
	n    atomic.Int64
}

func (c *countingResolver) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	c.n.Add(1)
	return c.next.Lookup(ctx, name, qtype)
}

// LookupTTL keeps the cache's TTLs (resolver.Client is a TTLResolver).
func (c *countingResolver) LookupTTL(ctx context.Context, name string, qtype resolver.Type) (resolver.Answer, uint32) {
	c.n.Add(1)
	return c.next.(resolver.TTLResolver).LookupTTL(ctx, name, qtype)
}

// measureAlone runs check ("spf" or "dmarc") over names one after
// another, as the service runs it (the product's DNS client below a
// shared cache, a per-scan resolver each), and returns its CPU per check
// and wire queries per check. The first names (up to 8) fill the cache
// with the providers' records and are not counted.
func measureAlone(dnsAddr, check string, names []string) (aloneFigures, error) {
	var run func(ctx context.Context, r resolver.Resolver, name string)
	switch check {
	case "spf":
		run = func(ctx context.Context, r resolver.Resolver, name string) { spf.Check(ctx, r, name) }
	case "dmarc":
		run = func(ctx context.Context, r resolver.Resolver, name string) { dmarc.Check(ctx, r, name) }
	default:
		return aloneFigures{}, fmt.Errorf("alone: unknown check %q", check)
	}
	if len(names) < 2 {
		return aloneFigures{}, fmt.Errorf("alone: %d domains, want at least 2", len(names))
	}
	warm := min(8, len(names)/2)
	wire := &countingResolver{next: &resolver.Client{Servers: []string{dnsAddr}}}
	cache := resolver.NewCache(wire, serviceCacheBytes)
	ctx := context.Background()
	for _, name := range names[:warm] {
		run(ctx, resolver.NewScan(cache, 0), name)
	}
	n0, cpu0 := wire.n.Load(), cpuTime()
	for _, name := range names[warm:] {
		run(ctx, resolver.NewScan(cache, 0), name)
	}
	k := len(names) - warm
	return aloneFigures{CPU: (cpuTime() - cpu0) / time.Duration(k), Wire: float64(wire.n.Load()-n0) / float64(k)}, nil
}
