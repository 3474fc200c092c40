package resolver

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/miekg/dns"
)

// Limits of the UDP sockets (see the package doc, "Sockets and
// spoofing").
const (
	// slotsPerServer is how many sockets to one server take new queries
	// at a time; a query takes one of them at random, under that slot's
	// own lock, so that no one lock or socket serializes the sends.
	slotsPerServer = 16
	// socketBatch is how many queries one socket carries: after that it
	// takes no new one and closes once its last one ends, so that a port
	// serves a small batch of queries (RFC 5452 §9.2) and a port someone
	// learned is of no use for long.
	socketBatch = 8
	// socketMaxAge retires a socket that has not carried its batch after
	// this long, for the same reason.
	socketMaxAge = 2 * time.Second
	// datagramOverhead is what a datagram costs in a socket's receive
	// buffer beyond its bytes, at the least: the kernel charges each its
	// buffer's whole size and its bookkeeping (hundreds of bytes more),
	// so a count with this overhead never makes a buffer look fuller than
	// it was (see socket.noteDrops).
	datagramOverhead = 256
	// floodShare: a socket at which the kernel dropped datagrams while
	// its buffer was at least 1/floodShare full is taken as flooded (see
	// socket.noteDrops). A reply is dropped only when the buffer cannot
	// take it, so a flood that keeps one out fills it; half leaves room
	// for what the reader's estimate of a past fill misses.
	floodShare = 2
	// socketIdle closes a socket that had no query in flight for this
	// long.
	socketIdle = time.Second
	// socketReadBuffer is the receive buffer asked for a socket, so that
	// a burst of forged datagrams does not push the real reply out.
	socketReadBuffer = 256 << 10
	// minReadBuffer is the smallest reply a socket reads whole, whatever
	// EDNS0 size was advertised.
	minReadBuffer = 4096
	// replyQueue is the reply buffer of one lookup; a reader never
	// blocks on a lookup: replies past it are dropped (a lookup reads
	// them as they come, and each attempt needs one).
	replyQueue = 16
	// sendTries bounds the sockets one send tries when each of their
	// writes reports an ICMP error.
	sendTries = 3
	// caseFallbackAfter is how many replies in a row that match a query
	// but for the case of its name make the Client ask the server over
	// TCP whether it echoes the case (0x20).
	caseFallbackAfter = 3
	// caseFallbackFor is how long a server that does not echo the case
	// gets its questions in lower case and its replies matched in any
	// case; then 0x20 is tried again.
	caseFallbackFor = 10 * time.Minute
	// cookieFallbackAfter is how many replies in a row without a DNS
	// cookie make the Client ask a server that sent cookies over TCP
	// whether it still does.
	cookieFallbackAfter = 3
	// missDecay restarts the count of replies in a row without the case
	// or the cookie when the last one is older than this.
	missDecay = time.Minute
	// probeTimeout bounds the TCP question that confirms a server does
	// not echo the case or no longer sends cookies.
	probeTimeout = 5 * time.Second
	// logEvery rate-limits the Logger's lines about one server.
	logEvery = time.Minute
	// clientCookieLen is the length of a client cookie (RFC 7873 §4).
	clientCookieLen = 8
	// cookieRotate is how long a client cookie is used for new queries
	// (RFC 7873 §4.1); queries in flight keep the cookie they were sent
	// with.
	cookieRotate = time.Hour
	// tombstoneFor is how long the queries of a lookup that took a UDP
	// answer stay registered after it ends: a later reply to one of them
	// with another answer evicts the answer from the Cache. It outlasts
	// Unbound's discard-timeout (1.9 s), after which Unbound no longer
	// answers a query.
	tombstoneFor = 2 * time.Second
)

// dropKind says why a datagram, or an ICMP error, was not taken as a
// reply.
type dropKind uint8

// The kinds of dropped datagrams (see SpoofDropKinds).
const (
	dropNone          dropKind = iota // taken as a reply
	dropUnmatchedID                   // no query in flight on the socket carries its ID
	dropUndecodable                   // not a DNS message (or shorter than a header)
	dropWrongQuestion                 // not a response to the query, or another question
	dropWrongCase                     // the query's question in another case (0x20)
	dropWrongCookie                   // a client cookie that is not ours
	dropNoCookie                      // no cookie from a server that sends them
	dropWrongSource                   // from another address or port than the server's
	dropICMP                          // an ICMP error (port, host or network unreachable)
	numDropKinds
)

// dropNames are the kinds' names as SpoofDrops reports them; dropNoCookie
// counts as wrong_cookie.
var dropNames = [numDropKinds]string{
	dropUnmatchedID: "unmatched_id", dropUndecodable: "undecodable", dropWrongQuestion: "wrong_question",
	dropWrongCase: "wrong_case", dropWrongCookie: "wrong_cookie", dropNoCookie: "wrong_cookie",
	dropWrongSource: "wrong_source", dropICMP: "icmp",
}

