package resolver

import (
	"bufio"
	"context"
	"crypto/x509"
	"errors"
	"io"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/miekg/dns"
)

// Defaults of a Client (product choices; doc/design.md §2 and the package
// doc, "Retries").
const (
	// DefaultTimeout is how long the first attempt of a question waits
	// for its reply. A recursive resolver answers from its cache in
	// milliseconds and resolves most names within a few hundred; an
	// attempt left unanswered this long is asked again (to the next
	// server), while its reply is still taken if it comes later.
	DefaultTimeout = 800 * time.Millisecond
	// MaxAttemptTimeout caps how long one attempt waits (each attempt
	// waits a quarter of the first attempt's timeout longer than the one
	// before). It stays below Unbound's discard-timeout (1.9 s in
	// Debian's configuration): a resolver that drops a query it could
	// not answer in time is asked again while it has the answer cached.
	MaxAttemptTimeout = 1600 * time.Millisecond
	// DefaultLookupTimeout bounds a lookup whose context has no deadline
	// (a scan's context always has one: its share of the scan deadline).
	DefaultLookupTimeout = 6 * time.Second
	// DefaultUDPSize is the EDNS0 buffer size advertised (DNS flag day
	// 2020 recommendation, RFC 9715).
	DefaultUDPSize = 1232
)

// Client is the production Resolver: it sends recursive queries to the
// configured servers with github.com/miekg/dns. The zero value asks the
// servers of /etc/resolv.conf (see [SystemServers]).
//
// A question is asked over UDP with EDNS0, its name in random case (0x20)
// and with a DNS cookie, from sockets that each carry a small batch of
// questions (see the package doc, "Sockets and spoofing"), and again over
// TCP when the reply is truncated, while UDP replies are still awaited.
// Attempts follow the package doc's "Retries": until the context's
// deadline, a question is asked again, rotating over the servers,
// whenever an attempt goes unanswered for its timeout; a server that
// replies SERVFAIL, REFUSED or another error RCODE, and again to the
// question asked once more on a fresh socket, is not asked again; an
// answer to any attempt ends the lookup. Datagrams that do not decode or do not
// match the query, and ICMP errors, are dropped and counted
// ([Client.SpoofDrops]); they never end a lookup. CNAME chains are
// followed inside a reply and, when a reply stops at an alias, by asking
// again for its target, up to MaxCNAMEChain aliases in all.
//
// A Client must not be copied after first use. Its sockets close
// themselves once no question has been in flight for a moment.
type Client struct {
	// Servers are "host:port" addresses of recursive resolvers, or
	// "tls://host:port" for one asked over DNS over TLS (RFC 7858; host
	// a name or an IP address its certificate is valid for). Empty means
	// the nameservers of /etc/resolv.conf.
	Servers []string
	// Timeout is how long the first attempt waits; 0 means
	// DefaultTimeout. Later attempts wait longer, up to the larger of
	// Timeout and MaxAttemptTimeout.
	Timeout time.Duration
	// Attempts caps the attempts per question; 0 means as many as the
	// context's deadline allows.
	Attempts int
	// UDPSize is the EDNS0 buffer size; 0 means DefaultUDPSize.
	UDPSize uint16
	// Logger, when set, gets a line when a server turns out, over TCP,
	// not to echo the case of questions (0x20) or to have stopped sending
	// DNS cookies, and when TCP contradicts UDP replies that suggested so
	// (forged datagrams), at most one of each kind per server and minute
	// (see the package doc, "Sockets and spoofing"). The lines name the
	// server, never a question. nil: nothing is logged.
	Logger *slog.Logger

	// RootCAs verify the certificates of DNS-over-TLS servers
	// ("tls://host:port" in Servers; dot.go); nil means the system roots.
	RootCAs *x509.CertPool

	pool   pool
	dot    dotPool
	system systemServers // used when Servers is empty
}

// SpoofDrops returns how many datagrams and ICMP errors the Client's
// sockets dropped so far, by kind ([SpoofDropKinds] lists every kind, each
// present in the map). A dropped datagram never ends a lookup.
func (c *Client) SpoofDrops() map[string]uint64 { return c.pool.spoofDrops() }

// SystemServers returns the nameservers listed in /etc/resolv.conf as
// "host:port", or 127.0.0.1:53 when the file lists none. It reads the file
// at every call; a Client with no Servers keeps its own reading for
// [resolvConfRecheck], so that a long-running server follows changes to
// the file without reading it at every lookup.
func SystemServers() []string { return serversFromResolvConf(resolvConfPath) }

// resolvConfPath is the resolv.conf(5) file of the system.
const resolvConfPath = "/etc/resolv.conf"

// resolvConfRecheck is how long a Client trusts its last reading of
// /etc/resolv.conf (the Go standard library's resolver uses the same).
const resolvConfRecheck = 5 * time.Second

// systemServers is a Client's cached reading of a resolv.conf(5) file,
// read again at most every resolvConfRecheck. The zero value reads
// /etc/resolv.conf.
type systemServers struct {
	// path overrides resolvConfPath (tests); "": resolvConfPath.
	path string
	// now is the clock (tests); nil: time.Now.
	now func() time.Time

	mu      sync.Mutex
	servers []string // replaced on each reading, never changed in place
	read    time.Time
}

// get returns the servers of the file, read again when the last reading
// is resolvConfRecheck old. Callers must not change the slice.
func (s *systemServers) get() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.now != nil {
		now = s.now()
	}
	if s.servers == nil || now.Sub(s.read) >= resolvConfRecheck {
		path := s.path
		if path == "" {
			path = resolvConfPath
		}
		s.servers, s.read = serversFromResolvConf(path), now
	}
	return s.servers
}

