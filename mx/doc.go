// Package mx checks the mail exchangers of a domain (RFC 5321 §5.1,
// RFC 7505, RFC 2181 §10.3, RFC 1035 §3.3.9).
//
// [Check] looks up the MX records of a domain and tells what a sending
// server would find there: a list of exchanges, a null MX saying that the
// domain accepts no mail (RFC 7505), no MX at all so that the domain's own
// address records act as an implicit MX (RFC 5321 §5.1), or nothing that can
// receive mail. Every distinct exchange, up to [MaxExchanges], is resolved
// (A and AAAA, concurrently), and what was found about it is summarised as
// counts and [Code] findings: exchanges that are aliases (CNAMEs), IP
// literals written as names, names that are not host names, names that do
// not exist or have no address, exchanges reachable only at non-public
// addresses (the IANA special-purpose registries, via internal/ipclass),
// IPv6-only exchanges, duplicates, and lookups that were inconclusive.
//
// The exchange names themselves are returned in [Result.Exchanges] for the
// MTA-STS pattern match the scanner performs; they are data from the wire
// and must never be serialised.
//
// What this package does not do: it does not connect to any exchange (no
// SMTP, no STARTTLS probing), does not judge (no status, severity or text;
// the root package does that), and does not cache: the scanner's
// [resolver.Scan] shares identical questions with other checks (for example
// the SPF "mx" mechanism).
//
// Limits: at most [MaxExchanges] distinct exchanges are resolved, which
// bounds one Check at 1 MX query plus 2 × MaxExchanges address queries.
//
// # Shape
//
// Parse, Select, Check, Result and Codes, as in every protocol package of
// this module.
// There is no Parse, Select or ErrSyntax: MX records are RRs the DNS
// library decodes, not text to parse.
// [Check] does the I/O through a [resolver.Resolver] and returns a
// [Result] of facts; a fact that could not be determined is nil or its
// enumeration's unknown value (see the resolver package doc), never
// absent. [Codes] lists the
// finding codes a Result may carry, in the order they are reported; the
// judgement (status, severity, wording) is the caller's.
package mx