// SpoofDropKinds returns the kinds [Client.SpoofDrops] counts, in a
// stable order:
//
//   - unmatched_id: a datagram whose ID no query in flight on its socket
//     carries (a late reply to a lookup that ended, or a blind guess);
//   - undecodable: a datagram carrying a query's ID that is no DNS message;
//   - wrong_question: one that carries a query's ID but is no response to
//     it, or asks another question (RFC 5452 §9.1);
//   - wrong_case: one that asks the query's question in another case
//     (0x20) than it was sent in;
//   - wrong_cookie: one whose DNS cookie is not the client's, or without a
//     cookie from a server that sends them (RFC 7873);
//   - wrong_source: one from another address or port than the server's;
//   - icmp: an ICMP error (port, host or network unreachable), which
//     names no query and is never taken as the server's word.
func SpoofDropKinds() []string {
	out := make([]string, 0, numDropKinds)
	for _, n := range dropNames {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// reply is what a socket's reader hands to the lookup that registered the
// query: a decoded message that matches it, or (msg nil) a request to ask
// the server again at once, on a fresh socket, because a reply matched
// the query but for the case of its name or its cookie (the server may
// not echo the case, or may have stopped sending cookies).
type reply struct {
	server int // index of the server in the lookup's list
	seq    int // the lookup's number of the query it answers
	msg    *dns.Msg
	tcp    bool // msg came over TCP or TLS (which an off-path forger cannot answer)
	// reason: no msg, the server could not be asked (a DNS-over-TLS
	// connection refused or not verified); ReasonNone otherwise.
	reason Reason
}

// waiter receives the replies to every attempt of one lookup, and what
// its sockets saw besides.
type waiter struct {
	// queue holds the replies delivered and not yet taken, oldest first,
	// at most replyQueue (see deliver), under mu. Pointers: what a lookup
	// receives is not copied into the frame it waits in. It is allocated
	// with the first reply: most lookups in flight are waiting for
	// theirs, and a buffer each, made ahead, would sit on the heap for
	// all of them.
	queue []*reply
	// tainted: a datagram was dropped that carried the ID of one of the
	// lookup's queries, or that a socket carrying one of them could not
	// match, or an ICMP error reached such a socket; its answer is not
	// cached (see Client.LookupTTL).
	tainted atomic.Bool
	// undecodable: a datagram with the ID of one of its queries was no
	// DNS message.
	undecodable atomic.Bool
	// salt is the Client's digest salt (see answerKey), set before the
	// lookup's first query is sent.
	salt *digestSalt
	// conflict, when set, is told (once) when a reply comes after the
	// lookup took a UDP answer and contradicts it (see decide): the
	// Cache's hook itself, held without a closure around it, which each
	// tombstone would keep for tombstoneFor.
	conflict conflicter
	// kick, when set, moves the lookup on once a reply is queued on ch
	// (see lookup.kick). Set before the lookup's first query is sent;
	// cleared by decide, under mu.
	kick func()

	mu      sync.Mutex
	decided bool // the lookup ended: replies are compared, not queued
	// took: the lookup took a UDP reply whose answer a Cache may keep
	// (conflict set); takenKey is the digest of its conclusiveKey, and
	// takenFrom and takenAD the server it came from and its AD bit: all
	// that a later reply is compared with. A digest, not the reply: it
	// is kept for tombstoneFor after the lookup, and under load tens of
	// thousands of lookups are in that time (the reply's records, a
	// DKIM key among them, would be most of the service's heap).
	took       bool
	takenAD    bool
	conflicted bool
	takenFrom  int32
	takenKey   answerKey
}

// takenReply is what a lookup keeps of the UDP reply it took (see
// waiter.digest).
type takenReply struct {
	took bool
	ad   bool
	from int32
	key  answerKey
}

// conflicter is told that a reply contradicted the answer a lookup took
// (the Cache's hook, see cacheHook.conflict).
type conflicter interface{ conflict() }

// answerKey is the first 128 bits of the SHA-256 digest of a secret
// salt followed by a reply's conclusiveKey: two replies agree when their
// digests are equal. A forger who wants a forgery to survive the real
// reply needs records of its own with the digest of the real ones. When
// it can publish a record into the real answer (a name it shares with
// its victim), it chooses part of both, and 128 bits would yield to a
// birthday search, 2^64 digests, offline; the salt, drawn at random by
// each Client (pool.digestSalt) and never sent, leaves nothing to search
// offline. Half the digest keeps a waiter, which every tombstone holds,
// within 96 bytes.
type answerKey [answerKeyLen]byte

// answerKeyLen is the length of an answerKey, and of its salt.
const answerKeyLen = 16

// keyStackBuf is the room keyOf makes on its stack for the salt and the
// key: most keys (a few records) fit, and a longer one goes to the heap.
// Not a bound on a key (no RFC sets one; a reply is at most 64 KiB, RFC
// 1035 §4.2.2).
const keyStackBuf = 512

// digestSalt is the secret an answerKey's digest begins with.
type digestSalt [answerKeyLen]byte

// keyOf returns the digest of k, a conclusiveKey, under salt (nil: none;
// only a waiter below a Cache digests, and its lookup sets the salt, so
// nil is for waiters that tests make alone).
func keyOf(salt *digestSalt, k string) answerKey {
	var buf [keyStackBuf]byte
	b := buf[:0]
	if salt != nil {
		b = append(b, salt[:]...)
	}
	sum := sha256.Sum256(append(b, k...))
	return answerKey(sum[:answerKeyLen])
}

func newWaiter() *waiter { return &waiter{} }

// deliver hands r to the lookup without ever blocking the reader; once
// the lookup has ended, a reply is compared with the one it took.
func (w *waiter) deliver(r reply) {
	w.mu.Lock()
	if !w.decided {
		if len(w.queue) < replyQueue {
			w.queue = append(w.queue, &r)
		}
		kick := w.kick
		w.mu.Unlock()
		if kick != nil {
			kick()
		}
		return
	}
	w.mu.Unlock()
	w.compare(&r)
}

// probeWorthy reports whether a TCP probe's reply would be of use to the
// lookup: it has not ended, or it took a UDP answer, which the probe's
// reply is compared with (a forgery the server's late reply in the wrong
// case showed up is evicted by it). Either way the probe also decides
// for the server as a whole (see probe).
func (w *waiter) probeWorthy() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.decided || w.took
}

// take returns the oldest reply delivered and not yet taken, or nil.
func (w *waiter) take() *reply {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(w.queue)
	if n == 0 {
		return nil
	}
	r := w.queue[0]
	copy(w.queue, w.queue[1:])
	w.queue[n-1] = nil
	w.queue = w.queue[:n-1]
	return r
}

// decide ends the lookup: taken is the UDP reply it took (nil: none, or
// one over TCP), from the server with index from. Replies queued or
// still to come to its queries are compared with taken (see compare).
func (w *waiter) decide(taken *dns.Msg, from int) { w.settle(w.digest(taken, from)) }

// digest returns what the lookup keeps of taken, the UDP reply it takes
// (nil: none), for its tombstones' time: the digest of what compare
// reads, and only when there is a Cache to tell (conflict, set before the
// lookup's first query and never after). It is worked out before the
// lookup reads its taint (lookup.finish): a copy of the reply that comes
// meanwhile still taints the answer.
func (w *waiter) digest(taken *dns.Msg, from int) takenReply {
	if taken == nil || w.conflict == nil {
		return takenReply{}
	}
	t := takenReply{took: true, ad: taken.AuthenticatedData, from: int32(from)}
	k, ok := safeKey(taken)
	if !ok {
		k = brokenKey
	}
	t.key = keyOf(w.salt, k)
	return t
}

// Forms that no reply makes.
const (
	// brokenKey stands for a taken reply whose key could not be worked
	// out (safeKey): a reply's key begins with its RCODE (0 or 3), so
	// none equals it, and the next conclusive reply evicts the answer.
	brokenKey = "\xfe"
	// unpackedPrefix begins the form of a record that does not pack
	// (canonicalRR): a packed record begins with its owner name's first
	// length byte (at most 63) or the root's 0, so it equals none.
	unpackedPrefix = "\xff"
)

// settle ends the lookup with what digest returned; see decide.
func (w *waiter) settle(t takenReply) {
	w.mu.Lock()
	// kick goes too: it holds the lookup, and with it everything that
	// waited for it (the scan's state), which the tombstones would keep
	// for tombstoneFor.
	w.decided, w.kick = true, nil
	w.took, w.takenKey, w.takenFrom, w.takenAD = t.took, t.key, t.from, t.ad
	// Nothing is queued once decided is set, and the lookup has ended:
	// the queue goes now, not with the waiter when its tombstones are
	// released (tombstoneFor later; under load, thousands of waiters at
	// once).
	queued := w.queue
	w.queue = nil
	w.mu.Unlock()
	for _, r := range queued {
		w.compare(r)
	}
}

// tombstones reports whether the lookup's queries should stay registered
// after it ended: it took a UDP answer that a later reply may contradict.
func (w *waiter) tombstones() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.took
}

// compare checks a reply r that came after the lookup took its UDP
// answer: a conclusive reply (NOERROR or NXDOMAIN, not truncated) with
// other records than the taken one, or, from the server the taken one
// came from, with another AD bit, means that one of the two was forged
// (or that the records changed meanwhile), and the answer is dropped
// from the cache (conflict). The AD bit is compared with the same
// server's replies only: a lookup's attempts may go to a validating
// resolver and to one that is not, and a forger's reply is contradicted
// by the server it pretends to be. Replies to the same question that
// agree, and error replies, are ignored.
func (w *waiter) compare(r *reply) {
	w.mu.Lock()
	took, taken, from, ad, call, done := w.took, w.takenKey, w.takenFrom, w.takenAD, w.conflict, w.conflicted
	w.mu.Unlock()
	if !took || done {
		return
	}
	k, ok := safeKey(r.msg)
	switch {
	case !ok: // it cannot be compared: it contradicts
	case k == "":
		return // it concludes nothing
	case keyOf(w.salt, k) != taken: // other records
	case int32(r.server) == from && r.msg.AuthenticatedData != ad: // the same server's other word on them
	default:
		return // it agrees
	}
	w.mu.Lock()
	done, w.conflicted = w.conflicted, true
	w.mu.Unlock()
	if !done {
		call.conflict()
	}
}