// serversFromResolvConf returns the "nameserver" addresses of a
// resolv.conf(5) file as "host:port" (port 53; an IPv6 zone is kept, so
// that link-local servers work). Lines whose address is not an IP address
// are ignored. A missing or empty file gives 127.0.0.1:53, as in glibc.
func serversFromResolvConf(path string) []string {
	var out []string
	f, err := os.Open(path)
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 2 || fields[0] != "nameserver" {
				continue
			}
			if _, err := netip.ParseAddr(fields[1]); err == nil {
				out = append(out, net.JoinHostPort(fields[1], "53"))
			}
		}
	}
	if len(out) == 0 {
		out = []string{"127.0.0.1:53"}
	}
	return out
}

func (c *Client) servers() []string {
	if len(c.Servers) > 0 {
		return c.Servers
	}
	return c.system.get()
}

func (c *Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// schedule is the retry schedule of a question.
func (c *Client) schedule() Schedule {
	first := c.timeout()
	return Schedule{First: first, Max: max(first, MaxAttemptTimeout), Attempts: max(c.Attempts, 0)}
}

func (c *Client) udpSize() uint16 {
	if c.UDPSize > 0 {
		return c.UDPSize
	}
	return DefaultUDPSize
}

// Lookup implements Resolver.
func (c *Client) Lookup(ctx context.Context, name string, qtype Type) Answer {
	a, _ := c.LookupTTL(ctx, name, qtype)
	return a
}

// LookupTTL is Lookup that also says how long the answer may be cached,
// in seconds: the smallest TTL of the records and aliases of every reply
// it was built from for Found, the negative TTL of RFC 2308 §5 for NoData
// and NXDomain, and 0 (not to be cached) when a reply gave none, the
// answer is inconclusive, or a question of the lookup saw a datagram
// dropped as forged, mismatched or undecodable, or an ICMP error at one
// of its ports (see the package doc, "Sockets and spoofing"). A [Cache]
// uses it, and learns through the context when a later reply
// contradicts an answer it keeps.
func (c *Client) LookupTTL(ctx context.Context, name string, qtype Type) (Answer, uint32) {
	w := newLanding[uint32]()
	c.StartTTL(ctx, name, qtype, w.land)
	return w.wait()
}

// Start implements [Starter].
func (c *Client) Start(ctx context.Context, name string, qtype Type, done func(Answer)) {
	c.StartTTL(ctx, name, qtype, func(a Answer, _ uint32) { done(a) })
}

// StartTTL is LookupTTL's [Starter.Start]: it asks the question and
// returns; done gets the answer and its TTL once, from the goroutine
// that received the last reply (or a timer's), perhaps before StartTTL
// returns. No goroutine waits under the lookup: its state is on the heap
// and its replies, timers and context move it on.
func (c *Client) StartTTL(ctx context.Context, name string, qtype Type, done func(Answer, uint32)) {
	name, ok := QuestionName(name)
	if !ok {
		done(Fail(ReasonInvalidName), 0)
		return
	}
	if strings.Contains(name, `\`) {
		var ok bool
		if name, ok = wireName(name); !ok {
			done(Fail(ReasonInvalidName), 0)
			return
		}
	}
	ctx, cancel := withDeadline(ctx)
	ch := &chase{c: c, ctx: ctx, cancel: cancel, name: name, qtype: qtype, done: done, h: hops{ttl: math.MaxUint32}}
	// The names seen: a slice, not a map; a chain is short, and most
	// lookups have no alias: the first name is in the chase.
	ch.first[0] = name
	ch.h.seen = ch.first[:1]
	ch.ask()
}

// chase is a lookup that follows a CNAME chain (StartTTL): each hop's
// question is asked in ask, and what its answer means is worked out in
// answered.
type chase struct {
	c       *Client
	ctx     context.Context
	cancel  context.CancelFunc
	name    string
	qtype   Type
	done    func(Answer, uint32)
	h       hops
	first   [1]string // h.seen's room until the first alias
	servers []string
	handed  atomic.Bool // done was called (see finish)
}

// ask asks the current hop's question.
func (ch *chase) ask() {
	if ended(ch.ctx) {
		ch.next(&result{a: Fail(ReasonCanceled)})
		return
	}
	ch.servers = ch.c.servers()
	ch.c.startAttempts(ch.ctx, ch.servers, ch.name, ch.qtype, false, ch.c.schedule(), ch.answered)
}

// answered takes how one hop's attempts ended. A SERVFAIL that the CD
// and chain tests may explain (see settle) is settled in a goroutine of
// its own: those tests ask their questions one after the other, and the
// goroutine that received the reply must not wait for them.
func (ch *chase) answered(res *result) {
	defer ch.contain()
	if ch.c.needsTests(ch.ctx, res) {
		go func() {
			defer ch.contain()
			ch.c.settle(ch.ctx, ch.servers, ch.name, ch.qtype, res)
			ch.next(res)
		}()
		return
	}
	ch.c.settle(ch.ctx, ch.servers, ch.name, ch.qtype, res)
	ch.next(res)
}

// contain is deferred where the chase's work runs on a goroutine that
// is not its caller's (a socket's reader, a timer's, the settling one):
// a panic in that work ends the lookup with ReasonMalformed instead of
// the process.
func (ch *chase) contain() {
	if recover() != nil {
		ch.finish(Fail(ReasonMalformed), 0)
	}
}

// finish hands the lookup's answer on, once.
func (ch *chase) finish(a Answer, ttl uint32) {
	if !ch.handed.CompareAndSwap(false, true) {
		return
	}
	ch.cancel()
	handOnTTL(ch.done, a, ttl)
}

// next follows res, one hop's settled result: the lookup's answer, or
// the next hop's question.
func (ch *chase) next(res *result) {
	if ch.h.follow(res, &ch.name) {
		ch.finish(res.a, ch.h.ttl)
		return
	}
	ch.ask()
}

// handOnTTL is handOn for a done that takes a TTL (StartTTL).
func handOnTTL(done func(Answer, uint32), a Answer, ttl uint32) {
	defer func() { _ = recover() }()
	done(a, ttl)
}

// hops is what LookupTTL keeps along a CNAME chain: the names seen, the
// aliases so far and the smallest TTL.
type hops struct {
	seen  []string
	chain []string
	ttl   uint32
}

// follow takes one hop's result: it reports whether the lookup is over
// (res.a its answer, h.ttl its TTL), else sets name to the alias to ask
// next. Not inlined (see LookupTTL).
//
//go:noinline
func (h *hops) follow(res *result, name *string) bool {
	a := &res.a
	h.ttl = min(h.ttl, res.ttl)
	for _, alias := range a.CNAMEs {
		if slices.Contains(h.seen, alias) {
			a.CNAMEs = append(h.chain, a.CNAMEs...)
			*a, h.ttl = failWith(*a, ReasonCNAMELoop), 0
			return true
		}
		h.seen = append(h.seen, alias)
	}
	a.CNAMEs = append(h.chain, a.CNAMEs...)
	if len(a.CNAMEs) > MaxCNAMEChain {
		*a, h.ttl = failWith(*a, ReasonCNAMEChain), 0
		return true
	}
	if res.next == "" {
		if !a.Conclusive() {
			h.ttl = 0
		}
		return true
	}
	h.chain, *name = a.CNAMEs, res.next
	return false
}

// wireName returns name as it reads back from the wire: escapes such as
// \065 for A resolved (and lower-cased), so that it compares with the
// names of replies, which come unpacked. The root stays "". Not inlined:
// its buffer would sit in LookupTTL's frame, under which lookups wait.
//
//go:noinline
func wireName(name string) (string, bool) {
	if name == "" {
		return "", true
	}
	buf := make([]byte, 256)
	off, err := dns.PackDomainName(dns.Fqdn(name), buf, 0, nil, false)
	if err != nil {
		return "", false
	}
	back, _, err := dns.UnpackDomainName(buf[:off], 0)
	if err != nil {
		return "", false
	}
	return CanonicalName(back), true
}

// withDeadline gives ctx DefaultLookupTimeout when it has no deadline.
func withDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, DefaultLookupTimeout)
}

// settle explains a SERVFAIL res of one hop's question (the attempts
// of LookupTTL; "" is the root) and keeps a tainted answer out of
// caches: a SERVFAIL that no EDE explains goes through the CD test (see
// cdTest). It is not inlined, so that its locals are not in LookupTTL's
// frame, under which the lookup waits.
//
//go:noinline
func (c *Client) settle(ctx context.Context, servers []string, name string, qtype Type, res *result) {
	if c.needsTests(ctx, res) {
		server := servers[res.server]
		*res = c.cdTest(ctx, server, name, qtype, *res)
		if res.a.Reason == ReasonServFail && name != "" && qtype != TypeCNAME && !ended(ctx) {
			res.a.Reason = c.chainTest(ctx, server, name, qtype)
		}
	}
	if res.tainted {
		// A datagram for this question was dropped as forged, mismatched
		// or undecodable, or an ICMP error reached one of its ports: the
		// answer serves this lookup, never a cache, and a Cache's callers
		// that waited for it ask again.
		res.ttl = 0
		if h := hookOf(ctx); h != nil {
			h.tainted.Store(true)
		}
	}
}

// needsTests reports whether settle puts res, a hop's result, to the CD
// and chain tests: a SERVFAIL from a server, with time left.
func (c *Client) needsTests(ctx context.Context, res *result) bool {
	return res.a.Reason == ReasonServFail && res.server >= 0 && !ended(ctx)
}

// chainTest explains a SERVFAIL that neither an EDE nor the CD test
// explains, by the CNAME chain that starts at name. A recursive resolver
// that meets a CNAME loop, or a chain longer than it follows (Unbound
// 1.17: 11 links), answers SERVFAIL and shows no part of the chain. The
// chain's links are asked one by one as CNAME questions, which the
// resolver answers without following them (RFC 1034 §3.6.2): a name
// seen twice is [ReasonCNAMELoop]; a chain longer than [MaxCNAMEChain],
// or one of more than [followedChain] links whose end answers the
// question that failed through the chain, is [ReasonCNAMEChain] (the
// resolver gave up on its length). Anything else (no alias at name, a
// link that does not answer, a short chain, an end that fails too)
// leaves [ReasonServFail]. It asks at most MaxCNAMEChain+2 questions of
// server, one attempt each.
func (c *Client) chainTest(ctx context.Context, server, name string, qtype Type) Reason {
	once := Schedule{First: c.timeout(), Max: c.timeout(), Attempts: 1}
	one := []string{server}
	seen := map[string]bool{name: true}
	cur := name
	for links := 0; ; links++ {
		if ended(ctx) {
			return ReasonServFail
		}
		res := c.attempts(ctx, one, cur, TypeCNAME, false, once)
		target := cnameTarget(res.a, cur)
		switch {
		case target == "" && links == 0:
			return ReasonServFail // name is no alias: the chain is not the cause
		case target == "" && links <= followedChain:
			return ReasonServFail // every common resolver follows a chain this short
		case target == "":
			return c.chainEnd(ctx, one, cur, qtype, once)
		case seen[target]:
			return ReasonCNAMELoop
		case links+1 > MaxCNAMEChain:
			return ReasonCNAMEChain
		}
		seen[target] = true
		cur = target
	}
}

// followedChain is the longest CNAME chain every common recursive
// resolver follows (Unbound 1.17 gives up after 11 links, BIND after 16;
// RFC 1034 §3.6.2 asks resolvers to bound chains but sets no number): a
// SERVFAIL through a chain this short is not blamed on its length.
const followedChain = 8

// chainEnd asks the question that failed through a CNAME chain of the
// chain's last name directly: an answer there means the resolver gave up
// on the chain's length ([ReasonCNAMEChain]); anything else leaves
// [ReasonServFail].
func (c *Client) chainEnd(ctx context.Context, servers []string, end string, qtype Type, once Schedule) Reason {
	if ended(ctx) {
		return ReasonServFail
	}
	res := c.attempts(ctx, servers, end, qtype, false, once)
	if res.a.Conclusive() {
		return ReasonCNAMEChain
	}
	return ReasonServFail
}

// cnameTarget returns the alias target a's CNAME records give owner, or
// "" when a holds none.
func cnameTarget(a Answer, owner string) string {
	if a.Outcome != Found {
		return ""
	}
	for _, r := range a.Records {
		if r.Type == TypeCNAME && r.Name == owner {
			return r.Target
		}
	}
	return ""
}

// cdTest puts a question its server answered SERVFAIL (res) to it again
// with the CD bit set (checking disabled, RFC 4035 §3.2.2). An answer
// then, and SERVFAIL once more without CD, is a DNSSEC validation failure
// (ReasonDNSSEC). When the question is answered without CD this time, the
// SERVFAIL was passing, and that answer is the result; when the CD
// question fails too, res stands.
func (c *Client) cdTest(ctx context.Context, server, name string, qtype Type, res result) result {
	once := Schedule{First: c.timeout(), Max: c.timeout(), Attempts: 1}
	one := []string{server}
	cd := c.attempts(ctx, one, name, qtype, true, once)
	if !cd.a.Conclusive() || ended(ctx) {
		return res
	}
	again := c.attempts(ctx, one, name, qtype, false, once)
	again.tainted = again.tainted || cd.tainted || res.tainted
	switch {
	case again.a.Conclusive():
		return *again
	case again.a.Reason == ReasonServFail:
		res.a.Reason = ReasonDNSSEC
	}
	return res
}

// query builds the query for one question: recursion desired, the AD bit
// asked for (RFC 6840 §5.7), EDNS0, and CD (checking disabled) when cd.
// Its ID is 0: every transport gives each send a fresh random ID of its
// own (Msg.SetQuestion would draw one more, for nothing).
func (c *Client) query(name string, qtype Type, cd bool) *dns.Msg {
	return newQuery(dns.Question{Name: dns.Fqdn(name), Qtype: uint16(qtype), Qclass: dns.ClassINET}, cd, c.udpSize())
}

// newQuery returns the query of question q (see Client.query): recursion
// desired, the AD bit, the CD bit when cd, and EDNS with UDP size
// udpSize (0: no EDNS). A TCP probe asks a tombstone's question with it
// (askOverTCP), with what the query sent over UDP advertised.
func newQuery(q dns.Question, cd bool, udpSize uint16) *dns.Msg {
	m := new(dns.Msg)
	m.Question = []dns.Question{q}
	m.RecursionDesired = true
	m.AuthenticatedData = true
	m.CheckingDisabled = cd
	if udpSize > 0 {
		m.SetEdns0(udpSize, false)
	}
	return m
}

// result is how the attempts of one question ended: the answer, the alias
// to ask next (see FromMsg), its TTL, the index of the server whose error
// reply the answer is (-1 for none), whether a datagram for the question
// was dropped meanwhile as forged, mismatched or undecodable (tainted:
// the answer is not to be cached), and the UDP reply it was taken from
// (nil: none, or one over TCP).
type result struct {
	a    Answer
	next string
	ttl  uint32
	// from is the index of the server that sent udp (in ttl's padding).
	from    int32
	server  int
	tainted bool
	udp     *dns.Msg
}

func failure(r Reason, server int) result { return result{a: Fail(r), server: server} }

// attempts asks the question of name and qtype (with the CD bit when
// cd) of servers as sched and the retry rules say, until an
// answer comes, every server has replied with an error, the attempts are
// spent or ctx ends. Every attempt's ID stays registered until then, so
// that a late answer to an earlier attempt is taken, and, when the answer
// came over UDP, for tombstoneFor after it (see waiter.decide). A
// server's first error reply over UDP (an error RCODE, or a truncated
// reply whose TCP retry failed) is not yet its word: the question is
// asked of it once more at once, on a fresh socket under a fresh ID, and
// only an error reply to that query or a later one counts, so that a
// forged REFUSED or TC reply, sent once or more, does not fail a lookup
// whose real answer is on its way. A truncated reply is asked again over
// TCP while the UDP replies are still awaited. A reply that matched a
// query but for the case of its name or its cookie has the question
// asked again at once, on a fresh socket (up to maxQuickResends). The
// result lives on the heap with the lookup's state, so that no caller
// under which the lookup waits holds a copy in its frame.
func (c *Client) attempts(ctx context.Context, servers []string, name string, qtype Type, cd bool, sched Schedule) *result {
	w := &attemptsWait{done: make(chan struct{})}
	c.startAttempts(ctx, servers, name, qtype, cd, sched, w.land)
	<-w.done
	return w.res
}

// attemptsWait is where attempts's result lands.
type attemptsWait struct {
	done chan struct{}
	res  *result
}

func (w *attemptsWait) land(res *result) {
	w.res = res
	close(w.done)
}

// startAttempts is attempts without the wait: it sends what is due and
// returns; done gets the result once, from the goroutine that moved the
// lookup to its end (a socket's reader, a timer, the context's end, a
// TCP retry), perhaps before startAttempts returns.
func (c *Client) startAttempts(ctx context.Context, servers []string, name string, qtype Type, cd bool, sched Schedule, done func(*result)) {
	l := c.newLookup(ctx, servers, name, qtype, cd, sched)
	l.done = done
	// This goroutine runs the lookup first: a kick meanwhile (the
	// context ended already) only makes it look again.
	l.running = true
	l.w.kick = l.ref.fn
	l.ctxStop = context.AfterFunc(ctx, l.ref.fn)
	l.run()
}

// kick moves the lookup on: it does what its events so far ask (see
// turn), on the goroutine that calls it. Whatever calls it while it
// runs (a reply received, the timer, the context's end) makes it look
// again before it lets go, so that no event is left unseen; calls once
// the lookup is over do nothing.
func (l *lookup) kick() {
	l.mu.Lock()
	if l.running {
		l.again = true
		l.mu.Unlock()
		return
	}
	l.running = true
	l.mu.Unlock()
	l.run()
}

// run is kick's work, by the goroutine that set running.
func (l *lookup) run() {
	defer l.recoverKick()
	for {
		if l.turn() {
			l.complete()
			return // running stays set: the lookup is over
		}
		l.mu.Lock()
		if !l.again {
			l.running = false
			l.mu.Unlock()
			return
		}
		l.again = false
		l.mu.Unlock()
	}
}

// recoverKick ends the lookup with ReasonMalformed when its work
// panicked before its result was handed on: kick runs on sockets'
// readers and timers, where a panic would end the process.
func (l *lookup) recoverKick() {
	if p := recover(); p != nil && !l.handed {
		*l.result() = failure(ReasonMalformed, -1)
		l.complete()
	}
}

// turn does what the lookup's events so far ask, as attempts's loop
// did waiting for each: it sends what the schedule says is due, takes
// the replies and TCP results that came, one at a time, and reports
// whether the lookup is over (its result in l.res). It returns false
// when nothing more came: the next event kicks the lookup again.
//
//go:noinline
func (l *lookup) turn() bool {
	for {
		if l.ctx.Err() != nil {
			l.stop()
			return true
		}
		wait, stop := l.step()
		if stop {
			if ended(l.ctx) {
				// The deadline passed by the clock, but the context has
				// not said so yet: the lookup ends when it does (its
				// end kicks the lookup), so that the layers above see
				// the lookup's end as their caller's (see giveUp).
				return false
			}
			l.stop()
			return true
		}
		l.timer.Reset(wait)
		// A TCP retry's end first: its answer is one an off-path forger
		// cannot make, and a UDP reply queued beside it (a forger's, or
		// an error that fails the last server) must not end the lookup
		// ahead of it. There are a few at most (maxTCPPerServer a
		// server): they cannot hold the UDP replies back.
		select {
		case l.tr = <-l.tcpResults():
			if l.tookTCP() {
				return true
			}
			continue
		default:
		}
		if l.rep = l.w.take(); l.rep != nil {
			if l.udp() {
				return true
			}
			continue
		}
		return false
	}
}

// complete ends the lookup: it releases its queries and timers and
// hands its result on.
func (l *lookup) complete() {
	l.handed = true
	l.ref.l.Store(nil)
	l.ctxStop()
	l.endSafely()
	l.done(l.result())
}

// result returns the lookup's result (res), made at the first call.
func (l *lookup) result() *result {
	if l.res == nil {
		l.res = new(result)
	}
	return l.res
}

// endSafely is end, with a panic in it dropped: the result is handed on
// whatever happens to the release of its queries.
func (l *lookup) endSafely() {
	defer func() { _ = recover() }()
	l.end()
}

// lookup is the state of one question's attempts (Client.attempts). It
// lives on the heap, and the work on a reply is done in its methods,
// none inlined into attempts: the frame a lookup waits in stays small,
// and with it the stack of every goroutine that waits on the DNS.
type lookup struct {
	c       *Client
	ctx     context.Context
	servers []string
	name    string
	qtype   Type
	cd      bool // the queries' CD bit
	handed  bool // done was called (set by the goroutine running the lookup)
	start   time.Time
	r       retry // its deadline is the lookup's
	w       *waiter
	tickets []ticket
	tcp     *tcpRetries // the TCP retries of truncated replies: made at the first one
	reask   []int       // the query asked again after a server's first error reply; 0: none
	seq     int32       // the queries sent
	quick   int32       // the queries asked again at once (maxQuickResends)
	last    *result     // the best failure so far (nil: none yet; see fail)
	// res is a result being worked out (see reply, stop), and how the
	// lookup ended once udp, tcp or stop said so; nil until the first
	// reply or the end (see result): a lookup in flight is waiting for
	// its first, and a result is a third of a lookup's size.
	res     *result
	timer   *time.Timer // kicks the lookup when the next attempt is due
	rep     *reply      // the latest reply received (see udp)
	tr      *tcpResult  // the latest TCP retry's end received (see tcp)
	done    func(*result)
	ctxStop func() bool // stops the kick at the context's end

	ref *lookupRef // what the timer, the context and the waiter kick

	mu      sync.Mutex
	running bool // a goroutine is in kick
	again   bool // an event came while it was: look again
}

// lookupRef is how a lookup's timer, context and waiter reach it: it
// lets go of the lookup once the lookup is over. A stopped timer can
// stay in the runtime's timer heap for a while, and a waiter stays
// registered for its tombstones: through the lookup they would keep
// everything that waited for it (the scan's state) alive.
type lookupRef struct {
	l atomic.Pointer[lookup]
	// fn is kick as a func, taken once: the timer, the waiter and the
	// context's end share it (each method value taken apart would be an
	// allocation).
	fn func()
}

// kick kicks the lookup, if it is not over.
func (r *lookupRef) kick() {
	if l := r.l.Load(); l != nil {
		l.kick()
	}
}

// newLookup returns the state of a new lookup. It is not inlined, so that
// the state is on the heap, not in attempts's frame.
//
//go:noinline
func (c *Client) newLookup(ctx context.Context, servers []string, name string, qtype Type, cd bool, sched Schedule) *lookup {
	deadline, _ := ctx.Deadline()
	l := &lookup{c: c, ctx: ctx, servers: servers, name: name, qtype: qtype, cd: cd,
		start: time.Now(), r: makeRetry(sched, len(servers), deadline), w: newWaiter(),
	}
	l.ref = &lookupRef{}
	l.ref.l.Store(l)
	l.ref.fn = l.ref.kick
	l.timer = time.AfterFunc(time.Hour, l.ref.fn)
	l.r.spread = jitter
	if h := hookOf(ctx); h != nil {
		l.w.conflict = h
		l.w.salt = c.pool.digestSalt()
	}
	return l
}

// fail keeps f as the lookup's best failure so far when it is (prefer).
// The first is kept apart from the lookup: most lookups have none, and
// the room for one in each lookup in flight would be most of a lookup's
// size.
func (l *lookup) fail(f result) {
	if l.last == nil {
		l.last = new(result) // not &f: f would be on the heap at every call
		*l.last = f
		return
	}
	*l.last = prefer(*l.last, f)
}

// lastFailure returns the lookup's best failure so far; with none, a
// result with no outcome, of no server.
func (l *lookup) lastFailure() result {
	if l.last == nil {
		return result{server: -1}
	}
	return *l.last
}

// end releases the lookup's queries (see Client.release) and stops its
// TCP retries.
func (l *lookup) end() {
	l.timer.Stop()
	if l.tcp != nil {
		l.tcp.stop()
	}
	l.c.release(l.w, l.tickets)
}

// step sends what the schedule says is due, and returns how long to
// wait for replies, or stop when the lookup is over.
//
//go:noinline
func (l *lookup) step() (wait time.Duration, stop bool) {
	for {
		now := time.Now()
		act := l.r.next(now)
		if act.kind == actStop {
			return 0, true
		}
		if act.kind == actSend && !l.sendDue(act.server, now) {
			continue
		}
		return act.until.Sub(now), false
	}
}

// sendDue sends the attempt the schedule says is due to server, and
// reports whether it left; a send that failed fails the server. It is
// not inlined, so that the send's locals (the query copy, its packing,
// the socket write) are not in step's frame: they stack on top of every
// resolver layer above the lookup, and a lookup's stack stays within
// its smaller size.
//
//go:noinline
func (l *lookup) sendDue(server int, now time.Time) bool {
	if _, err := l.send(server, false); err != nil {
		l.sendFailed(server, now)
		return false
	}
	return true
}

// sendFailed fails server, whose attempt could not be sent. Not inlined
// (see sendDue): results are large.
//
//go:noinline
func (l *lookup) sendFailed(server int, now time.Time) {
	l.r.fail(server, now)
	l.fail(failure(ReasonNetwork, server))
}

// stop ends the lookup with what it has: an answer that arrived as it
// ended, or its best failure.
//
//go:noinline
func (l *lookup) stop() {
	*l.result() = l.c.giveUp(l.ctx, &l.r, l.c.drain(l.name, l.qtype, l.w, l.lastFailure()), l.start, l.tickets, l.w)
	l.finish()
}

// finish ends the lookup with l.res: what its waiter keeps, and whether
// a datagram dropped meanwhile taints it.
func (l *lookup) finish() {
	res := l.result()
	t := l.w.digest(res.udp, int(res.from))
	res.tainted = res.tainted || l.w.tainted.Load()
	l.w.settle(t)
}

// send sends the query to server (an index in servers), fresh asking for
// a socket of its own, and returns its number in the lookup. Not inlined
// (see sendDue).
//
//go:noinline
func (l *lookup) send(server int, fresh bool) (int, error) {
	l.seq++
	seq := int(l.seq)
	if IsTLS(l.servers[server]) {
		l.c.sendTLS(l.ctx, l.servers[server], server, seq, l.query(), l.w) // DNS over TLS (dot.go)
		return seq, nil
	}
	t, err := l.c.send(l.servers[server], server, seq, l.query(), l.w, fresh)
	if err == nil || errors.Is(err, errICMPSend) {
		l.tickets = append(l.tickets, t) // an attempt lost to ICMP errors waits like any other
		return seq, nil
	}
	return 0, err
}

// query returns the lookup's query. It is built for each send, not kept:
// a lookup in flight holds its question (name, qtype, cd) alone.
func (l *lookup) query() *dns.Msg { return l.c.query(l.name, l.qtype, l.cd) }

// errorFrom notes an error reply of server to its query n over UDP.
func (l *lookup) errorFrom(server, n int) {
	if l.reask == nil {
		l.reask = make([]int, len(l.servers))
	}
	switch {
	case l.reask[server] == 0:
		if n, err := l.send(server, true); err == nil {
			l.reask[server] = n
			return
		}
		l.r.fail(server, time.Now())
	case n >= l.reask[server]:
		l.r.fail(server, time.Now())
	}
	// Else a reply to a query sent before the server was asked again
	// (a forger's copy): not its word.
}

// udp handles what came on the waiter's channel, and reports whether the
// lookup is over (its result in l.res).
//
//go:noinline
func (l *lookup) udp() bool {
	rep := l.rep
	switch {
	case rep.reason != ReasonNone: // a DNS-over-TLS server that cannot be asked (dot.go)
		l.unaskable(rep)
	case rep.msg == nil:
		if l.quick < maxQuickResends {
			l.quick++
			_, _ = l.send(rep.server, true) // on failure, the attempt's timeout stands
		}
	case rep.msg.Truncated && !rep.tcp:
		l.retryTCP(rep)
	default:
		return l.reply(rep)
	}
	return false
}

// unaskable fails rep's server, which could not be asked. It, retryTCP
// and reply are not inlined: results are large, and udp's frame is
// under the check that waits for the lookup.
//
//go:noinline
func (l *lookup) unaskable(rep *reply) {
	l.r.fail(rep.server, time.Now())
	l.fail(failure(rep.reason, rep.server))
}

// retryTCP asks the question of rep's server again over TCP, after its
// truncated reply rep, in a goroutine of its own (at most
// maxTCPPerServer per server).
//
//go:noinline
func (l *lookup) retryTCP(rep *reply) {
	if l.tcp == nil {
		ctx, stop := context.WithCancel(l.ctx)
		l.tcp = &tcpRetries{ctx: ctx, stop: stop,
			c:     make(chan *tcpResult, maxTCPPerServer*len(l.servers)), // never blocks a TCP goroutine
			tries: make([]int, len(l.servers))}
	}
	if l.tcp.tries[rep.server] < maxTCPPerServer {
		l.tcp.tries[rep.server]++
		c, tcpCtx, tcpc, server, q, deadline, r := l.c, l.tcp.ctx, l.tcp.c, l.servers[rep.server], l.query(), l.r.deadline, *rep
		go func() {
			m, reason := c.overTCP(tcpCtx, server, q, deadline)
			tcpc <- &tcpResult{rep: r, msg: m, reason: reason}
			l.kick()
		}()
	}
}

// tookTCP handles how a TCP retry ended, and reports whether the lookup
// is over (its result in l.res).
//
//go:noinline
func (l *lookup) tookTCP() bool {
	tr := l.tr
	if tr.msg == nil {
		if tr.reason != ReasonCanceled {
			l.fail(failure(tr.reason, tr.rep.server))
			l.errorFrom(tr.rep.server, tr.rep.seq)
		}
		return false
	}
	return l.reply(&reply{server: tr.rep.server, seq: tr.rep.seq, msg: tr.msg, tcp: true})
}

// reply takes a reply (not a truncated UDP one): the lookup's result, or
// its server's error. The result is worked out in the lookup's state,
// not in this frame.
//
//go:noinline
func (l *lookup) reply(rep *reply) bool {
	res := l.result()
	if l.c.take(l.name, l.qtype, rep, res) {
		l.finish()
		return true
	}
	l.errorReply(rep, res)
	return false
}

// errorReply notes res, the error reply rep of a server. Not inlined
// (see reply).
//
//go:noinline
func (l *lookup) errorReply(rep *reply, res *result) {
	l.fail(*res)
	if rep.tcp {
		l.r.fail(rep.server, time.Now()) // over TCP, the server's own word
	} else {
		l.errorFrom(rep.server, rep.seq)
	}
}

// maxTCPPerServer bounds the TCP retries of one lookup per server, so
// that forged truncated replies cannot make it open connections at will.
const maxTCPPerServer = 2

// tcpRetries are a lookup's TCP retries of truncated replies: their
// context, which the lookup's end cancels, where they hand their ends,
// and how many each server had. A lookup makes them at its first
// truncated reply (most never do).
type tcpRetries struct {
	ctx   context.Context
	stop  context.CancelFunc
	c     chan *tcpResult
	tries []int
}

// tcpResults is where the lookup's TCP retries hand their ends; nil (a
// channel no select takes) before the first.
func (l *lookup) tcpResults() chan *tcpResult {
	if l.tcp == nil {
		return nil
	}
	return l.tcp.c
}

// tcpResult is how the TCP retry of the truncated reply rep ended: its
// reply, or why there is none.
type tcpResult struct {
	rep    reply
	msg    *dns.Msg
	reason Reason
}

// release forgets the queries of a lookup: at once, or after
// tombstoneFor when the lookup took a UDP answer that a Cache may keep,
// so that a later reply that contradicts it evicts it (see
// waiter.decide).
func (c *Client) release(w *waiter, tickets []ticket) {
	if !w.tombstones() {
		for _, t := range tickets {
			t.release()
		}
		return
	}
	for _, t := range tickets {
		t.bury()
	}
	d := c.pool.tombstone
	if d <= 0 {
		d = tombstoneFor
	}
	c.pool.tombs.add(d, tickets)
}

// send is where every query of a lookup leaves: q to server (index idx in
// the lookup's list) as the lookup's query number seq, fresh asking for a
// socket of its own. The replies
// come on w, decoded and matched (see demux), until the ticket is
// released. Another transport (DNS over TLS) plugs in here: it delivers
// its replies to w the same way, and its ticket's release forgets the
// query.
func (c *Client) send(server string, idx, seq int, q *dns.Msg, w *waiter, fresh bool) (ticket, error) {
	return c.pool.send(server, idx, seq, q, w, fresh, c.Logger, c.udpSize())
}

// maxQuickResends bounds the questions one lookup asks again at once
// after a reply that matched but for the case or the cookie: enough for
// the Client to learn that a server does not echo the case
// (caseFallbackAfter), few enough that forged replies cannot make it
// flood the server.
const maxQuickResends = caseFallbackAfter

// drain takes an answer that arrived as the lookup ended, if one did
// (one that needs TCP is too late), returned as an answer result; else
// it returns last.
func (c *Client) drain(name string, qtype Type, w *waiter, last result) result {
	for {
		rep := w.take()
		if rep == nil {
			return last
		}
		if rep.msg == nil || rep.msg.Truncated {
			continue
		}
		if a, next := FromMsg(name, qtype, rep.msg); !retryable(a) {
			res := result{a: a, next: next, ttl: msgTTL(a, next, rep.msg), server: -1}
			if !rep.tcp {
				res.udp, res.from = rep.msg, int32(rep.server)
			}
			return res
		}
	}
}

// take turns one reply (not a truncated UDP one) into the lookup's
// result (done) or into the error of its server (not done), in *res.
func (c *Client) take(name string, qtype Type, rep *reply, res *result) (done bool) {
	*res = result{server: rep.server}
	res.next = fromMsg(&res.a, name, qtype, rep.msg) // into *res: no Answer in this frame
	if retryable(res.a) {
		res.next = ""
		return false
	}
	res.ttl, res.server = msgTTL(res.a, res.next, rep.msg), -1
	if !rep.tcp {
		res.udp, res.from = rep.msg, int32(rep.server)
	}
	return true
}

// prefer keeps the more telling of two error results: one whose Reason
// attributes the failure over one whose Reason does not, else the later.
func prefer(old, cur result) result {
	if old.a.Outcome == Inconclusive && old.a.Reason.telling() && !cur.a.Reason.telling() {
		return old
	}
	return cur
}

// giveUp is the result of a lookup no answer ended: the caller's
// cancellation; else the most telling error reply of a server; else
// ReasonMalformed when a datagram with the ID of an attempt was no DNS
// message (w: the server replied, with garbage; a forger would have to
// guess port and ID); else, when the deadline passed, ReasonSlow if the
// servers answered other questions meanwhile; else ReasonNetwork when an
// ICMP error reached every attempt (tickets), and ReasonTimeout
// otherwise. Neither hint ever ends a lookup early: a forger can send
// both.
// When the deadline passed, giveUp waits for ctx to report it, so that
// the layers above (Cache, Scan) see the lookup's end as its caller's.
func (c *Client) giveUp(ctx context.Context, r *retry, last result, start time.Time, tickets []ticket, w *waiter) result {
	if last.a.Outcome != Inconclusive && last.a.Outcome != "" {
		return last // drained: an answer came as the lookup ended
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return failure(ReasonCanceled, -1)
	}
	timedOut := ended(ctx)
	if timedOut {
		<-ctx.Done()
	}
	switch {
	case last.a.Outcome == Inconclusive:
		return last
	case r.attempts() == 0:
		return failure(ReasonCanceled, -1)
	case timedOut && c.pool.heard.Load() > start.UnixNano():
		// Before an undecodable datagram: anyone who guessed the port
		// and the ID can send one, while the resolver's answers to
		// other questions show it was still working on this one.
		return failure(ReasonSlow, -1)
	case w.undecodable.Load():
		return failure(ReasonMalformed, -1)
	case allICMP(tickets):
		return failure(ReasonNetwork, -1)
	}
	return failure(ReasonTimeout, -1)
}

// allICMP reports whether an ICMP error reached every attempt.
func allICMP(tickets []ticket) bool {
	for _, t := range tickets {
		if !t.icmp.Load() {
			return false
		}
	}
	return len(tickets) > 0
}

// ended reports whether the caller's context is done or its deadline has
// passed (a timer can fire a moment before ctx's own).
func ended(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

// overTCP asks q of server over TCP, after a truncated UDP reply (RFC
// 7766), within MaxAttemptTimeout (or Timeout when larger) and the
// deadline. It returns the reply or why there is none.
func (c *Client) overTCP(ctx context.Context, server string, q *dns.Msg, deadline time.Time) (*dns.Msg, Reason) {
	until := time.Now().Add(c.schedule().Max)
	if until.After(deadline) {
		until = deadline
	}
	ctx, cancel := context.WithDeadline(ctx, until)
	defer cancel()
	tq := q.Copy()
	tq.Id = randomID()
	m, err := c.roundTrip(ctx, server, tq)
	if err != nil {
		if r := transportReason(ctx, err); r == ReasonCanceled {
			return nil, r
		}
		return nil, ReasonTruncated
	}
	if m.Id != tq.Id || !m.Response || len(m.Question) != 1 || !sameQuestion(m.Question[0], tq.Question[0]) {
		return nil, ReasonMalformed
	}
	return m, ReasonNone
}

// roundTrip sends q over one TCP connection. The connection's deadline is
// pulled in when ctx ends, so that a canceled caller does not wait for
// the read timeout (miekg/dns only honours ctx's deadline).
func (c *Client) roundTrip(ctx context.Context, server string, q *dns.Msg) (*dns.Msg, error) {
	dc := &dns.Client{Net: "tcp", Timeout: c.schedule().Max}
	conn, err := dc.DialContext(ctx, server)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	m, _, err := dc.ExchangeWithConnContext(ctx, q, conn)
	return m, err
}

// transportReason classifies a TCP exchange error: the caller's
// cancellation, a timeout, a network failure (dial, refused, reset, early
// close) or, for anything else, a reply that could not be decoded.
func transportReason(ctx context.Context, err error) Reason {
	if errors.Is(ctx.Err(), context.Canceled) {
		return ReasonCanceled
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return ReasonTimeout
	}
	var oe *net.OpError
	if errors.As(err, &oe) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
		return ReasonNetwork
	}
	return ReasonMalformed
}
