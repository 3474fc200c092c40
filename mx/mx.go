package mx

import "github.com/mailauth/mailauth/resolver"

// MaxExchanges is the number of distinct exchanges whose addresses are
// looked up. RFC 5321 §5.1 sets no limit; this is a product bound
// (doc/rfc-notes.md §2.3). Exchanges beyond it are listed in
// [Result.Exchanges] but not resolved, and [CodeTooManyExchanges] is
// reported.
const MaxExchanges = 10

// Kind says what kind of mail routing the domain publishes.
type Kind string

// The kinds of mail routing (doc/rfc-notes.md §2.4).
const (
	KindExplicit     Kind = "explicit"     // MX records name at least one exchange
	KindNull         Kind = "null"         // only root exchanges: the domain accepts no mail (RFC 7505)
	KindImplicit     Kind = "implicit"     // no MX; the domain's own A/AAAA act as the exchange (RFC 5321 §5.1)
	KindNone         Kind = "none"         // no MX and no address: the domain cannot receive mail
	KindNXDomain     Kind = "nxdomain"     // the domain does not exist
	KindInconclusive Kind = "inconclusive" // the DNS answers do not allow a conclusion
)

// Code is a stable identifier of one finding about the domain's MX set.
type Code string

// Findings, in the order they are reported.
const (
	// CodeNullMXMixed: a null MX is published next to other MX records,
	// which RFC 7505 §3 forbids.
	CodeNullMXMixed Code = "null_mx_mixed"
	// CodeNullMXInvalid: the MX records name only the root but are not
	// exactly one record of preference 0 (e.g. "MX 10 ."), so they are not
	// a conforming null MX (RFC 7505 §3); mail is still undeliverable.
	CodeNullMXInvalid Code = "null_mx_invalid"
	// CodeExchangeAlias: an exchange name is an alias (CNAME), which
	// RFC 2181 §10.3 forbids.
	CodeExchangeAlias Code = "exchange_alias"
	// CodeExchangeIPLiteral: an exchange is an IP address written as a
	// name; MX RDATA is a domain name (RFC 1035 §3.3.9, RFC 5321 §2.3.5).
	// Such exchanges are not resolved.
	CodeExchangeIPLiteral Code = "exchange_ip_literal"
	// CodeExchangeNotHostname: an exchange name is not a letter-digit-
	// hyphen host name (RFC 5321 §2.3.5, RFC 1123 §2.1).
	CodeExchangeNotHostname Code = "exchange_not_hostname"
	// CodeExchangeNXDomain: an exchange name does not exist (a dangling
	// MX; RFC 5321 §5.1).
	CodeExchangeNXDomain Code = "exchange_nxdomain"
	// CodeExchangeNoAddress: an exchange name exists but has neither A nor
	// AAAA records (RFC 5321 §5.1).
	CodeExchangeNoAddress Code = "exchange_no_address"
	// CodeExchangeNotPublic: an exchange resolves only to addresses that are
	// not public (private, loopback, documentation…; IANA special-purpose
	// registries, RFC 6890).
	CodeExchangeNotPublic Code = "exchange_not_public"
	// CodeExchangeIPv6Only: an exchange has AAAA but no A records, so
	// IPv4-only senders cannot reach it (RFC 5321 §5.1).
	CodeExchangeIPv6Only Code = "exchange_ipv6_only"
	// CodeExchangeDuplicated: the same exchange appears in more than one
	// MX record.
	CodeExchangeDuplicated Code = "exchange_duplicated"
	// CodeExchangeInconclusive: the address lookups of an exchange were
	// inconclusive and found no public address.
	CodeExchangeInconclusive Code = "exchange_inconclusive"
	// CodeTooManyExchanges: more than MaxExchanges distinct exchanges; the
	// rest were not resolved.
	CodeTooManyExchanges Code = "too_many_exchanges"
	// CodeNoUsableExchange: every exchange was resolved conclusively and
	// none has a public address: the domain cannot receive Internet mail
	// (RFC 5321 §5.1).
	CodeNoUsableExchange Code = "no_usable_exchange"
)

// Counts summarises what was found about the exchanges. An exchange may
// count in several fields (an alias that is IPv6-only, say).
type Counts struct {
	// Distinct is the number of distinct exchanges (root excluded); 1 for
	// an implicit MX.
	Distinct int
	// Checked is the number of exchanges evaluated: min(Distinct,
	// MaxExchanges). IP literals are evaluated without a lookup.
	Checked int
	// Usable counts checked exchanges with at least one public address.
	Usable int
	// Alias counts exchanges whose A or AAAA lookup followed a CNAME.
	// Never set for an implicit MX (see Result.DomainAliased).
	Alias int
	// IPLiteral counts exchanges that are IP addresses written as names.
	IPLiteral int
	// NotHostname counts exchanges whose name is not an LDH host name.
	NotHostname int
	// NXDomain counts exchanges whose name does not exist.
	NXDomain int
	// NoAddress counts exchanges that exist without A or AAAA records.
	NoAddress int
	// NotPublic counts exchanges whose addresses, all conclusively
	// looked up, are none of them public.
	NotPublic int
	// IPv6Only counts exchanges with AAAA records and no A records.
	IPv6Only int
	// Duplicated counts exchanges named by more than one MX record.
	Duplicated int
	// Inconclusive counts exchanges without a public address whose A or
	// AAAA lookup was inconclusive.
	Inconclusive int
}

// Result holds the facts Check found. It carries no name, address or
// other value from the wire, except Exchanges (see there).
type Result struct {
	// Outcome and Reason are those of the MX lookup at the domain.
	Outcome resolver.Outcome
	Reason  resolver.Reason
	// Kind classifies the domain's mail routing. It is KindInconclusive
	// when the MX lookup was inconclusive, or when it was NODATA and the
	// domain's address lookups were inconclusive without finding one.
	Kind Kind
	// DomainAliased reports that the MX lookup followed a CNAME at the
	// domain; the target's MX records apply (RFC 5321 §5.1). False when
	// the lookup was inconclusive.
	DomainAliased bool
	// RecordCount is the number of MX records returned, root exchanges
	// included; 0 unless Outcome is Found.
	RecordCount int
	// Exchanges lists the distinct exchange names (lower-case A-labels
	// without the trailing dot), ordered by lowest preference then name;
	// for an implicit MX it is the domain itself. It is nil for KindNull,
	// KindNone, KindNXDomain and KindInconclusive.
	//
	// Exchanges is wire data kept in memory for the MTA-STS pattern match
	// (RFC 8461 §4.1). It must never be serialised, logged or shown.
	Exchanges []string
	// Counts summarises the exchanges; all zero when there are none.
	Counts Counts
	// Findings lists the findings in the order of the Code constants,
	// without duplicates.
	Findings []Code
}