// suspect evicts the answer the lookup took, as a contradicting reply
// would (see compare), once it has ended with one that a Cache keeps:
// the port of one of its queries was flooded, which may have kept that
// reply out (see socket.noteDrops). It costs one more question later.
func (w *waiter) suspect() {
	w.mu.Lock()
	call := w.conflict
	if !w.took || w.conflicted {
		w.mu.Unlock()
		return
	}
	w.conflicted = true
	w.mu.Unlock()
	call.conflict()
}

// safeKey is conclusiveKey, and reports whether it returned: it runs on
// the goroutine that read the reply, where a panic (a record the DNS
// library cannot pack again) would end the process; the caller then
// takes the reply as contradicting the answer (an eviction, one more
// question later).
func safeKey(m *dns.Msg) (k string, ok bool) {
	defer func() {
		if !ok {
			_ = recover()
		}
	}()
	return conclusiveKey(m), true
}

// conclusiveKey is what two replies to one question must share to agree
// (besides the AD bit, see compare): the RCODE, whether an Extended DNS
// Error says that the resolver's policy made the answer (edeOverrides:
// the answer then reads as inconclusive), whether the authority section
// has a SOA record (it makes a reply that stops at an alias final), and
// the answer section's records in canonical form (canonicalRR), in any
// order: everything of the reply that the answer is made of (fromMsg)
// but the TTLs. It is "" for a reply that concludes nothing (nil,
// truncated, or an error RCODE).
func conclusiveKey(m *dns.Msg) string {
	if m == nil || m.Truncated || m.Rcode != dns.RcodeSuccess && m.Rcode != dns.RcodeNameError {
		return ""
	}
	rrs := make([]string, 0, len(m.Answer))
	for _, rr := range m.Answer {
		rrs = append(rrs, canonicalRR(rr))
	}
	slices.Sort(rrs)
	var b strings.Builder
	b.WriteByte(byte(m.Rcode))
	b.WriteByte(flagByte(edeOverrides(edeOf(m))))
	b.WriteByte(flagByte(hasSOA(m.Ns)))
	for _, rr := range rrs {
		// Each record after its length (four bytes: a record compared
		// by its fields may be longer than a packed one): no two lists
		// of records make the same key.
		b.WriteByte(byte(len(rr) >> 24))
		b.WriteByte(byte(len(rr) >> 16))
		b.WriteByte(byte(len(rr) >> 8))
		b.WriteByte(byte(len(rr)))
		b.WriteString(rr)
	}
	return b.String()
}

