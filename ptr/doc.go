// Package ptr checks the reverse DNS of one IP address and whether it is
// forward-confirmed (FCrDNS; RFC 1035 §3.5, RFC 3596 §2.5, RFC 8601 §3
// "iprev").
//
// [Check] builds the reverse name of the address (in-addr.arpa for IPv4,
// the nibble form under ip6.arpa for IPv6; an IPv4-mapped IPv6 address is
// treated as the IPv4 address it maps), looks up its PTR records (CNAMEs,
// as used by RFC 2317 classless delegation, are followed by the resolver),
// and collects the distinct host names they name, compared
// case-insensitively and without the trailing dot. Up to [MaxForward] valid
// host names, chosen deterministically (sorted), are then looked up
// forward, concurrently: A for an IPv4 address, AAAA for an IPv6 address,
// never the other family. The address is forward-confirmed when one of
// those answers equals it.
//
// The [Result] makes every field of the API's PtrDiagnostics derivable,
// including when each is unknown (null), and carries no host name or
// address from the wire.
//
// What this package does not do: it does not decide whether the address
// may be checked at all (the caller validates that it is a public address,
// doc/rfc-notes.md §10), it does not forward-query names that are not
// valid host names or that are "localhost" names (RFC 6761 §6.3), and it
// does not judge (no status or text). Names that look generic (the
// address's octets embedded in the name) are flagged for IPv4 only, as a
// heuristic.
//
// Limits: 1 PTR lookup and at most [MaxForward] forward lookups per Check.
//
// # Shape
//
// Parse, Select, Check, Result and Codes, as in every protocol package of
// this module.
// There is no Parse, Select or ErrSyntax: PTR records are RRs the DNS
// library decodes, not text to parse.
// [Check] does the I/O through a [resolver.Resolver] and returns a
// [Result] of facts; a fact that could not be determined is nil or its
// enumeration's unknown value (see the resolver package doc), never
// absent. [Codes] lists the
// finding codes a Result may carry, in the order they are reported; the
// judgement (status, severity, wording) is the caller's.
package ptr
