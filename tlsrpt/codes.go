package tlsrpt

// Code is a stable, snake_case finding about a TLS-RPT record. Codes are
// facts, not judgements: the caller decides status and wording.
type Code string

// Findings.
const (
	// MultipleRecords: more than one v=TLSRPTv1 record; senders treat the
	// domain as not using TLS-RPT (RFC 8460 §3).
	MultipleRecords Code = "multiple_records"
	// SyntaxErrorCode: the record does not follow the RFC 8460 §3 grammar
	// and is unusable.
	SyntaxErrorCode Code = "syntax_error"
	// MissingRUA: the record has no rua field, which is required (§3).
	MissingRUA Code = "missing_rua"
	// DuplicateRUA: the record has more than one rua field. The grammar
	// does not forbid it; their destinations are merged.
	DuplicateRUA Code = "duplicate_rua"
	// DuplicateDestination: the same destination is listed twice; it
	// counts once.
	DuplicateDestination Code = "duplicate_destination"
	// InvalidScheme: a destination has no scheme or one other than mailto
	// and https (§3).
	InvalidScheme Code = "invalid_scheme"
	// HTTPNotAllowed: a destination uses http:; reports are only POSTed
	// over https (§3).
	HTTPNotAllowed Code = "http_not_allowed"
	// InvalidMailto: a mailto: destination has no valid address (RFC 6068).
	InvalidMailto Code = "invalid_mailto"
	// InvalidHTTPS: an https: destination is not an absolute URL with a
	// valid host.
	InvalidHTTPS Code = "invalid_https"
	// SomeInvalidDestinations: the record has valid destinations and also
	// invalid ones, which receive nothing.
	SomeInvalidDestinations Code = "some_invalid_destinations"
	// NoValidDestinations: the record lists destinations but none is
	// valid; no report can be delivered.
	NoValidDestinations Code = "no_valid_destinations"
)

// Codes returns every finding code this package can report, in
// declaration order. The root package's judgement tests walk it, so each
// code has a judgement rule, a note, or an explicit reason to be ignored.
func Codes() []Code {
	return []Code{
		MultipleRecords, SyntaxErrorCode, MissingRUA, DuplicateRUA, DuplicateDestination, InvalidScheme,
		HTTPNotAllowed, InvalidMailto, InvalidHTTPS, SomeInvalidDestinations, NoValidDestinations,
	}
}
