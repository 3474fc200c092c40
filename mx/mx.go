package mx

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
