package mx

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

// Codes returns every finding code this package can report, in the order
// Result.Findings uses. The root package's judgement tests walk it.
func Codes() []Code { return append([]Code(nil), order...) }

// order is the order findings are reported in.
var order = []Code{
	CodeNullMXMixed, CodeNullMXInvalid, CodeExchangeAlias, CodeExchangeIPLiteral,
	CodeExchangeNotHostname, CodeExchangeNXDomain, CodeExchangeNoAddress,
	CodeExchangeNotPublic, CodeExchangeIPv6Only, CodeExchangeDuplicated,
	CodeExchangeInconclusive, CodeTooManyExchanges, CodeNoUsableExchange,
}
