// Package mtasts checks a domain's SMTP MTA Strict Transport Security
// setup (RFC 8461): the _mta-sts TXT announcement and the policy file
// served at https://mta-sts.<domain>/.well-known/mta-sts.txt.
//
// MTA-STS lets a domain tell sending mail servers that its MX hosts speak
// TLS with valid certificates, and which host names those are. The domain
// announces a policy in DNS and serves it over HTTPS; senders that find
// both refuse (in enforce mode) to deliver over an unauthenticated or
// unencrypted connection. This package reads both halves and reports facts
// about them: how many announcements there are and whether the one is
// valid, how the policy fetch ended ([FetchState]), and the policy's mode,
// max_age and mx patterns.
//
// [ParseRecord] and [ParsePolicy] are pure parsers. [Check] does the I/O:
// one TXT lookup through the given [resolver.Resolver], then, when there is
// exactly one valid announcement, the policy fetch. The fetch acts as a
// careful server-side client, because the domain being checked is
// untrusted input and this package must never become a proxy into a
// private network:
//
//   - the host mta-sts.<domain> is resolved through the same Resolver (A
//     and AAAA concurrently), never the system resolver;
//   - every address is classified with internal/ipclass, and only public
//     ones are dialed (loopback too when [Options].AllowLoopback is set);
//     private, link-local, CGNAT, metadata and every other special range are
//     refused before any dial, whatever the options;
//   - the connection goes to the vetted IP address itself (pinned, no
//     second resolution), with no proxy;
//   - the certificate must be valid for mta-sts.<domain> and chain to a
//     trusted root; redirects are never followed; only status 200 yields a
//     policy; the body is capped at [MaxPolicySize]; a media type other than
//     text/plain is reported but the body is still parsed;
//   - at most [MaxAddrsPerFamily] addresses per family are dialed (IPv4
//     first, then IPv6, each in answer order), so a host with thousands of
//     addresses costs at most four connection attempts;
//   - a total deadline and a per-connection deadline bound the fetch.
//
// [Covers] and [Policy.Matches] compare the MX host names the caller
// already has with the policy's patterns (RFC 8461 §4.1).
//
// What this package does not do: it does not look up MX records, does not
// cache policies, does not judge (status, severity and wording belong to
// the caller), does not connect to MX hosts to test STARTTLS, and does not
// read TLS-RPT records (package tlsrpt does). A [Result] carries counts,
// states and finding codes only; the parsed [Policy] it holds for [Covers]
// comes from the wire and must never be serialised.
//
// Limits: [MaxPolicySize] (64 KiB body, RFC 8461 §3.3), [MaxMaxAge]
// (31557600 s, §3.2), [MaxIDLength] (32, §3.1), [DefaultTimeout] (10 s for
// the whole fetch) and [DefaultConnectTimeout] (5 s per connection
// attempt), [MaxAddrsPerFamily] (2 connection attempts per address
// family). A Check asks one TXT question and, when it fetches, one A and
// one AAAA question, and makes one HTTPS request.
//
// # Shape
//
// Parse, Select, Check, Result and Codes, as in every protocol package of
// this module.
// [ParseRecord] reads the announcement record and [ParsePolicy] the
// policy file (pure; their errors wrap [ErrSyntax]), and [Select] picks the
// announcement records among the TXT strings at _mta-sts.
// [Check] does the I/O through a [resolver.Resolver] and returns a
// [Result] of facts; a fact that could not be determined is nil or its
// enumeration's unknown value (see the resolver package doc), never
// absent. [Codes] lists the
// finding codes a Result may carry, in the order they are reported; the
// judgement (status, severity, wording) is the caller's.
package mtasts
