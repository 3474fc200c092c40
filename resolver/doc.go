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
// returned in an Answer is lower-case without the trailing dot.
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
// [MaxAttemptTimeout] (1.6 s): sent at 0, 0.8, 1.8, 3.0, 4.4, 6.0, 7.6 s
// and so on, rotating over the configured servers, the last attempt
// waiting only until the deadline ([Schedule], [Client.Timeout] and
// [Client.Attempts] change it). An attempt never waits as long as
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
// [ReasonMalformed] when a datagram carrying the ID of an attempt was no
// DNS message, [ReasonSlow] when the servers answered other questions
// meanwhile, [ReasonNetwork] when an ICMP error reached every attempt,
// and [ReasonTimeout] when nothing came. An ICMP error or an
// undecodable datagram never ends an attempt early: anyone can forge
// them. A truncated reply is asked again over TCP (RFC 7766).
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
//     Each socket costs a file descriptor and a reader goroutine: about
//     one per 8 queries in flight, plus up to 16 per server.
//     The kernel delivers to a connected socket only datagrams from the
//     server's address and port; the reader checks the source again
//     (wrong_source).
//   - IDs and questions. Each query carries a fresh 16-bit ID from
//     crypto/rand, unique on its socket, and its name in random case
//     (0x20: each ASCII letter upper or lower case at random). A reader
//     per socket takes a datagram as the reply only when it carries the
//     ID of a query in flight there, decodes, is a response to a
//     standard query, and its one question is the query's: type, class
//     and the name byte for byte, case included (RFC 5452 §9.1).
//     Anything else is dropped and counted by kind ([SpoofDropKinds],
//     [Client.SpoofDrops]), and the lookup goes on waiting for the real
//     reply: a forged or stray datagram never ends a lookup.
//   - Cookies. Each query carries a DNS cookie (RFC 7873): a random
//     64-bit client cookie per server, fixed for the Client's life, and
//     the server cookie the server sent last. Once a server has sent a
//     server cookie, a reply without our client cookie is dropped
//     (wrong_cookie); a reply whose cookie starts with another client
//     cookie always is. A server that stops sending cookies (three
//     replies in a row without one) has its replies taken without them
//     again, and the Client's Logger gets one line.
//   - Error replies. A server's first error reply to a question
//     (SERVFAIL, REFUSED, another error RCODE, an EDE that overrides the
//     answer) is not yet its word: the question is asked of it again at
//     once, on a socket of its own under a fresh ID and case, while the
//     first query stays open; only the second error reply counts. A
//     forged REFUSED thus costs one query, and the real answer that
//     follows it is taken.
//   - ICMP errors. An ICMP error (port, host or network unreachable)
//     names no query: the kernel reports it to the socket whose ports it
//     quotes, and anyone who knows them can forge it. It is counted
//     (icmp) and marked on the queries in flight on that socket, which
//     takes no new query; the queries stay open to their timeouts, and
//     the lookup rotates as after any unanswered attempt. Only a lookup
//     that nothing answered and whose every attempt met an ICMP error
//     reports [ReasonNetwork]; a send that the kernel refuses because of
//     a pending ICMP error is tried again from a new port.
//   - Resolvers that do not echo the case. A server whose replies match
//     a query but for the case of the name, three times in a row, gets
//     its questions in lower case and its replies matched in any case
//     (still exactly otherwise) for ten minutes; then 0x20 is tried
//     again. The Client's Logger gets one line, naming the server, never
//     a question. Each such reply has the question asked again at once
//     on a fresh socket (at most three times per lookup), so that the
//     first lookup does not wait for a timeout.
//
// So an off-path attacker who wants a forged answer taken must send it
// from the server's address and port, to the one of our ports the query
// left from (28,232 possible: 14.8 bits), with its ID (16 bits) and with
// the case of each of the name's L letters (L bits), while the query is
// in flight (one round trip to the recursive resolver, which is on the
// same host or network; RFC 5452 §4), and, when the resolver sends DNS
// cookies, with our 64-bit client cookie too. One forged datagram
// matches with odds of 2^-(30.8+L): for _dmarc.example.com (15 letters)
// 2^-45.8, one in 6 × 10^13. An even chance at one forged answer takes
// about 4 × 10^13 datagrams, each sent while a query for that question is
// in flight: at the 35,000 a second an attacker was seen sending, 38
// years of flooding timed to our queries' round trips. A name
// with few letters gives fewer bits (x.co: 33.8 bits, one in 1.5 × 10^10;
// a resolver with cookies adds 64). Were a forgery nevertheless taken, it
// would not spread: an answer whose lookup saw a datagram dropped as
// undecodable, mismatched, miscased or with a wrong cookie for one of its
// queries, or a datagram with an unknown ID on a socket carrying one of
// them (the trace of an attacker guessing IDs, or of a late reply), is
// tainted: it serves the lookup that asked, but [Client.LookupTTL] gives
// it TTL 0, so a [Cache] never keeps it for the next scan. Re-asking
// instead would cost every tainted lookup another round trip and decide
// nothing the caller could not: the forger who won once can win the
// re-ask's race too.
//
// # Attribution
//
// An inconclusive answer says whose DNS failed ([Reason.Side]):
//
//   - SideDomain, the domain's own DNS: [ReasonDNSSEC] (its signatures do
//     not validate: Extended DNS Error 6–12, or SERVFAIL without and an
//     answer with the CD bit), [ReasonNoReachableAuthority] (its name
//     servers do not answer, refuse or are lame: EDE 22, 23),
//     [ReasonCNAMELoop], [ReasonCNAMEChain], and [ReasonSlow] (the
//     resolver answered other questions meanwhile, not this one before the
//     deadline);
//   - SideService, the service's own resolver: [ReasonNetwork] (it cannot
//     be reached), [ReasonRefused] (a recursive resolver refuses clients
//     it does not serve; a domain's refusing servers show as SERVFAIL with
//     EDE 22), [ReasonResolverPolicy] (EDE 4, 14–18, 20, 21: it forged,
//     blocked or filtered the answer, is not ready, does not serve us, or
//     is not recursive);
//   - SideUnknown for the rest ([ReasonServFail] without EDE,
//     [ReasonTimeout], [ReasonMalformed], …). The root package then asks
//     a control question any working resolver answers (the SOA of a
//     name the resolver is known to serve): when it fails, these are the
//     service's; when it passes, a timeout is the domain's (slower than
//     the deadline), a SERVFAIL most likely the domain's (see
//     [SideUnknown]), and the rest stays undetermined.
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
