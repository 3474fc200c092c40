package mx

import "github.com/mailauth/mailauth/resolver"

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
	// Validated reports that the MX answer carried the AD bit: the
	// resolver validated it with DNSSEC (RFC 4035 §3.2.3). DANE for SMTP
	// applies only to a validated MX RRset (RFC 7672 §2.2.1).
	Validated bool
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
