package dnstest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/mailauth/mailauth/resolver"
)

// udpReadBuffer is the receive buffer asked for the server's UDP socket.
// The kernel default (about 200 KiB, some 270 queries) overflows when a
// hundred concurrent scans send their first questions at once, and a
// dropped query costs the client a whole timeout; 4 MiB is what
// recursive resolvers such as Unbound ask for (so-rcvbuf).
const udpReadBuffer = 4 << 20

// Server is a real DNS server on 127.0.0.1 serving Zones over UDP and TCP
// on the same, randomly chosen port.
type Server struct {
	zones  *Zones
	faults faults
	log    queryLog
	udp    *dns.Server
	tcp    *dns.Server
	addr   string
	stop   chan struct{}
	once   sync.Once

	dotMu    sync.Mutex
	dot      []*dns.Server // DNS-over-TLS listeners (ServeTLS)
	dotConns atomic.Int64  // TLS connections accepted

	delay    atomic.Int64 // nanoseconds added to every answer
	received atomic.Int64 // questions received, also when not logged
	noLog    atomic.Bool

	notValidating atomic.Bool // SetValidating(false)
}

// SetValidating says whether the server plays a validating resolver (the
// default): the SOA of the root, which every validating resolver holds
// signed, is answered with the AD bit when the zones do not hold the
// root, and answers about signed zones carry the AD bit (see the package
// doc). With false, no answer carries it, as from a resolver that does
// not validate.
func (s *Server) SetValidating(v bool) { s.notValidating.Store(!v) }

// Start starts a Server for z and stops it when tb's test ends.
func Start(tb testing.TB, z *Zones) *Server {
	tb.Helper()
	s, err := Listen(z)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Listen starts a Server for z on a free loopback port; the caller must
// Close it.
func Listen(z *Zones) (*Server, error) { return listen(z, "127.0.0.1:0", 10) }

// ListenAt starts a Server for z on addr, UDP and TCP (a fixed port, such
// as 53 in a network namespace of a test's own, where /etc/resolv.conf
// can name no other); the caller must Close it.
func ListenAt(z *Zones, addr string) (*Server, error) { return listen(z, addr, 1) }

// listen binds TCP at addr and UDP at the same address, tries times (a
// free port for TCP may be taken for UDP).
func listen(z *Zones, addr string, tries int) (*Server, error) {
	s := &Server{zones: z, stop: make(chan struct{})}
	lastErr := errors.New("no try")
	for try := 0; try < tries; try++ {
		tl, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("dnstest: listen tcp: %w", err)
		}
		pc, err := net.ListenPacket("udp", tl.Addr().String())
		if err != nil {
			tl.Close()
			lastErr = err
			continue
		}
		if uc, ok := pc.(*net.UDPConn); ok {
			_ = uc.SetReadBuffer(udpReadBuffer) // best effort: the kernel caps it at net.core.rmem_max
		}
		s.addr = tl.Addr().String()
		s.udp = &dns.Server{PacketConn: pc, Handler: s.handler("udp")}
		s.tcp = &dns.Server{Listener: tl, Handler: s.handler("tcp")}
		if err := s.serve(); err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, fmt.Errorf("dnstest: listen udp: %w", lastErr)
}

func (s *Server) serve() error {
	started := make(chan error, 2)
	for _, srv := range []*dns.Server{s.udp, s.tcp} {
		srv.NotifyStartedFunc = func() { started <- nil }
		go func(srv *dns.Server) {
			if err := srv.ActivateAndServe(); err != nil {
				started <- err
			}
		}(srv)
	}
	for i := 0; i < 2; i++ {
		if err := <-started; err != nil {
			s.Close()
			return fmt.Errorf("dnstest: serve: %w", err)
		}
	}
	return nil
}

// Addr returns the server's "127.0.0.1:port" address.
func (s *Server) Addr() string { return s.addr }

// Client returns a resolver.Client that asks only this server, with the
// given per-attempt timeout (0 means the Client default).
func (s *Server) Client(timeout time.Duration) *resolver.Client {
	return &resolver.Client{Servers: []string{s.addr}, Timeout: timeout, Attempts: 1}
}

// PatientResolver's per-attempt timeouts: PatientTimeout for the
// questions the server answers, a bound on a hang and never on speed;
// DroppedTimeout for those it drops, which always wait it out.
const (
	PatientTimeout = 30 * time.Second
	DroppedTimeout = 200 * time.Millisecond
)

// PatientResolver returns a Resolver for tests over the wire whose
// verdicts no load on the machine can change. A question the server
// drops (a Drop fault set on its own name, for its type or AnyType) goes
// through a Client with DroppedTimeout, which it always waits out: no
// reply can beat it. Every other question goes through a Client with
// PatientTimeout: an answer a loaded machine sends late is still the
// answer, not a time-out. Both make one attempt, as Client's do.
func (s *Server) PatientResolver() resolver.Resolver {
	answered, dropped := s.Client(PatientTimeout), s.Client(DroppedTimeout)
	return resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
		if s.faults.lookup([]string{resolver.CanonicalName(name)}, qtype).Drop {
			return dropped.Lookup(ctx, name, qtype)
		}
		return answered.Lookup(ctx, name, qtype)
	})
}

