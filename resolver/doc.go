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
// error (SERVFAIL, REFUSED, another error RCODE, an undecodable message,
// an ICMP "port unreachable" to the question sent again from another
// socket; see "Sockets and spoofing") is not asked that question again,
// and the next attempt goes out at once; the lookup ends when an answer comes,
// when every server has replied with an error (the most telling error is
// reported), or at the deadline: then it is [ReasonSlow] when the servers
// answered other questions meanwhile and [ReasonTimeout] when they
// answered nothing. A truncated reply is asked again over TCP (RFC 7766).
// A SERVFAIL that no Extended DNS Error explains goes through the CD test
// (see "Attribution").
//
// # Sockets and spoofing
//
// A [Client] does not open a socket per question. It keeps up to four
// connected UDP sockets per server, each bound by the kernel to a random
// ephemeral port (Linux draws it from ip_local_port_range, 28,232 ports by
// default), and a question takes one of them at random. A socket takes no
// new question after 1,024 or after 30 s, and closes once its last
// question ends; an idle one closes after 2 s. Each query carries a fresh
// 16-bit ID from crypto/rand, unique among the queries in flight on its
// socket. A reader per socket matches each datagram to the query in
// flight with its ID, and hands it over only when it is a response whose
// one question is the query's (name in any case, type and class; RFC 5452
// §9.1); anything else is dropped, and the lookup goes on waiting for the
// real answer, so a stray or forged reply neither ends a lookup nor is
// taken for its answer. The kernel delivers to a connected socket only
// datagrams whose source address and port are the server's, the
// address and port the query went to (RFC 5452 §9.1).
//
// So an off-path attacker who wants a forged answer taken must send it
// from the server's address and port, to the right one of our ports
// (about 2^14.8 possible, unobservable off-path), with the right ID (2^16,
// unpredictable), while the query is in flight (RFC 5452 §4). With four
// sockets per server, one forged datagram matches with a probability of
// about 4 / (28,232 × 65,536) ≈ 2^-28.9 (the odds RFC 5452 §7 works out
// from the same two numbers, ID and port), and each question is in
// flight for one round trip to the recursive resolver, which is on the
// same host or network. That is enough: the forger has to send hundreds of
// millions of datagrams for an even chance at one answer of one scan, and
// the answer would only mislead a diagnosis, not a mail flow. Rotating
// the sockets bounds how long a port an on-path observer has seen stays
// useful to it. A datagram that carries a query's ID but is not a DNS
// message counts as that server's error reply (ReasonMalformed): a forger
// who guesses port and ID can at most make a lookup inconclusive.
//
// An ICMP error (port, host or network unreachable) is the one reply that
// needs no ID: the kernel reports it to the socket whose port and server
// it quotes, and it concerns every query in flight there, up to 1,024.
// So it is not taken as the server's reply. The socket is retired at once
// (it takes no new question, still delivers the answers to the queries in
// flight on it, and closes after the last), and each of those queries is
// sent again, at once, from another of the server's sockets (a new one
// when fewer than four are usable), on its own random port. Only when
// that one is refused too does the question fail, with
// ReasonNetwork, as from a server whose port is really closed, which
// therefore ends a lookup after two round trips. A forger who guesses one
// of our ports (about 4 / 28,232 per datagram) thus costs each query in
// flight on it one more datagram to our resolver; to fail a question it
// must then guess that other port too, within that query's round trip.
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