// flagByte is 1 for true, 0 for false.
func flagByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// canonicalRR returns rr in wire form without its TTL, which falls
// between two replies, and with its owner name and the domain names in
// its data lower-cased (RFC 4034 §6.2 for the types an answer to the
// checks' questions holds; a resolver's reply echoes the 0x20 case of
// the query it answers, and each query of a lookup has its own): every
// other byte as received, so that a TXT string (a DKIM key's base64) in
// another case is another record. The DNS library holds a CAA value and
// a URI target as the raw bytes received but packs them as presentation
// text (a backslash escapes, a trailing one is dropped), so their
// backslashes are escaped first: a value with one is not packed as
// another value's bytes. A record that does not pack is compared by its
// fields, prefixed so that it equals no packed record.
func canonicalRR(rr dns.RR) string {
	cp := dns.Copy(rr)
	h := cp.Header()
	h.Name, h.Ttl = strings.ToLower(h.Name), 0
	switch r := cp.(type) {
	case *dns.CNAME:
		r.Target = strings.ToLower(r.Target)
	case *dns.DNAME:
		r.Target = strings.ToLower(r.Target)
	case *dns.NS:
		r.Ns = strings.ToLower(r.Ns)
	case *dns.PTR:
		r.Ptr = strings.ToLower(r.Ptr)
	case *dns.MX:
		r.Mx = strings.ToLower(r.Mx)
	case *dns.SRV:
		r.Target = strings.ToLower(r.Target)
	case *dns.SOA:
		r.Ns, r.Mbox = strings.ToLower(r.Ns), strings.ToLower(r.Mbox)
	case *dns.CAA:
		r.Value = strings.ReplaceAll(r.Value, `\`, `\\`)
	case *dns.URI:
		r.Target = strings.ReplaceAll(r.Target, `\`, `\\`)
	}
	buf := make([]byte, dns.Len(cp))
	off, err := dns.PackRR(cp, buf, 0, nil, false)
	if err != nil {
		return fmt.Sprintf("%s%T%#v", unpackedPrefix, cp, cp)
	}
	return string(buf[:off])
}

// entry is one query registered on a socket, under its ID. A socket
// keeps a batch of them, and under load most are tombstones (kept
// tombstoneFor after their lookup ended), so an entry holds only what a
// reply is matched and handed on with, in as few bytes as its fields
// pack into (64): not the packed query, which is sent and let go (see
// pool.send; a probe builds its own, see askOverTCP).
type entry struct {
	name   string // the question's name as sent: in the case the query carried
	qtype  uint16
	qclass uint16
	id     uint16 // the ID it was sent under (see socket.register)
	exact  bool   // the reply must carry the name byte for byte (0x20)
	cd     bool   // the query's CD bit (see askOverTCP)
	server int32  // the index of its server in the lookup's list
	seq    int32  // the lookup's number of the query
	// replied: a reply to it was taken (see socket.replied). tomb: the
	// query's lookup has ended; the query stays registered for its
	// tombstone (see Client.release).
	replied, tomb bool
	udpSize       uint16        // the EDNS UDP size the query advertised (0: no EDNS; see askOverTCP)
	cookie        *clientCookie // the client cookie sent (shared: one per server and hour)
	w             *waiter
	// icmp is set when an ICMP error reaches the query's socket while it
	// is in flight (or every send of it met one).
	icmp *atomic.Bool
}

// cookieHex returns the client cookie e was sent with, in hex ("" when
// it carried none).
func (e *entry) cookieHex() string {
	if e.cookie == nil {
		return ""
	}
	return e.cookie.hex
}

// question returns the question e asked, its name as sent.
func (e *entry) question() dns.Question {
	return dns.Question{Name: e.name, Qtype: e.qtype, Qclass: e.qclass}
}

// pool holds a Client's sockets and what it learned of each server. Its
// zero value is ready to use.
type pool struct {
	servers sync.Map     // server address → *upstream
	heard   atomic.Int64 // UnixNano of the latest reply taken from any server
	drops   [numDropKinds]atomic.Uint64
	// tombstone overrides tombstoneFor (tests); 0: tombstoneFor.
	tombstone time.Duration
	// batch overrides socketBatch (tests); 0: socketBatch.
	batch int
	// watch reads the pool's sockets (Linux; see socket.open).
	watch watcher
	// tombs releases the tombstones of ended lookups.
	tombs tombQueue
	// salt is what the digests of taken answers begin with (see
	// answerKey), drawn at the first lookup below a Cache.
	salt atomic.Pointer[digestSalt]
	// readers gives each socket a reader goroutine of its own until it
	// holds tombstones only, as where there is no watcher (tests).
	readers bool
}

// digestSalt returns the pool's digest salt, drawn at random on first
// use.
func (p *pool) digestSalt() *digestSalt {
	if s := p.salt.Load(); s != nil {
		return s
	}
	s := new(digestSalt)
	_, _ = rand.Read(s[:]) // crypto/rand.Read never fails (Go 1.24+)
	p.salt.CompareAndSwap(nil, s)
	return p.salt.Load()
}

// count counts one dropped datagram or ICMP error.
func (p *pool) count(k dropKind) { p.drops[k].Add(1) }

// spoofDrops returns the drops by kind name.
func (p *pool) spoofDrops() map[string]uint64 {
	out := make(map[string]uint64, numDropKinds)
	for _, n := range SpoofDropKinds() {
		out[n] = 0
	}
	for k := dropUnmatchedID; k < numDropKinds; k++ {
		out[dropNames[k]] += p.drops[k].Load()
	}
	return out
}

// upstream is one server: its sockets and what the Client learned of it.
type upstream struct {
	pool    *pool
	addr    string
	log     *slog.Logger // nil: none
	bufSize int
	bufs    sync.Pool // of *[]byte of bufSize: the sockets' read buffers, shared
	slots   [slotsPerServer]slot

	caseMiss    atomic.Int32 // replies in a row that matched but for the case
	caseMissAt  atomic.Int64 // UnixNano of the latest
	noCaseUntil atomic.Int64 // UnixNano: no 0x20 for this server until then

	cookie       atomic.Pointer[clientCookie] // the client cookie new queries carry
	serverCookie atomic.Pointer[string]       // hex, the latest the server sent for it
	cookies      atomic.Bool                  // the server sends cookies: require ours back
	cookieMiss   atomic.Int32                 // replies in a row without one
	cookieMissAt atomic.Int64                 // UnixNano of the latest

	probing  atomic.Bool               // a TCP question confirming a fallback is under way
	loggedAt [numLogLines]atomic.Int64 // UnixNano of the latest log line of each kind
}

// logLineKind names the lines the Logger gets about a server.
type logLineKind uint8

const (
	logNoCase        logLineKind = iota // 0x20 switched off
	logCaseForged                       // wrong-case UDP replies, but TCP echoes the case
	logNoCookies                        // cookie checking switched off
	logCookiesForged                    // cookieless UDP replies, but TCP has cookies
	numLogLines
)

// clientCookie is a client cookie (RFC 7873 §4.1) and when it was drawn.
type clientCookie struct {
	hex  string
	born time.Time
}

// newClientCookie draws a random client cookie.
func newClientCookie() *clientCookie {
	var c [clientCookieLen]byte
	_, _ = rand.Read(c[:]) // crypto/rand.Read never fails (Go 1.24+)
	return &clientCookie{hex: hex.EncodeToString(c[:]), born: time.Now()}
}

// clientCookie returns the client cookie for a new query: a new one once
// the current one is cookieRotate old, which forgets the server cookie
// (the server computes it from the client cookie, RFC 7873 §4.2). Queries
// in flight keep the one they were sent with.
func (u *upstream) clientCookie() *clientCookie {
	cur := u.cookie.Load()
	if time.Since(cur.born) < cookieRotate {
		return cur
	}
	if u.cookie.CompareAndSwap(cur, newClientCookie()) {
		u.serverCookie.Store(nil)
	}
	return u.cookie.Load()
}

// slot holds the socket that takes new queries in its turn.
type slot struct {
	mu sync.Mutex
	s  *socket
}

// upstream returns the state of server, made on first use.
func (p *pool) upstream(server string, log *slog.Logger, udpSize uint16) *upstream {
	if u, ok := p.servers.Load(server); ok {
		return u.(*upstream)
	}
	u := &upstream{pool: p, addr: server, log: log, bufSize: max(int(udpSize), minReadBuffer)}
	u.cookie.Store(newClientCookie())
	got, _ := p.servers.LoadOrStore(server, u)
	return got.(*upstream)
}

// tombQueue releases the queries of ended lookups a time after they were
// buried (tombstoneFor), in the order they were buried, from one timer:
// no timer, and no goroutine when it fires, per lookup (under load
// thousands of lookups end each second, each keeping its tombstones for
// two seconds). Each waits the pool's one tombstone time, so the queue
// is in the order its entries fall due; an entry queued behind a later
// one (the time changed, in tests) is released with it, never before its
// time. It holds one flat entry per query, 24 bytes: not the lookup's
// tickets, nor a time.Time, which would add 48 bytes to each tombstone
// (tens of thousands of them under load). Its zero value is ready to use.
type tombQueue struct {
	mu    sync.Mutex
	epoch time.Time // what dues count from (its monotonic reading), set at the first add
	queue []tomb    // in the order buried; the first falls due first
	timer *time.Timer
	armed bool // the timer is set for the first entry
}

// tomb is one query of an ended lookup, kept until due.
type tomb struct {
	due time.Duration // since the queue's epoch
	s   *socket
	id  uint16
}

// add releases the queries of tickets after d.
func (q *tombQueue) add(d time.Duration, tickets []ticket) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.epoch.IsZero() {
		q.epoch = time.Now()
	}
	due := time.Since(q.epoch) + d
	n := len(q.queue)
	for _, t := range tickets {
		if t.s != nil {
			q.queue = append(q.queue, tomb{due: due, s: t.s, id: t.id})
		}
	}
	if len(q.queue) == n || q.armed {
		return
	}
	q.armed = true
	if q.timer == nil {
		q.timer = time.AfterFunc(d, q.fire)
		return
	}
	q.timer.Reset(d)
}

// fire releases the entries that are due and sets the timer for the next.
func (q *tombQueue) fire() {
	q.mu.Lock()
	now := time.Since(q.epoch)
	n := 0
	for n < len(q.queue) && q.queue[n].due <= now {
		n++
	}
	due := make([]tomb, n)
	copy(due, q.queue[:n])
	clear(q.queue[:n]) // the slice's array keeps no released socket
	q.queue = q.queue[n:]
	if len(q.queue) > 0 {
		q.timer.Reset(q.queue[0].due - now)
	} else {
		q.armed = false
	}
	q.mu.Unlock()
	for _, t := range due {
		t.s.release(t.id)
	}
}

// ticket is one registered query: the socket it went out on and its ID
// (s nil: every send of it met an ICMP error).
type ticket struct {
	s    *socket
	id   uint16
	icmp *atomic.Bool
}

// bury marks t's query as a tombstone (see socket.bury).
func (t ticket) bury() {
	if t.s != nil {
		t.s.bury(t.id)
	}
}

// release forgets t's query; later replies to it are dropped.
func (t ticket) release() {
	if t.s != nil {
		t.s.release(t.id)
	}
}

// errICMPSend is the error of a send whose every try met an ICMP error:
// the attempt is taken as sent and lost.
var errICMPSend = errors.New("resolver: every send met an ICMP error")

// send registers q, the lookup's query number seq, under a fresh random
// ID on a socket to server and sends it: its name in random case (0x20)
// unless the server does not echo the case, with the Client's DNS
// cookie. fresh asks for a socket of its own, on a new port. A send that
// reports an ICMP error is tried again on a new socket, up to sendTries
// times; then errICMPSend.
func (p *pool) send(server string, idx, seq int, q *dns.Msg, w *waiter, fresh bool, log *slog.Logger, udpSize uint16) (ticket, error) {
	u := p.upstream(server, log, udpSize)
	var e entry
	wire, err := u.entry(q, idx, w, &e)
	if err != nil {
		return ticket{}, err
	}
	e.seq = int32(seq)
	for try := 0; try < sendTries; try++ {
		s, id, err := u.register(&e, fresh || try > 0)
		if err != nil {
			return ticket{}, err
		}
		err = s.write(id, wire)
		if err == nil {
			return ticket{s, id, e.icmp}, nil
		}
		if !icmpError(err) {
			s.release(id)
			return ticket{}, fmt.Errorf("resolver: send query: %w", err)
		}
		// A pending ICMP error, reported by this write: the datagram did
		// not leave. The query goes, and the error is taken as the reader
		// takes one (socket.icmp) for the others on the port, which is
		// retired: the next try takes a new one.
		s.release(id)
		s.icmp()
	}
	e.icmp.Store(true)
	return ticket{icmp: e.icmp}, errICMPSend
}

// entry builds the query q for u into e, and returns it packed with ID
// 0: a copy with its name in random case (unless u does not echo it)
// and the cookie option. The packed query is the caller's alone: it is
// sent, and not kept (see entry).
func (u *upstream) entry(q *dns.Msg, idx int, w *waiter, e *entry) ([]byte, error) {
	asked := q.Question[0]
	exact := u.caseOn()
	if exact {
		asked.Name = mixCase(asked.Name)
	}
	cookie := u.clientCookie()
	m := *q
	m.Id = 0
	m.Question = []dns.Question{asked}
	m.Extra = u.withCookie(q.Extra, cookie.hex)
	b, err := m.Pack()
	if err != nil {
		return nil, fmt.Errorf("resolver: pack query: %w", err)
	}
	*e = entry{name: asked.Name, qtype: asked.Qtype, qclass: asked.Qclass, exact: exact, cd: q.CheckingDisabled,
		server: int32(idx), cookie: cookie, w: w, icmp: new(atomic.Bool)}
	if opt := q.IsEdns0(); opt != nil {
		e.udpSize = opt.UDPSize()
	}
	return b, nil
}

// caseOn reports whether u gets 0x20 questions.
func (u *upstream) caseOn() bool { return time.Now().UnixNano() >= u.noCaseUntil.Load() }

// withCookie returns extra with the COOKIE option (RFC 7873 §4) set in
// its OPT record: the client cookie client, and the server cookie once
// known.
func (u *upstream) withCookie(extra []dns.RR, client string) []dns.RR {
	out := slices.Clone(extra)
	for i, rr := range out {
		opt, ok := rr.(*dns.OPT)
		if !ok {
			continue
		}
		cookie := client
		if sc := u.serverCookie.Load(); sc != nil {
			cookie += *sc
		}
		o := &dns.OPT{Hdr: opt.Hdr, Option: make([]dns.EDNS0, 0, len(opt.Option)+1)}
		for _, eo := range opt.Option {
			if eo.Option() != dns.EDNS0COOKIE {
				o.Option = append(o.Option, eo)
			}
		}
		o.Option = append(o.Option, cookieOption(cookie))
		out[i] = o
	}
	return out
}

// cookieOption is the COOKIE option carrying cookie (hex), decoded once
// here: an EDNS0_COOKIE decodes its hex each time a message is measured
// and packed, deep under the lookup that sends it. The wire form is the
// same; a cookie that is not hex stays an EDNS0_COOKIE, whose packing
// fails as before.
func cookieOption(cookie string) dns.EDNS0 {
	b, err := hex.DecodeString(cookie)
	if err != nil {
		return &dns.EDNS0_COOKIE{Code: dns.EDNS0COOKIE, Cookie: cookie}
	}
	return &dns.EDNS0_LOCAL{Code: dns.EDNS0COOKIE, Data: b}
}

// mixCase returns name with each ASCII letter in a random case (the "0x20"
// bits of draft-vixie-dnsext-dns0x20): one unpredictable bit per letter
// that a forged reply must echo.
func mixCase(name string) string {
	b := []byte(name)
	bits := make([]byte, (len(b)+7)/8)
	_, _ = rand.Read(bits) // crypto/rand.Read never fails (Go 1.24+)
	for i, c := range b {
		lower := c | 0x20
		if lower < 'a' || lower > 'z' {
			continue
		}
		if bits[i/8]>>(i%8)&1 == 1 {
			b[i] = lower &^ 0x20
		} else {
			b[i] = lower
		}
	}
	return string(b)
}

// register reserves a fresh random ID for e on one of u's sockets: a new
// one of its own when fresh, else the socket of a random slot, or a new
// one that becomes the slot's when it has none that takes queries. The
// slot's lock is held only to take its socket: a new socket is opened
// without it.
func (u *upstream) register(e *entry, fresh bool) (*socket, uint16, error) {
	sl := &u.slots[randomInt(slotsPerServer)]
	if !fresh {
		sl.mu.Lock()
		if s := sl.s; s != nil {
			if id, ok := s.register(e); ok {
				sl.mu.Unlock()
				return s, id, nil
			}
			sl.s = nil // retired or closed: the slot takes a new one
		}
		sl.mu.Unlock()
	}
	limit := socketBatch
	if u.pool.batch > 0 {
		limit = u.pool.batch
	}
	if fresh {
		limit = 1
	}
	s, err := u.dial(limit)
	if err != nil {
		return nil, 0, err
	}
	id, _ := s.register(e) // a new socket takes its first query
	if !fresh {
		sl.mu.Lock()
		installed := sl.s == nil
		if installed {
			sl.s = s
		}
		sl.mu.Unlock()
		if !installed {
			s.retire() // another query filled the slot meanwhile: this socket carries e alone
		}
	}
	return s, id, nil
}

// dial opens a connected UDP socket to u on a random local port, for at
// most limit queries, and has it read (see open). The socket is opened
// on a goroutine of its own, not on the caller's: the caller is a
// lookup, under every resolver layer and check above it, and the dial's
// deep calls into the network stack would grow its stack past its
// smaller size for good.
func (u *upstream) dial(limit int) (*socket, error) {
	s := &socket{up: u, limit: limit, pending: make([]entry, 0, limit)}
	opened := make(chan error, 1)
	go s.open(opened)
	if err := <-opened; err != nil {
		return nil, err
	}
	return s, nil
}

// open dials s, reports how that went on opened, and has s read when it
// is open: by the pool's watcher on Linux, which reads every socket of
// the pool from one goroutine and hands a socket with datagrams queued
// to a goroutine that lives while it handles them (a reader goroutine
// each would cost more memory than the lookups in flight: thousands of
// sockets wait at once under load); where there is no watcher, or it
// cannot take s, by a reader of its own on this goroutine (see read).
func (s *socket) open(opened chan<- error) {
	raddr, err := net.ResolveUDPAddr("udp", s.up.addr)
	if err != nil {
		opened <- fmt.Errorf("resolver: server address: %w", err)
		return
	}
	conn, err := net.DialUDP("udp", nil, raddr)
	if err != nil {
		opened <- fmt.Errorf("resolver: dial: %w", err)
		return
	}
	_ = conn.SetReadBuffer(socketReadBuffer) // best effort: the kernel caps it at net.core.rmem_max
	acceptAll(conn)
	peer := conn.RemoteAddr().(*net.UDPAddr).AddrPort()
	s.conn, s.peer, s.born = conn, netip.AddrPortFrom(peer.Addr().Unmap(), peer.Port()), time.Now()
	s.scope = peerScope(conn)
	if !s.up.pool.readers && s.up.pool.watch.add(s) {
		opened <- nil
		return
	}
	opened <- nil
	s.read()
}

// socket is one connected UDP socket to one server, on a port the kernel
// chose at random, for a small batch of queries. A connected socket only
// receives datagrams whose source address and port are the server's; the
// reader matches each to a query by ID, question, case and cookie (demux)
// and drops what matches none.
type socket struct {
	up   *upstream
	conn *net.UDPConn
	peer netip.AddrPort
	// scope is the scope ID of the connected peer as the kernel holds
	// it (the interface of a link-local server; 0: none), for the
	// watcher's source check.
	scope uint32
	born  time.Time
	limit int

	mu      sync.Mutex
	pending []entry // a few: a slice, searched, is smaller than a map
	live    int     // entries in pending whose lookup has not ended (the others are tombstones)
	kdrops  uint32  // the datagrams the kernel dropped at the socket, as last read (see noteDrops)
	sent    int
	retired bool // takes no new query; closes when pending is empty
	closed  bool
	idle    *time.Timer
	// handing: the socket is retired with tombstones only, and its reader
	// hands it to the pool's watcher (see handOverLocked); watched: the watcher
	// reads it, under token (from its start on Linux).
	handing atomic.Bool
	watched bool
	token   uint64
	// closing: s is closed (closed is set) but its reader, woken by a
	// read deadline, closes the conn itself (see closeLocked).
	closing atomic.Bool
}

// register reserves a random ID that no query in flight on s uses. A
// socket that carried its batch, or is past its age, retires.
func (s *socket) register(e *entry) (uint16, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.retired && time.Since(s.born) >= socketMaxAge {
		s.retireLocked()
	}
	if s.closed || s.retired {
		return 0, false
	}
	for {
		id := randomID()
		if s.find(id) >= 0 {
			continue
		}
		e.id = id
		s.pending = append(s.pending, *e)
		s.live++
		s.sent++
		if s.sent >= s.limit {
			s.retired = true
		}
		if s.idle != nil {
			s.idle.Stop()
			s.idle = nil
		}
		return id, true
	}
}

// write sends the query wire under id, which it writes into wire's
// first two bytes.
func (s *socket) write(id uint16, wire []byte) error {
	binary.BigEndian.PutUint16(wire, id)
	_, err := s.conn.Write(wire)
	return err
}

// retire makes s take no new query.
func (s *socket) retire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retireLocked()
}

// retireLocked retires s and closes it when nothing is in flight. The
// caller holds s.mu.
func (s *socket) retireLocked() {
	s.retired = true
	if len(s.pending) == 0 && !s.closed {
		s.closeLocked()
	}
	s.handOverLocked()
}

// bury marks the query with id as a tombstone: its lookup has ended, and
// it stays registered so that a later reply to it is still compared (see
// Client.release).
func (s *socket) bury(id uint16) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.find(id)
	if i < 0 || s.pending[i].tomb {
		return
	}
	// The entry stays: a wrong-case or cookieless reply to a tombstone
	// counts toward a TCP probe like any other, which asks the entry's
	// question, and the probe's answer is compared with the taken one.
	s.pending[i].tomb = true
	s.live--
	s.handOverLocked()
}

// handOverLocked asks the reader of s, once s is retired and holds
// tombstones only, to hand it to the pool's watcher (Linux): most
// sockets spend most of their life so, tombstoneFor after their last
// lookup ended, and a goroutine each would cost more than the lookups in
// flight. The watcher handles their datagrams as the reader would, as
// they come. A socket the watcher reads already has no reader. The
// caller holds s.mu.
func (s *socket) handOverLocked() {
	if !canWatch || s.watched || !s.retired || s.closed || s.live > 0 || len(s.pending) == 0 || s.handing.Load() {
		return
	}
	s.handing.Store(true)
	_ = s.conn.SetReadDeadline(time.Unix(1, 0)) // wakes the reader, which hands s over
}

// release forgets the query with id: later replies to it are dropped.
func (s *socket) release(id uint16) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := s.find(id); i >= 0 {
		if !s.pending[i].tomb {
			s.live--
		}
		s.pending = slices.Delete(s.pending, i, i+1)
	}
	if len(s.pending) > 0 || s.closed {
		s.handOverLocked() // the last live query may have gone
		return
	}
	if s.retired {
		s.closeLocked()
		return
	}
	if s.idle == nil {
		s.idle = time.AfterFunc(socketIdle, s.closeIdle)
	}
}

// closeIdle closes s when it still has no query in flight; its slot opens
// another at its next query.
func (s *socket) closeIdle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) > 0 || s.closed {
		return
	}
	s.retired = true
	s.closeLocked()
}

// closeLocked closes the socket, which ends its reader. A socket with a
// reader of its own is closed by that reader: closeLocked sets closing
// and wakes it with a read deadline in the past. Closing the conn here
// would block the caller, under s.mu, until the reader blocked in its
// read had been scheduled and let go of the descriptor (the caller is
// often a lookup ending, in Client.release), and would make two
// goroutines runnable rather than one. A watched socket has no reader and
// is closed at once. The caller holds s.mu.
func (s *socket) closeLocked() {
	s.closed = true
	if s.idle != nil {
		s.idle.Stop()
		s.idle = nil
	}
	if s.watched {
		s.up.pool.watch.forget(s)
		_ = s.conn.Close()
		return
	}
	s.closing.Store(true)
	_ = s.conn.SetReadDeadline(time.Unix(1, 0)) // wakes the reader, which closes s
}

// closeByReader closes the conn of s, which closeLocked marked closing;
// called by its reader, which then ends. It reports whether s was so
// marked.
func (s *socket) closeByReader() bool {
	if !s.closing.Load() {
		return false
	}
	_ = s.conn.Close()
	return true
}

// read receives datagrams until the socket is closed. A read error is an
// ICMP error (see icmp). It waits for a datagram without a buffer (see
// awaitDatagram) and reads it into one of the upstream's buffers, held
// only while the datagram is handled: thousands of sockets wait at once
// under load (each retired one for tombstoneFor), and a buffer each would
// cost more than the lookups they serve.
func (s *socket) read() {
	for {
		if s.closeByReader() {
			return
		}
		if s.handing.Load() && s.up.pool.watch.add(s) {
			return // the watcher reads s from now on
		}
		err := s.awaitDatagram()
		var n int
		var from netip.AddrPort
		var buf *[]byte
		var before sockMem // what was queued, the datagram to read included (see noteDrops)
		if err == nil {
			before, _ = s.mem()
			buf = s.up.buffer()
			n, from, err = s.conn.ReadFromUDPAddrPort(*buf)
		}
		if err != nil {
			s.up.putBuffer(buf)
			if errors.Is(err, net.ErrClosed) || s.closeByReader() {
				return
			}
			if s.handing.Load() && errors.Is(err, os.ErrDeadlineExceeded) {
				continue // handOverLocked woke the reader
			}
			if icmpError(err) {
				s.icmp()
			} else {
				time.Sleep(10 * time.Millisecond) // an unexpected error: do not spin
			}
			continue
		}
		if netip.AddrPortFrom(from.Addr().Unmap(), from.Port()) != s.peer {
			s.up.putBuffer(buf)
			s.drop(dropWrongSource, nil)
			continue
		}
		s.handle((*buf)[:n])
		s.up.putBuffer(buf) // handle keeps nothing of it: a reply is unpacked into copies
		if after, ok := s.mem(); ok {
			s.noteDrops(after, peakOf(before, after, n+datagramOverhead))
		}
	}
}

// mem returns what the kernel holds of s (see kernelMem); ok is false
// where the kernel does not tell, which costs nothing there.
func (s *socket) mem() (m sockMem, ok bool) {
	if !kernelTells {
		return sockMem{}, false
	}
	raw, err := s.conn.SyscallConn()
	if err != nil {
		return sockMem{}, false
	}
	return memOf(raw)
}

// memOf returns what the kernel holds of the socket raw (see kernelMem).
func memOf(raw syscall.RawConn) (m sockMem, ok bool) {
	if raw.Control(func(fd uintptr) { m, ok = kernelMem(fd) }) != nil {
		return sockMem{}, false
	}
	return m, ok
}

// peakOf is the most a socket's buffer held while a reader read it, as
// far as the reader can tell (noteDrops' peak): what was queued before
// (the kernel's figure, before), or what is queued after and what was
// read, in the kernel's accounting at the least (each datagram at its
// whole length and datagramOverhead), whichever is more.
func peakOf(before, after sockMem, read int) uint64 {
	return max(uint64(before.queued), uint64(after.queued)+uint64(read))
}

// buffer returns a read buffer of u's size.
func (u *upstream) buffer() *[]byte {
	if b, ok := u.bufs.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, u.bufSize)
	return &b
}

// putBuffer returns b (nil: none) to u's buffers.
func (u *upstream) putBuffer(b *[]byte) {
	if b != nil {
		u.bufs.Put(b)
	}
}

// icmp notes an ICMP error on s ("port unreachable", or host or network
// unreachable). Anyone who knows the port of s can forge one: it names no
// query, and it reaches every query in flight on s. So it is not taken as
// the server's reply: it is counted, each query in flight on s is marked
// (a lookup whose every attempt was marked and that no answer ended
// reports ReasonNetwork; its answer, if one comes, is tainted, since
// someone knows the port), and s takes no new query; the queries stay
// open to their timeouts.
func (s *socket) icmp() {
	s.up.pool.count(dropICMP)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.pending {
		e := &s.pending[i]
		e.icmp.Store(true)
		e.w.tainted.Store(true) // someone knows the port
	}
	s.retireLocked()
}

// handle delivers one datagram to the query it answers, or drops it.
func (s *socket) handle(b []byte) {
	u := s.up
	var e entry
	var found bool
	_, m, kind := demux(b, func(id uint16) (expect, bool) {
		s.mu.Lock()
		if i := s.find(id); i >= 0 {
			e, found = s.pending[i], true
		}
		s.mu.Unlock()
		return expect{q: e.question(), exact: e.exact && u.caseOn(), cookie: e.cookieHex(), needCookie: u.cookies.Load()}, found
	})
	if kind == dropNone {
		if s.replied(m.Id) {
			// A second reply to one query: a server sends one (a copy
			// of a forgery would be taken as agreeing with it).
			e.w.tainted.Store(true)
		}
		u.learn(m, e.exact)
		u.pool.heard.Store(time.Now().UnixNano())
		e.w.deliver(reply{server: int(e.server), seq: int(e.seq), msg: m})
		return
	}
	if !found {
		s.drop(kind, nil)
		return
	}
	s.drop(kind, e.w)
	switch kind {
	case dropUndecodable:
		e.w.undecodable.Store(true)
	case dropWrongCase:
		u.caseMismatch(e)
		e.w.deliver(reply{server: int(e.server), seq: int(e.seq)})
	case dropNoCookie:
		u.cookieMissing(e)
		e.w.deliver(reply{server: int(e.server), seq: int(e.seq)})
	}
}

// drop counts a dropped datagram and taints w, the lookup whose query's ID
// it carried; nil w (no query carries its ID) taints every lookup with a
// query in flight on s, since someone may be guessing its IDs.
func (s *socket) drop(kind dropKind, w *waiter) {
	s.up.pool.count(kind)
	if w != nil {
		w.tainted.Store(true)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.pending {
		s.pending[i].w.tainted.Store(true)
	}
}

// sockMem is what the kernel (Linux) holds of a socket: the bytes queued
// for reading and the receive buffer's size, in its accounting (each
// datagram's overhead included), and the datagrams it dropped there.
type sockMem struct {
	queued, rcvbuf, drops uint32
}

// noteDrops takes m, what the kernel holds of s, read after the reader
// read s, and peak, the most the reader can tell s's buffer held since it
// last looked (in the kernel's accounting; see peakOf). When the kernel
// dropped datagrams there since then, and the buffer held at least half
// its size (floodShare; a datagram with a bad checksum is dropped and
// counted without taking any), someone may have flooded the port to keep
// a reply out (a full buffer takes nothing more): a forger who won
// knows the port, and the reply it would keep out is the real one, which
// would contradict the forgery. So the lookups that have ended on s and keep tombstones have
// their answers evicted from the cache (waiter.suspect), as a
// contradicting reply would: one more question each, later. Any drop
// taints every lookup with a query on s. A sweep of the ports fills no
// buffer and evicts nothing. The evictions are made once s.mu is let go.
func (s *socket) noteDrops(m sockMem, peak uint64) {
	n := m.drops
	flood := peak >= uint64(m.rcvbuf)/floodShare
	var ended []*waiter
	s.mu.Lock()
	if n == s.kdrops {
		s.mu.Unlock()
		return
	}
	s.kdrops = n
	for i := range s.pending {
		e := &s.pending[i]
		e.w.tainted.Store(true)
		if flood && e.tomb {
			ended = append(ended, e.w)
		}
	}
	s.mu.Unlock()
	for _, w := range ended {
		w.suspect()
	}
}

// replied notes that a reply to the query with id was taken, and reports
// whether one was before.
func (s *socket) replied(id uint16) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.find(id)
	if i < 0 {
		return false
	}
	was := s.pending[i].replied
	s.pending[i].replied = true
	return was
}

// find returns the index in s.pending of the query with id, or -1. The
// caller holds s.mu.
func (s *socket) find(id uint16) int {
	for i := range s.pending {
		if s.pending[i].id == id {
			return i
		}
	}
	return -1
}

// learn notes what a reply taken from u says of it: it echoed the 0x20
// case, and its cookie. A server cookie is kept only when it comes with
// the current client cookie.
func (u *upstream) learn(m *dns.Msg, exact bool) {
	if exact && u.caseMiss.Load() != 0 {
		u.caseMiss.Store(0)
	}
	c, ok := cookieOf(m)
	if !ok || len(c) < 2*(clientCookieLen+8) || len(c) > 2*(clientCookieLen+32) {
		return // no server cookie (RFC 7873 §4.2: 8 to 32 octets)
	}
	if c[:2*clientCookieLen] != u.cookie.Load().hex {
		return // a reply to a query sent with the previous client cookie
	}
	if sc := c[2*clientCookieLen:]; u.serverCookie.Load() == nil || *u.serverCookie.Load() != sc {
		u.serverCookie.Store(&sc)
	}
	if u.cookieMiss.Load() != 0 {
		u.cookieMiss.Store(0)
	}
	if !u.cookies.Load() {
		u.cookies.Store(true)
	}
}

// inARow counts one more reply in a row without the case or the cookie
// (n, the latest at at): the count starts again when the latest is older
// than missDecay.
func inARow(n *atomic.Int32, at *atomic.Int64) int32 {
	now := time.Now().UnixNano()
	if now-at.Swap(now) > int64(missDecay) {
		n.Store(0)
	}
	return n.Add(1)
}

// caseMismatch notes a reply to e that matched it but for the case of
// the name. Anyone who knows a query's port and ID can send one, so after
// caseFallbackAfter in a row the Client asks the server over TCP (see
// probe): only when its TCP reply does not echo the case either does it
// get its questions in lower case and its replies matched in any case
// (still exactly otherwise) for caseFallbackFor.
func (u *upstream) caseMismatch(e entry) {
	// A lookup the probe is of no use to leaves the count as it is: the
	// next reply in the wrong case probes.
	if inARow(&u.caseMiss, &u.caseMissAt) < caseFallbackAfter || !e.w.probeWorthy() {
		return
	}
	u.caseMiss.Store(0)
	u.probe(e, probeCase)
}

// cookieMissing notes a reply to e without a cookie from a server that
// sent cookies. After cookieFallbackAfter in a row the Client asks the
// server over TCP (see probe): only when its TCP reply has no cookie
// either are its replies taken without one (the server was reconfigured
// or replaced).
func (u *upstream) cookieMissing(e entry) {
	if inARow(&u.cookieMiss, &u.cookieMissAt) < cookieFallbackAfter || !e.w.probeWorthy() {
		return
	}
	u.cookieMiss.Store(0)
	u.probe(e, probeCookie)
}

// probeKind is what a TCP probe checks.
type probeKind uint8

const (
	probeCase   probeKind = iota // the server echoes the case of the name (0x20)
	probeCookie                  // the server sends DNS cookies
)

// probe asks e's question of u over TCP, which an off-path forger cannot
// answer, in the background (one probe per server at a time), with the
// name in mixed case and the cookie, and decides from the reply what
// replies over UDP could not: whether u echoes the case (probeCase) or
// still sends cookies (probeCookie). Only then is the protection switched
// off; when the TCP reply shows it working, the UDP replies were forged
// or stray, and nothing changes. No TCP reply, no change. The reply is
// an answer to e's question and is handed to e's lookup.
//
// caseMismatch and cookieMissing ask for no probe for a lookup the reply
// is of no use to (see waiter.probeWorthy): it would hold the server's
// turn while the next lookup's replies (a forger's, to every question)
// go unanswered.
func (u *upstream) probe(e entry, kind probeKind) {
	if !u.probing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		m := u.askOverTCP(e, kind)
		// The next probe may start before the reply is handed on: the
		// lookup it ends may be followed at once by one that needs a
		// probe of its own.
		u.probing.Store(false)
		if m != nil {
			e.w.deliver(reply{server: int(e.server), seq: int(e.seq), msg: m, tcp: true})
		}
	}()
}

// askOverTCP asks e's question of u over TCP for probe and decides kind
// from the reply, which it returns; nil when there is none that answers
// the question.
func (u *upstream) askOverTCP(e entry, kind probeKind) *dns.Msg {
	q := newQuery(e.question(), e.cd, e.udpSize)
	q.Id = randomID()
	sent := mixedCase(q.Question[0].Name)
	q.Question[0].Name = sent
	cookie := u.clientCookie().hex
	q.Extra = u.withCookie(q.Extra, cookie)
	dc := &dns.Client{Net: "tcp", Timeout: probeTimeout}
	m, _, err := dc.Exchange(q, u.addr)
	if err != nil || m.Id != q.Id || !m.Response || len(m.Question) != 1 || !sameQuestion(m.Question[0], q.Question[0]) {
		return nil
	}
	switch kind {
	case probeCase:
		if m.Question[0].Name == sent {
			u.logLine(logCaseForged, "DNS replies over UDP came without the case of their question (0x20), but the server echoes it over TCP: forged datagrams?")
			break
		}
		until := time.Now().Add(caseFallbackFor)
		u.noCaseUntil.Store(until.UnixNano())
		u.logLine(logNoCase, "DNS server does not echo the case of questions (0x20), also over TCP: its replies are matched in any case",
			slog.Duration("retry_after", caseFallbackFor))
	case probeCookie:
		if c, ok := cookieOf(m); ok && strings.HasPrefix(c, cookie) {
			u.learn(m, false)
			u.logLine(logCookiesForged, "DNS replies over UDP came without a DNS cookie, but the server sends one over TCP: forged datagrams?")
			break
		}
		if u.cookies.Swap(false) {
			u.logLine(logNoCookies, "DNS server stopped sending DNS cookies, also over TCP: its replies are taken without them")
		}
	}
	return m
}

// mixedCase is mixCase with at least one letter in upper case and one in
// lower case, when name has two letters, so that a server that does not
// echo the case shows it.
func mixedCase(name string) string {
	b := []byte(mixCase(name))
	var letters []int
	upper, lower := false, false
	for i, c := range b {
		switch {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		default:
			continue
		}
		letters = append(letters, i)
	}
	if len(letters) >= 2 {
		if !upper {
			b[letters[0]] &^= 0x20
		}
		if !lower {
			b[letters[len(letters)-1]] |= 0x20
		}
	}
	return string(b)
}

// logLine writes msg, naming the server and never a question, to the
// Client's Logger, at most once per logEvery per server and kind.
func (u *upstream) logLine(kind logLineKind, msg string, attrs ...any) {
	if u.log == nil {
		return
	}
	now := time.Now().UnixNano()
	at := &u.loggedAt[kind]
	last := at.Load()
	if last != 0 && now-last < int64(logEvery) || !at.CompareAndSwap(last, now) {
		return
	}
	u.log.Warn(msg, append([]any{slog.String("server", u.addr)}, attrs...)...)
}

// cookieOf returns the COOKIE option of m in hex, if it has one.
func cookieOf(m *dns.Msg) (string, bool) {
	opt := m.IsEdns0()
	if opt == nil {
		return "", false
	}
	for _, o := range opt.Option {
		if c, ok := o.(*dns.EDNS0_COOKIE); ok {
			return strings.ToLower(c.Cookie), true
		}
	}
	return "", false
}

// icmpError reports whether err is how a connected UDP socket reports an
// ICMP error (icmpErrnos).
func icmpError(err error) bool {
	var errno syscall.Errno
	return errors.As(err, &errno) && slices.Contains(icmpErrnos, errno)
}

// expect is what a reply to one query in flight must carry.
type expect struct {
	q          dns.Question // the question as sent
	exact      bool         // the name byte for byte (0x20), not in any case
	cookie     string       // the client cookie sent, in hex
	needCookie bool         // the server sends cookies: the reply must carry ours
}

// demux matches a datagram to the query in flight with its ID: pending
// returns what a reply to the query registered under an ID must carry. It
// returns the decoded reply when its ID is registered, it is a response
// (QR set) to a standard query, its one question is the query's (type and
// class, and the name byte for byte when exact, else in any case; RFC 5452
// §9.1), and its cookie, if any, starts with ours (and it has one when
// needCookie; RFC 7873 §5.3). The cookie is checked before the case, so
// that a datagram without our cookie never counts as a server's reply in
// another case. Anything else is dropped, and the kind says why: a
// spoofed or stray datagram never ends a lookup.
func demux(b []byte, pending func(id uint16) (expect, bool)) (uint16, *dns.Msg, dropKind) {
	if len(b) < 12 {
		return 0, nil, dropUndecodable
	}
	id := binary.BigEndian.Uint16(b)
	want, ok := pending(id)
	if !ok {
		return id, nil, dropUnmatchedID
	}
	m := new(dns.Msg)
	if err := m.Unpack(b); err != nil {
		return id, nil, dropUndecodable
	}
	if !m.Response || m.Opcode != dns.OpcodeQuery || len(m.Question) != 1 || !sameQuestion(m.Question[0], want.q) {
		return id, nil, dropWrongQuestion
	}
	c, ok := cookieOf(m)
	switch {
	case ok && !strings.HasPrefix(c, want.cookie):
		return id, nil, dropWrongCookie
	case !ok && want.needCookie:
		return id, nil, dropNoCookie
	}
	if want.exact && m.Question[0].Name != want.q.Name {
		return id, nil, dropWrongCase
	}
	return id, m, dropNone
}

// sameQuestion reports whether a and b ask the same question, the name in
// any case.
func sameQuestion(a, b dns.Question) bool {
	return a.Qtype == b.Qtype && a.Qclass == b.Qclass && strings.EqualFold(a.Name, b.Name)
}

// randomID returns an unpredictable 16-bit query ID (RFC 5452 §9.2).
func randomID() uint16 {
	var b [2]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return binary.BigEndian.Uint16(b[:])
}

// randomInt returns an unpredictable int in [0, n), for a small n (the
// modulo bias is below n/65536).
func randomInt(n int) int { return int(randomID()) % n }