// PatientClient returns a Client of the server (PatientTimeout, one
// attempt) for a Scanner under test over a server that drops no
// question: its lookups, and its Probe of the resolver's properties,
// wait for the answers however loaded the machine. A Scanner bounds its
// probe by a few seconds; the probe of a PatientClient runs on past them
// (to PatientTimeout), so that a loaded machine never turns a validating
// server into one whose validation is unknown. A test that would have
// its first scan know it calls the Scanner's ResolverProperties first:
// a scan waits for the probe only a part of its time.
func (s *Server) PatientClient() PatientClient {
	return PatientClient{s.Client(PatientTimeout)}
}

// PatientClient is a resolver.Client whose Probe is bounded by
// PatientTimeout, not by its caller's deadline (Server.PatientClient).
type PatientClient struct{ *resolver.Client }

// Probe implements resolver.Prober: Client.Probe, past ctx's deadline.
func (c PatientClient) Probe(ctx context.Context, names ...string) (resolver.Properties, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), PatientTimeout)
	defer cancel()
	return c.Client.Probe(ctx, names...)
}

// SetFault injects f for questions about name of type qtype (AnyType for
// all types). It applies also when name is reached through a CNAME.
func (s *Server) SetFault(name string, qtype resolver.Type, f Fault) { s.faults.set(name, qtype, f) }

// OnceAsked calls f, on a goroutine of its own, once the server has
// received more questions for name of type qtype (AnyType: any) than it
// had when OnceAsked was called: a test ends a lookup's time when its
// question is out, not after a time the machine's load decides. The
// goroutine ends with the server, f uncalled, if none comes.
func (s *Server) OnceAsked(name string, qtype resolver.Type, f func()) {
	asked := s.Count(name, qtype)
	go func() {
		for s.Count(name, qtype) == asked {
			select {
			case <-s.stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
		f()
	}()
}

// Queries returns every question received so far.
func (s *Server) Queries() []Received { return s.log.all() }

// Count returns how many questions for name of type qtype (AnyType: any)
// were received, over UDP and TCP together. Queries with the CD bit (a
// Client's second ask after SERVFAIL) are not counted; see CountCD.
func (s *Server) Count(name string, qtype resolver.Type) int { return s.log.count(name, qtype) }

// CountCD is Count for the queries with the CD bit set.
func (s *Server) CountCD(name string, qtype resolver.Type) int {
	return s.log.countOver(name, qtype, "", true)
}

// CountOver is Count restricted to one transport, "udp" or "tcp"; name ""
// counts every name. Tests use it to prove a truncated answer was asked
// again over TCP.
func (s *Server) CountOver(name string, qtype resolver.Type, network string) int {
	return s.log.countOver(name, qtype, network, false)
}

// DelayAll holds back every answer for d, on top of the faults set for
// its names (also for names the zones do not hold). The bench uses it to
// give every question the same round-trip time.
func (s *Server) DelayAll(d time.Duration) { s.delay.Store(int64(d)) }

// Received returns how many questions the server received so far, over
// UDP and TCP, including those not logged (see KeepLog).
func (s *Server) Received() int { return int(s.received.Load()) }

// KeepLog turns the question log behind Queries, Count and CountOver on
// (the default) or off. Long benchmarks turn it off so that its memory
// does not grow with every question; Received still counts.
func (s *Server) KeepLog(on bool) { s.noLog.Store(!on) }

// Close stops the server. It is safe to call more than once.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.stop)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = s.udp.ShutdownContext(ctx)
		_ = s.tcp.ShutdownContext(ctx)
		s.dotMu.Lock()
		defer s.dotMu.Unlock()
		for _, d := range s.dot {
			_ = d.ShutdownContext(ctx)
		}
	})
}

