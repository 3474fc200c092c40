package dnstest

import (
	"sync"
	"time"

	"github.com/miekg/dns"

	"github.com/mailauth/mailauth/resolver"
)

// Fault changes how questions about one owner name are answered. The zero
// Fault changes nothing (setting it clears an earlier one). When several
// apply, Delay comes first, then Drop, then Rcode, then Bogus, then
// Garbage, then Truncate; EDE is added to whatever reply is sent. Faults
// set on a name and on AnyType, or on several names of a CNAME chain, add
// up: delays are summed, flags are or-ed, and the last non-zero Rcode and
// EDE win.
type Fault struct {
	// Delay holds the reply back this long.
	Delay time.Duration
	// Drop sends no reply at all: the client times out.
	Drop bool
	// Rcode, when non-zero, replaces the answer with this response code
	// (dns.RcodeServerFailure, dns.RcodeRefused, …).
	Rcode int
	// Garbage sends bytes that are not a DNS message (a header with the
	// query's ID that announces a question it does not carry).
	Garbage bool
	// Bogus answers SERVFAIL to a query without the CD bit and the real
	// answer to one with it, as a validating resolver does for a domain
	// whose DNSSEC signatures do not validate.
	Bogus bool
	// EDE, when non-zero, adds an RFC 8914 Extended DNS Error option with
	// this info-code to the reply (to a query with EDNS0).
	EDE uint16
	// Truncate answers UDP queries with the TC bit and no records, so the
	// client must retry over TCP; TCP queries get the full answer.
	Truncate bool
}

// Common faults.
var (
	ServFail = Fault{Rcode: dns.RcodeServerFailure} // SERVFAIL (RCODE 2)
	Refused  = Fault{Rcode: dns.RcodeRefused}       // REFUSED (RCODE 5)
	Drop     = Fault{Drop: true}                    // no reply: a timeout
	Truncate = Fault{Truncate: true}                // TC bit over UDP
	Garbage  = Fault{Garbage: true}                 // not a DNS message
	Bogus    = Fault{Bogus: true}                   // SERVFAIL unless CD is set
)

// WithEDE returns f with an Extended DNS Error info-code added.
func (f Fault) WithEDE(code uint16) Fault {
	f.EDE = code
	return f
}

// Delay returns a Fault that holds the reply back for d.
func Delay(d time.Duration) Fault { return Fault{Delay: d} }

// AnyType makes SetFault apply to questions of every type.
const AnyType resolver.Type = 0

type faultKey struct {
	name  string
	qtype resolver.Type
}

// faults is a concurrency-safe fault table, shared by Server and Resolver.
type faults struct {
	mu sync.RWMutex
	m  map[faultKey]Fault
}

func (f *faults) set(name string, qtype resolver.Type, ft Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[faultKey]Fault{}
	}
	f.m[faultKey{resolver.CanonicalName(name), qtype}] = ft
}

// lookup merges the faults that apply to a question whose CNAME chain
// visited names.
func (f *faults) lookup(names []string, qtype resolver.Type) Fault {
	f.mu.RLock()
	defer f.mu.RUnlock()
	var out Fault
	for _, n := range names {
		for _, t := range []resolver.Type{AnyType, qtype} {
			ft, ok := f.m[faultKey{n, t}]
			if !ok {
				continue
			}
			out.Delay += ft.Delay
			out.Drop = out.Drop || ft.Drop
			out.Garbage = out.Garbage || ft.Garbage
			out.Truncate = out.Truncate || ft.Truncate
			out.Bogus = out.Bogus || ft.Bogus
			if ft.Rcode != 0 {
				out.Rcode = ft.Rcode
			}
			if ft.EDE != 0 {
				out.EDE = ft.EDE
			}
		}
	}
	return out
}

// Received is one question a Server or Resolver answered.
type Received struct {
	Name string
	Type resolver.Type
	// Net is "udp", "tcp" or "mem".
	Net string
	// UDPSize is the EDNS0 payload size the query advertised (RFC 6891
	// §6.2.3), or 0 when it had no OPT record (and always for "mem").
	UDPSize uint16
	// CD is the query's CD (checking disabled) bit: the Client sets it
	// only to ask a SERVFAIL again (see Server.CountCD).
	CD   bool
	Time time.Time
}

// queryLog counts received questions. It keeps them in chunks of
// logChunk, so that a log that grows for as long as a benchmark runs
// never copies what it holds (appending to one slice would copy it at
// every doubling: garbage that a benchmark would count against each
// lookup).
type queryLog struct {
	mu     sync.Mutex
	chunks [][]Received
}

// logChunk is the number of questions of a queryLog chunk.
const logChunk = 256

func (l *queryLog) add(name string, qtype resolver.Type, net string, udpSize uint16, cd bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := len(l.chunks) - 1
	if k < 0 || len(l.chunks[k]) == cap(l.chunks[k]) {
		l.chunks = append(l.chunks, make([]Received, 0, logChunk))
		k++
	}
	l.chunks[k] = append(l.chunks[k], Received{Name: resolver.CanonicalName(name), Type: qtype, Net: net, UDPSize: udpSize, CD: cd, Time: time.Now()})
}

func (l *queryLog) all() []Received {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Received
	for _, c := range l.chunks {
		out = append(out, c...)
	}
	return out
}

func (l *queryLog) count(name string, qtype resolver.Type) int {
	return l.countOver(name, qtype, "", false)
}

// countOver counts questions for name ("" for any name) of type qtype
// (AnyType for any) received over network ("" for any), with the CD bit
// set or not as cd says.
func (l *queryLog) countOver(name string, qtype resolver.Type, network string, cd bool) int {
	name = resolver.CanonicalName(name)
	n := 0
	for _, r := range l.all() {
		if (name == "" || r.Name == name) && (qtype == AnyType || r.Type == qtype) && (network == "" || r.Net == network) && r.CD == cd {
			n++
		}
	}
	return n
}
