// Package dmarc discovers and inspects a domain's DMARC policy record
// (RFC 9989, which replaced RFC 7489; external report destinations RFC
// 9990 §3).
//
// DMARC lets the owner of a domain say what receivers should do with mail
// that claims to come from the domain but fails authentication, and where
// to send reports. The policy lives in a TXT record at _dmarc.<domain>.
// A domain without its own record may inherit one: receivers walk up the
// DNS tree (the RFC 9989 "DNS Tree Walk", at most eight queries) and take
// the record of the Organizational Domain, or of the Public Suffix Domain
// when that is a PSD that publishes one. [Check] performs exactly that
// walk and reports, as facts, which record applies, which of its tags
// (p, sp or np) and which policy follow from it, including the p=none
// fallback for a record with a missing or invalid policy and a valid rua
// URI. [Parse] reads one record; [Select] keeps the TXT strings that are
// DMARC records; [Targets] lists the names the walk may query.
//
// Whether the domain exists decides between the sp and np policies of an
// inherited record; Check asks for the domain's MX records for that (the
// mx check asks the same question, so a shared [resolver.Scan] sends it
// once) and reports the answer in every Result.
//
// What this package does not do: it evaluates no message, so it performs
// no identifier alignment, SPF or DKIM evaluation; it only reports the
// alignment modes. It sends no reports. It decides nothing about quality
// (status, severity, wording): callers judge the facts. A Result never
// contains record text, reporting URIs, hosts or any other value taken
// from a DNS answer; only the checked domain and PolicyDomain, which is
// that domain or one of its parents. Whether a rua host is "in another
// organization" (RFC 9990 §3) is decided by the Organizational Domains
// of the Public Suffix List (golang.org/x/net/publicsuffix), to avoid a
// DNS tree walk per host: example.co.uk and other.co.uk are two
// organizations, reports.example.com is example.com's own.
//
// Limits: [MaxTreeWalk] (8) targets per walk and the jump to
// [ShortcutLabels] (7) labels, RFC 9989 §4.10; [MaxExternalDestinations]
// (4) authorization lookups per check. With the MX and TXT lookups of the
// domain, one Check asks at most 14 questions.
//
// # Shape
//
// Parse, Select, Check, Result and Codes, as in every protocol package of
// this module.
// [Parse] reads one record (pure; its errors wrap [ErrSyntax]), and
// [Select] picks the DMARC records among a name's TXT strings.
// [Check] does the I/O through a [resolver.Resolver] and returns a
// [Result] of facts; a fact that could not be determined is nil or its
// enumeration's unknown value (see the resolver package doc), never
// absent. [Codes] lists the
// finding codes a Result may carry, in the order they are reported; the
// judgement (status, severity, wording) is the caller's.
package dmarc
