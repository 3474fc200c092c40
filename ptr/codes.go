package ptr

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

// Codes returns every finding code this package can report, in
// declaration order. The root package's judgement tests walk it, so each
// code has a judgement rule, a note, or an explicit reason to be ignored.
func Codes() []Code { return append([]Code(nil), order...) }

// order is the order findings are reported in.
var order = []Code{
	CodeNoPTR, CodeInvalidName, CodeLocalhostName, CodeTooManyNames,
	CodeForwardInconclusive, CodeGenericName,
}
