package tlsrpt

// Code is a stable, snake_case finding about a TLS-RPT record. Codes are
// facts, not judgements: the caller decides status and wording.
type Code string

// Findings.
const (
	// CodeMultipleRecords: more than one v=TLSRPTv1 record; senders treat the
	// domain as not using TLS-RPT (RFC 8460 §3).
	CodeMultipleRecords Code = "multiple_records"
	// CodeSyntaxError: the record does not follow the RFC 8460 §3 grammar
	// and is unusable.
	CodeSyntaxError Code = "syntax_error"
	// CodeMissingRUA: the record has no rua field, which is required (§3).
	CodeMissingRUA Code = "missing_rua"
	// CodeDuplicateRUA: the record has more than one rua field. The grammar
	// does not forbid it; their destinations are merged.
	CodeDuplicateRUA Code = "duplicate_rua"
	// CodeDuplicateDestination: the same destination is listed twice; it
	// counts once.
	CodeDuplicateDestination Code = "duplicate_destination"
	// CodeInvalidScheme: a destination has no scheme or one other than mailto
	// and https (§3).
	CodeInvalidScheme Code = "invalid_scheme"
	// CodeHTTPNotAllowed: a destination uses http:; reports are only POSTed
	// over https (§3).
	CodeHTTPNotAllowed Code = "http_not_allowed"
	// CodeInvalidMailto: a mailto: destination has no valid address (RFC 6068).
	CodeInvalidMailto Code = "invalid_mailto"
	// CodeInvalidHTTPS: an https: destination is not an absolute URL with a
	// valid host.
	CodeInvalidHTTPS Code = "invalid_https"
	// CodeSomeInvalidDestinations: the record has valid destinations and also
	// invalid ones, which receive nothing.
	CodeSomeInvalidDestinations Code = "some_invalid_destinations"
	// CodeNoValidDestinations: the record lists destinations but none is
	// valid; no report can be delivered.
	CodeNoValidDestinations Code = "no_valid_destinations"
)

// Codes returns every finding code this package can report, in
// declaration order. The root package's judgement tests walk it, so each
// code has a judgement rule, a note, or an explicit reason to be ignored.
func Codes() []Code {
	return []Code{
		CodeMultipleRecords, CodeSyntaxError, CodeMissingRUA, CodeDuplicateRUA, CodeDuplicateDestination, CodeInvalidScheme,
		CodeHTTPNotAllowed, CodeInvalidMailto, CodeInvalidHTTPS, CodeSomeInvalidDestinations, CodeNoValidDestinations,
	}
}
