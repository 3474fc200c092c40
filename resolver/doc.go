// Package resolver is the DNS layer every mailauth check is built on
// (RFC 1034, RFC 1035).
//
// A lookup never fails with a Go error: it returns an [Answer] whose
// [Outcome] says what the DNS said. Found means records of the asked type
// were returned; NoData means the name exists without records of that type
// (RFC 2308); NXDomain means the name does not exist (RFC 8020);
// Inconclusive means nothing can be concluded (SERVFAIL, REFUSED, timeout,
// a failed TCP retry, a CNAME loop, a DNSSEC validation failure, a
// malformed reply or an exhausted query budget), and [Answer.Reason] says
// which, and [Reason.Side] whose DNS failed (see "Attribution"). Only
// NoData and NXDomain may ever be reported as "absent"; an inconclusive
// lookup is never turned into one.
//
// The package offers one interface, [Resolver], with one method, so fakes
// stay trivial; [Client], the production implementation on top of
// github.com/miekg/dns; and [Scan], a per-scan decorator that shares
// identical questions, caches answers for the life of a scan, counts them
// and enforces a query budget.
//
// Names are plain ASCII strings (A-labels). They are compared
// case-insensitively (RFC 4343) and a trailing dot is optional: every name
// returned in an Answer is lower-case without the trailing dot. A
// [Client] asks a name as it reads back from the wire (escapes of the
// presentation form such as \065 resolved), so that it matches the
// names of its replies.
//
// # Lookups without a goroutine each
//
// Every layer of this package is a [Starter]: Start asks the question and
// returns, and the answer is handed to a function once it is in, on the
// goroutine that brought it (the one that read the reply from its socket,
// a retry timer's, the context's end), perhaps before Start returns. No
// goroutine waits under a lookup: a [Client]'s lookup is a state that its
// replies, timers and context move on, and a caller that finds its
// question in flight in a [Cache] or a [Scan] waits in the question's
// list. A caller that asks several questions at once begins them
// ([Begin]) and waits once ([Pending.Wait]); Lookup is Start and a wait.
// Each layer contains the panics of its own work (the caller gets
// [ReasonMalformed]) and hands the answer on once.
//
// What this package does not do: DNSSEC validation (the AD bit of the
// recursive resolver is reported as is, [Answer.Authentic]), IDNA mapping
// of user input (the root package does that), iterative resolution from
// the root (it asks recursive resolvers), or any caching across scans
// beyond a [Cache].
//
// Limits: [DefaultUDPSize] is the EDNS0 buffer advertised, at most
// [MaxCNAMEChain] aliases are followed per question (RFC 1034 §3.6.2), a
// [Scan] sends at most [DefaultBudget] distinct questions unless given
// another budget (a question asked again by the retries below is one
// question), and a lookup without a deadline lasts at most
// [DefaultLookupTimeout].
//
// # Retries
//
// A lookup uses the time its context gives it (a scan's check: its share
// of the scan deadline). The first attempt waits [DefaultTimeout] (800
// ms) for its reply; each later one waits 200 ms longer, up to
// [MaxAttemptTimeout] (1.6 s): sent no earlier than 0, 0.8, 1.8, 3.0, 4.4,
// 6.0, 7.6 s and so on, rotating over the configured servers, the last attempt
// waiting only until the deadline ([Schedule], [Client.Timeout] and
// [Client.Attempts] change it). Each wait is lengthened by a random
// amount up to an eighth of it (the first 0.8–0.9 s), so that the retries of
// questions asked in the same instant, as a burst of scans asks them, do
// not all fall due together. An attempt never waits as long as
// Unbound's discard-timeout (1.9 s in Debian's configuration), so that a
// resolver which silently drops a query it could not answer in time is
// asked again while it has the answer cached. Every attempt's query ID
// stays registered until the lookup ends, so an answer to an earlier
// attempt that comes late is taken: a resolver that answers every
// question in 2.2 s gives complete answers. A server that replies with an
// error (SERVFAIL, REFUSED, another error RCODE) is asked that question
// once more at once, on a fresh socket under a fresh ID (see "Sockets and
// spoofing"); when it replies with an error again it is not asked that
// question again, and the next attempt goes out at once. The lookup ends
// when an answer comes, when every server has replied with an error (the
// most telling error is reported), or at the deadline: then it is
// [ReasonSlow] when the servers answered other questions meanwhile (even
// when a datagram carrying the ID of an attempt was no DNS message: a
// forger who guessed the port and the ID can send one),
// [ReasonMalformed] when such a datagram came and nothing else,
// [ReasonNetwork] when an ICMP error reached every attempt, and
// [ReasonTimeout] when nothing came. An ICMP error or an
// undecodable datagram never ends an attempt early: anyone can forge
// them. A truncated reply is asked again over TCP (RFC 7766), at most
// twice per server and lookup, while the lookup goes on waiting for UDP
// replies; a failed TCP retry counts as an error reply of the server
// (asked once more, as above).
// A SERVFAIL that no Extended DNS Error explains goes through the CD test
// (see "Attribution").
//
// # Sockets and spoofing
//
// An off-path attacker, who cannot see our queries, can try to fail a
// lookup (ICMP errors, undecodable datagrams, forged error replies) or
// to have a forged answer taken (RFC 5452). Neither works:
//
//   - Ports. Queries leave from connected UDP sockets, each bound by the
//     kernel to a random ephemeral port (Linux draws it from
//     ip_local_port_range, 28,232 ports by default), and each carrying a
//     small batch of at most 8 queries (or what it gets within 2 s)
//     before it takes no new one and closes after its last (RFC 5452
//     §9.2). Up to 16 such sockets per server take new queries at a
//     time, a query takes one at random under that socket's own lock,
//     and an idle one closes after 1 s: under load, hundreds of ports
//     are in use, and none stays useful long to someone who learned it.
//     Each socket costs a file descriptor: about one per 8 queries in
//     flight (or kept as tombstones, below), plus up to 16 per server.
//     On Linux, one goroutine per Client (the watcher) waits for
//     datagrams on all its sockets, over an epoll instance of its own
//     that the runtime's poller watches: no goroutine waits per socket.
//     A socket with datagrams queued is handed to a reader goroutine, one
//     at a time per socket, that reads at most 16 of them, each into a
//     buffer its server's sockets share, handles each as it comes, and
//     arms the socket again; a reader lives on for a second to take the
//     next ready socket, so that under load a reply costs no new
//     goroutine. A flood at one port therefore does not hold back a reply
//     on another. Elsewhere each socket has a reader goroutine of its
//     own. The kernel delivers to a connected socket only datagrams from
//     the server's address and port; the readers check the source again
//     (wrong_source), a link-local server's interface included. The port is secret only as long
//     as the kernel does not leak it: this relies on the kernel's
//     defences against the SAD DNS side channel (Linux 5.10 and later
//     randomize the ICMP rate limit, CVE-2020-25705).
//   - IDs and questions. Each query carries a fresh 16-bit ID from
//     crypto/rand, unique on its socket, and its name in random case
//     (0x20: each ASCII letter upper or lower case at random). A reader
//     per socket takes a datagram as the reply only when it carries the
//     ID of a query in flight there, decodes, is a response to a
//     standard query, its one question is the query's (type, class and
//     name; RFC 5452 §9.1), its cookie is right (below), and then its
//     name is the query's byte for byte, case included. Anything else is
//     dropped and counted by kind ([SpoofDropKinds],
//     [Client.SpoofDrops]), and the lookup goes on waiting for the real
//     reply: a forged or stray datagram never ends a lookup.
//   - Cookies. Each query carries a DNS cookie (RFC 7873): a random
//     64-bit client cookie per server, drawn again every hour (RFC 7873
//     §4.1; a query keeps the one it was sent with, so its reply is
//     still matched, and the server cookie of the old one is dropped),
//     and the server cookie the server sent last for the current one.
//     Once a server has sent a server cookie, a reply without the
//     query's client cookie is dropped (wrong_cookie); a reply whose
//     cookie starts with another client cookie always is. The cookie is
//     checked before the case, so a datagram without it never counts as
//     a reply in another case.
//   - Error replies. A server's first error reply to a question over UDP
//     (SERVFAIL, REFUSED, another error RCODE, an EDE that overrides the
//     answer, a truncated reply whose TCP retry failed) is not yet its
//     word: the question is asked of it again at once, on a socket of its
//     own under a fresh ID and case, while the first query stays open;
//     only an error reply to that query or a later one counts. A forged
//     REFUSED or TC reply, sent once or many times to the first query,
//     thus costs one query (and at most two TCP connections), and the
//     real answer that follows it is taken. Over TCP, which an off-path
//     forger cannot answer, an error reply counts at once.
//   - ICMP errors. An ICMP error (port, host or network unreachable;
//     on Linux also protocol unreachable, host down or isolated, a
//     parameter problem, fragmentation needed, administratively
//     prohibited) names no query: the kernel reports it to the socket whose ports it
//     quotes, and anyone who knows them can forge it. It is counted
//     (icmp) and marked on the queries in flight on that socket, which
//     takes no new query; the queries stay open to their timeouts, and
//     the lookup rotates as after any unanswered attempt. Only a lookup
//     that nothing answered and whose every attempt met an ICMP error
//     reports [ReasonNetwork]; a send that the kernel refuses because of
//     a pending ICMP error is tried again from a new port. An ICMP error
//     at a live port shows that someone may know it: it taints the
//     lookups in flight there (below).
//   - Servers that do not echo the case or stop sending cookies. A reply
//     that matches a query but for the case of its name, or that lacks
//     the cookie of a server that sends them, has the question asked
//     again at once on a fresh socket (at most three times per lookup).
//     Anyone who knows a port and an ID can send such a datagram, so the
//     Client never switches a protection off on UDP evidence: after
//     three in a row (the count starts again after a minute without one)
//     it asks the question over TCP, with the name in mixed case and the
//     cookie, one such question per server at a time (the third such
//     reply to a lookup that ended without a UDP answer asks nothing and
//     leaves the count, so the next reply asks). When the TCP
//     reply does not echo the case either, the server gets its questions
//     in lower case and its replies matched in any case (still exactly
//     otherwise) for ten minutes, then 0x20 is tried again; when it has
//     no cookie, replies are taken without one until the server sends one
//     again. When the TCP reply shows the protection working, nothing
//     changes (the UDP datagrams were forged or stray). No TCP reply, no
//     change: a server that neither echoes the case nor answers over TCP
//     (which RFC 7766 requires of it) keeps 0x20, and its lookups time
//     out. The TCP reply answers the lookup that asked; a lookup whose
//     replies came while another's question was under way is not asked
//     for, and waits for its own UDP reply. The Client's
//     Logger gets a line for each switch and for each TCP reply that
//     contradicts the UDP ones, at most one of each kind per server and
//     minute, naming the server, never a question.
//
// So an off-path attacker who wants a forged answer taken must send it
// from the server's address and port, to the port one of our queries for
// that question left from (28,232 possible: 14.8 bits), with that query's
// ID (16 bits) and the case of each of the name's L letters in that
// query (L bits), while the query is open, and, when the resolver sends
// DNS cookies, with our 64-bit client cookie too. A query is open from
// its send until its lookup ends: a lookup keeps every attempt open, so
// with k queries open for the question (attempts, quick re-asks and
// re-asks after error replies: a 6 s lookup the resolver does not answer
// has up to 5 attempts open at its end, plus at most 4 re-asks per
// server) one forged datagram matches with odds of k × 2^-(30.8+L), and
// the window is the whole lookup. For _dmarc.example.com (15 letters)
// with k = 8 that is 2^-42.8, one in 7.6 × 10^12: an even chance at one
// forged answer takes about 5 × 10^12 datagrams, each sent while such a
// query is open; at the 35,000 a second an attacker was seen sending,
// about 5 years of flooding timed to lookups that the resolver leaves
// unanswered (a question it answers from its cache is open for one
// round trip on the same host or network, RFC 5452 §4). A name with few
// letters gives fewer bits: x.co with k = 8 gives 30.8 bits, one in
// 1.9 × 10^9, about 10 hours of such flooding. A resolver with cookies
// adds 64 bits to either.
//
// Were a forgery nevertheless taken, it serves the lookup that asked
// (and that scan), and it is kept out of the shared [Cache] as far as
// the Client can tell:
//
//   - Taint. An answer whose lookup saw a datagram dropped as
//     undecodable, mismatched, miscased or with a wrong cookie for one of
//     its queries, a datagram with an unknown ID on a socket carrying one
//     of them (the trace of an attacker guessing IDs, or of a late
//     reply), or an ICMP error at one of their ports, is tainted:
//     [Client.LookupTTL] gives it TTL 0, so a Cache never keeps it, and
//     the callers of a Cache that waited for the same question ask again
//     (once) instead of sharing it. A second reply to one query taints
//     its lookup too (a server sends one).
//   - Floods. A forger who won knows the port, and could flood it so
//     that the kernel drops the real reply that would contradict the
//     forgery (a full receive buffer takes nothing more). On Linux, each
//     time a socket has been read the Client asks the kernel how many
//     datagrams it dropped there and how full its buffer is (SO_MEMINFO).
//     When the count grew, every lookup with a query on it is tainted;
//     when it grew with the buffer at least half full at its fullest
//     since the reader last looked (the kernel's figure before a drain,
//     or after it with each datagram read at its whole length), the
//     answers of the lookups that ended on it and keep tombstones (below)
//     are evicted from the Cache too, one more question each. Each socket
//     has a filter that takes every datagram, so that the kernel checks a
//     checksum before it queues the datagram: one with a bad checksum
//     never takes buffer space, and is dropped and counted alone. A sweep
//     of the ports, stray replies, ICMP errors and bad checksums fill no
//     buffer and evict nothing. An eviction costs the attacker half a
//     buffer (256 KiB asked, which Linux doubles) in the kernel's
//     accounting, which charges a small datagram about 800 bytes: some
//     400 datagrams, tens of KB, at a port it knows. What remains: on
//     other systems, and on linux/386, the Client cannot tell a flood;
//     nor, anywhere, datagrams dropped before they reach the socket (a
//     network card's ring, the kernel's backlog), which a forger would
//     have to aim at the reply's own queue; and a host short of memory
//     for UDP (net.ipv4.udp_mem) drops at a socket whose buffer is not
//     full, which taints but evicts nothing.
//   - Tombstones. A forger who sends one datagram per port leaves no
//     trace before it wins. So when a lookup below a Cache takes an
//     answer over UDP, its queries stay registered for 2 s after it ends:
//     the resolver's real reply to the forged query (or to another of
//     them) comes then, and when its RCODE or records (or, from the
//     server the answer came from, its AD bit; another server may not
//     validate) differ from the answer taken, the Cache drops that
//     answer, or never stores it if it has not yet ([CacheStats]
//     Invalidated). So does a reply that differs in whether the
//     resolver's policy made the answer (an Extended DNS Error) or in a
//     SOA record in its authority section. Records are compared in wire
//     form without their TTLs, in any order, with
//     the case of domain names aside (a reply echoes its query's 0x20
//     case) and every other byte as received: a TXT string (a DKIM key)
//     or a CAA value that differs only in case, or by a backslash, is
//     another record; a reply whose records cannot be compared counts as
//     contradicting. 2 s outlasts Unbound's
//     discard-timeout (1.9 s), past which Unbound no longer answers a
//     query. A tombstone keeps the first 128 bits of the SHA-256 digest
//     of what is compared, not the records (under load tens of thousands
//     of lookups are within their 2 s). The digest begins with a random
//     salt that each Client draws and never sends: a forger who can
//     publish a record into the real answer (a name it shares with its
//     victim) chooses part of both answers, and could otherwise search
//     offline for two with the same 128 bits (2^64 digests). It keeps
//     each query's question as sent and its CD bit,
//     not the packed query (a wrong-case or cookieless reply to one still
//     counts toward the TCP probe, which asks that question and whose
//     answer is compared too), and the Cache's question and generation,
//     not its flight. What remains: a forgery whose real reply never comes (the
//     resolver dropped the query) or comes later than that stays cached
//     for its TTL, at most [MaxCacheTTL], and callers that shared it
//     before the real reply came keep it. A resolver behind one address
//     that answers two attempts of a question from backends with
//     different records costs an eviction, that is one more question
//     later, never a wrong answer.
//
// # Attribution
//
// An inconclusive answer says whose DNS failed ([Reason.Side]) only when
// the resolver said so; [Reasons] lists every reason, and
// [Reason.Transport] says which mean no usable DNS reply at all:
//
//   - SideDomain, the domain's own DNS, by the resolver's own word:
//     [ReasonDNSSEC] (its signatures do not validate: Extended DNS Error
//     6–12, or SERVFAIL without and an answer with the CD bit),
//     [ReasonNoReachableAuthority] (none of its name servers could be
//     used: EDE 22, 23), [ReasonCNAMELoop], [ReasonCNAMEChain];
//   - SideService, the service's own resolver: [ReasonNetwork] (it cannot
//     be reached), [ReasonResolverPolicy] (EDE 4, 14–18, 20, 21: it
//     forged, blocked or filtered the answer, is not ready, does not serve
//     us, or is not recursive);
//   - SideUnknown, decided by a control question any working resolver
//     answers (the SOA of a name the resolver is known to serve; the root
//     package asks it): [ReasonServFail] without EDE and [ReasonRefused]
//     are the service's when it fails and the domain's when it passes
//     (see [SideUnknown]); [ReasonTimeout] is the service's when it fails
//     and slowness when it passes;
//   - SideNone, nobody's fault: [ReasonSlow] (the resolver answered other
//     questions meanwhile, not this one before the deadline: it was
//     still working, so the lookup tells of slowness, not of a fault),
//     the scan's own limits ([ReasonBudgetExhausted], [ReasonCanceled],
//     [ReasonInvalidName]) and replies that name no cause
//     ([ReasonMalformed], [ReasonTruncated], [ReasonRcode]).
//
// A lookup the client gave up on is never the domain's fault: a
// time-out measures the time the lookup had (and the load of the machine
// it ran on) as much as the domain's name servers.
//
// A SERVFAIL that no EDE explains goes through two tests before it is
// reported. The CD test asks once more with the CD bit (checking
// disabled, RFC 4035 §3.2.2): an answer then, and SERVFAIL again without
// it, is [ReasonDNSSEC]; an answer without CD means the SERVFAIL was
// passing, and that answer is taken. The chain test asks the CNAME chain that starts
// at the name, one CNAME question per link (a resolver answers those
// without following them): a name seen twice is [ReasonCNAMELoop], a
// chain longer than the resolver follows [ReasonCNAMEChain]. Unbound
// answers both a loop and an over-long chain with a bare SERVFAIL.
//
// [Answer.EDE] carries the Extended DNS Error info-code of the final reply
// (RFC 8914; the Client sends EDNS0, and Unbound needs "ede: yes"), and
// [Answer.Authentic] its AD bit.
//
// # DNS over TLS and the resolver's properties
//
// A server given as "tls://host:port" ([TLSPrefix]) is asked over DNS over
// TLS (RFC 7858) instead of UDP: its certificate must be valid for host
// (a name or an IP address) from the system roots or [Client.RootCAs];
// one connection per server carries the questions in flight (answers
// matched by ID and question), is closed after 10 s without one, and
// every query is padded to a multiple of 128 octets (RFC 7830, RFC 8467).
// Off the host, this closes the path an off-path forger would use.
//
// What a resolver does is probed, not assumed ([Client.Probe],
// [Properties]): the RA bit of its replies says whether it recurses (an
// authoritative-only server does not), the AD bit of its answer about
// the root (signed since 2010) whether it validates DNSSEC. Through a
// resolver that does not validate, a DNSSEC failure cannot be seen and
// [Answer.Authentic] proves nothing.
//
// # Unknown facts
//
// Every protocol package of this module reports what it found as a Result
// of facts, and says "unknown" the same way (the API's null): a count or a
// flag that may be unknown is a pointer, nil when unknown, because the
// lookup that decides it was inconclusive or the step that would produce
// it did not happen (no policy was fetched, no forward lookup completed,
// the records disagree). A fact that was looked up and is absent is 0 or
// false, never nil. An enumeration carries unknown as a named value of its
// own (dkim.KeyTypeNone, mtasts.Inconclusive, ptr.Unknown,
// dmarc.ExistenceUnknown, the empty mtasts.Mode and dmarc.Policy). Facts
// of a selected record or record set (dmarc's policy fields,
// mtasts.Result.Policy, a caa.Set whose Outcome is Inconclusive) are the
// zero value when none was selected, as their documentation says.
// Inconclusive itself is never turned into absent.
package resolver