func (s *Server) handler(network string) dns.HandlerFunc {
	return func(w dns.ResponseWriter, r *dns.Msg) {
		if len(r.Question) != 1 {
			m := new(dns.Msg)
			m.SetRcode(r, dns.RcodeFormatError)
			_ = w.WriteMsg(m)
			return
		}
		q := r.Question[0]
		var udpSize uint16
		if opt := r.IsEdns0(); opt != nil {
			udpSize = opt.UDPSize()
		}
		s.received.Add(1)
		if !s.noLog.Load() {
			s.log.add(q.Name, resolver.Type(q.Qtype), network, udpSize, r.CheckingDisabled)
		}
		m, visited := s.zones.answer(q, false)
		if q.Qtype == dns.TypeSOA && q.Name == "." && !s.zones.has("") {
			m = rootSOA() // the signed root a resolver holds
		}
		m.AuthenticatedData = m.AuthenticatedData && !s.notValidating.Load()
		f := s.faults.lookup(visited, resolver.Type(q.Qtype))
		f.Delay += time.Duration(s.delay.Load())
		if f.Delay > 0 {
			select {
			case <-time.After(f.Delay):
			case <-s.stop:
				return
			}
		}
		s.reply(w, r, m, f, network)
	}
}

func (s *Server) reply(w dns.ResponseWriter, r, m *dns.Msg, f Fault, network string) {
	switch {
	case f.Drop:
		return
	case f.Rcode != 0:
		m = new(dns.Msg)
		m.SetRcode(r, f.Rcode)
	case f.Bogus && !r.CheckingDisabled:
		m = new(dns.Msg)
		m.SetRcode(r, dns.RcodeServerFailure)
	case f.Garbage:
		_, _ = w.Write(garbage(r.Id))
		return
	case f.Truncate && network == "udp":
		m = new(dns.Msg)
		m.SetReply(r)
		m.Truncated = true
	default:
		rcode := m.Rcode
		m.SetReply(r)
		m.Rcode = rcode
	}
	m.RecursionAvailable = true
	m.Compress = true // as real servers do: large answers fit a 64 KiB message
	size := dns.MinMsgSize
	if opt := r.IsEdns0(); opt != nil {
		m.SetEdns0(opt.UDPSize(), false)
		size = int(opt.UDPSize())
		if f.EDE != 0 {
			o := m.IsEdns0()
			o.Option = append(o.Option, &dns.EDNS0_EDE{InfoCode: f.EDE})
		}
	}
	if network == "udp" {
		// A reply larger than the client's buffer is cut with the TC
		// bit set (RFC 1035 §4.2.1, RFC 6891 §7).
		m.Truncate(size)
	}
	_ = w.WriteMsg(m)
}

// garbage is a reply to the query with id that is not a DNS message: a
// response header announcing one question, whose name is cut short.
func garbage(id uint16) []byte {
	return []byte{byte(id >> 8), byte(id), 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 0x3f, 'x'}
}

// rootSOA is the answer of a validating resolver to the SOA of the root,
// for zones that do not hold the root: the root zone is signed, so the
// answer is validated.
func rootSOA() *dns.Msg {
	m := new(dns.Msg)
	m.AuthenticatedData = true
	m.Answer = []dns.RR{&dns.SOA{
		Hdr: dns.RR_Header{Name: ".", Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: 86400},
		Ns:  "a.root-servers.invalid.", Mbox: "hostmaster.root-servers.invalid.",
		Serial: 1, Refresh: 1800, Retry: 900, Expire: 604800, Minttl: 86400,
	}}
	return m
}
