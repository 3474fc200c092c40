package ptr

import "github.com/mailauth/mailauth/resolver"

// Result holds the facts Check found. It carries no name or address from
// the wire. A count that may be unknown is a pointer, nil when unknown
// (see the resolver package doc); Confirmed says unknown with Unknown.
// The API's PtrDiagnostics derive from it as follows:
//
//   - ipVersion: IPVersion.
//   - ptrRecordCount: NameCount.
//   - forwardRecordType: ForwardType ("A" or "AAAA").
//   - forwardQueryCount: ForwardQueries.
//   - forwardQueriesCompleted: ForwardCompleted.
//   - forwardAddressCount: ForwardAddresses.
//   - forwardConfirmed: true for Confirmed, false for NotConfirmed, null
//     for Unknown.
type Result struct {
	// IPVersion is 4 or 6 (4 for an IPv4-mapped IPv6 address); 0 only for
	// an invalid address.
	IPVersion int
	// Outcome and Reason are those of the PTR lookup. An invalid address
	// gives Inconclusive with resolver.ReasonInvalidName and no lookup.
	Outcome resolver.Outcome
	Reason  resolver.Reason
	// ReverseAliased reports that the PTR lookup followed a CNAME (as
	// RFC 2317 classless delegation does).
	ReverseAliased bool
	// NameCount is the number of distinct names the PTR records name,
	// valid host names or not; 0 when the records are absent, nil when
	// Outcome is Inconclusive.
	NameCount *int
	// InvalidNameCount is how many of those names are not valid host
	// names; they are never looked up forward.
	InvalidNameCount int
	// ForwardType is resolver.TypeA for IPv4 and resolver.TypeAAAA for
	// IPv6; 0 only for an invalid address.
	ForwardType resolver.Type
	// ForwardQueries is the number of names selected for a forward lookup:
	// at most MaxForward.
	ForwardQueries int
	// ForwardCompleted is the number of forward lookups that were
	// conclusive (found, NODATA or NXDOMAIN).
	ForwardCompleted int
	// ForwardAddresses is the number of A or AAAA records in the completed
	// forward lookups, summed; nil when ForwardCompleted is 0.
	ForwardAddresses *int
	// Confirmed says whether the address is forward-confirmed.
	Confirmed Confirmation
	// Findings lists the findings in the order of the Code constants,
	// without duplicates.
	Findings []Code
}
