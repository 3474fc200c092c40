package ptr

import "github.com/mailauth/mailauth/resolver"

// MaxForward is the number of distinct PTR host names looked up forward.
// It is a product bound (doc/rfc-notes.md §8.1); RFC 8601 §3 sets none,
// and the SPF "ptr" mechanism's limit of 10 (RFC 7208 §5.5) is a different
// rule.
const MaxForward = 8

// Confirmation says whether the address is forward-confirmed.
type Confirmation string

// The values of forward confirmation (doc/rfc-notes.md §8.2).
const (
	Confirmed    Confirmation = "confirmed"     // a forward answer equals the address (iprev pass)
	NotConfirmed Confirmation = "not_confirmed" // every selected forward lookup completed, none matched, or no name to check (iprev fail/permerror)
	Unknown      Confirmation = "unknown"       // DNS errors prevent a conclusion (iprev temperror)
)

// Code is a stable identifier of one finding about the reverse DNS.
type Code string

// Findings, in the order they are reported.
const (
	// CodeNoPTR: the reverse name has no PTR records (NXDOMAIN or NODATA;
	// RFC 8601 §3 iprev permerror).
	CodeNoPTR Code = "no_ptr"
	// CodeInvalidName: a PTR record names something that is not a valid
	// host name (RFC 1123 §2.1): it is counted but not looked up forward.
	CodeInvalidName Code = "invalid_name"
	// CodeLocalhostName: a PTR record names "localhost" or a name under it
	// (RFC 6761 §6.3); it is not looked up forward.
	CodeLocalhostName Code = "localhost_name"
	// CodeTooManyNames: more than MaxForward valid host names; only the
	// first MaxForward in sorted order were looked up forward.
	CodeTooManyNames Code = "too_many_names"
	// CodeForwardInconclusive: at least one forward lookup was
	// inconclusive.
	CodeForwardInconclusive Code = "forward_inconclusive"
	// CodeGenericName: a PTR name embeds the IPv4 address's octets, as the
	// generic names of dynamic or pooled address space do (heuristic).
	CodeGenericName Code = "generic_name"
)

// Result holds the facts Check found. It carries no name or address from
// the wire. The API's PtrDiagnostics derive from it as follows:
//
//   - ipVersion: IPVersion.
//   - ptrRecordCount: NameCount; null when Outcome is Inconclusive.
//   - forwardRecordType: ForwardType ("A" or "AAAA").
//   - forwardQueryCount: ForwardQueries.
//   - forwardQueriesCompleted: ForwardCompleted.
//   - forwardAddressCount: ForwardAddresses; null when ForwardCompleted is 0.
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
	// valid host names or not; 0 when the records are absent. Unknown
	// (null) when Outcome is Inconclusive.
	NameCount int
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
	// forward lookups, summed. Unknown (null) when ForwardCompleted is 0.
	ForwardAddresses int
	// Confirmed says whether the address is forward-confirmed.
	Confirmed Confirmation
	// Findings lists the findings in the order of the Code constants,
	// without duplicates.
	Findings []Code
}

// Codes returns every finding code this package can report, in
// declaration order. The root package's judgement tests walk it, so each
// code has a judgement rule, a note, or an explicit reason to be ignored.
func Codes() []Code {
	return []Code{
		CodeNoPTR, CodeInvalidName, CodeLocalhostName, CodeTooManyNames, CodeForwardInconclusive,
		CodeGenericName,
	}
}
