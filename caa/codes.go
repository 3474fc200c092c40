package caa

// Code is a stable identifier of one finding about a CAA record set.
type Code string

// Findings, in the order they are reported.
const (
	// CodeCriticalUnknown: a property has the issuer-critical flag (128)
	// and a tag that is not understood, so no CA may issue (RFC 8659 §4.1).
	CodeCriticalUnknown Code = "critical_unknown_tag"
	// CodeCriticalOptional: a property has the issuer-critical flag and a
	// registered tag that CAs are not required to implement (anything but
	// RFC 8659's issue, issuewild and iodef, e.g. contactemail or
	// contactphone); a CA that does not implement it must refuse to issue
	// (RFC 8659 §4.1).
	CodeCriticalOptional Code = "critical_optional_tag"
	// CodeInvalidTag: a tag is not made of ASCII letters and digits only
	// (RFC 8659 §4.1); the property is ignored.
	CodeInvalidTag Code = "invalid_tag"
	// CodeUnknownTag: a property without the critical flag has an unknown
	// tag; CAs ignore it (RFC 8659 §4.1).
	CodeUnknownTag Code = "unknown_tag"
	// CodeReservedFlags: flag bits other than issuer-critical are set; they
	// must be 0 when publishing (RFC 8659 §4.1).
	CodeReservedFlags Code = "reserved_flags"
	// CodeIssueMalformed: an issue value does not match the grammar of
	// RFC 8659 §4.2; it authorizes no CA.
	CodeIssueMalformed Code = "issue_malformed"
	// CodeIssueWildMalformed: an issuewild value does not match the grammar
	// (RFC 8659 §4.3); it authorizes no CA for wildcard names.
	CodeIssueWildMalformed Code = "issuewild_malformed"
	// CodeIssueMailMalformed: an issuemail value does not match the grammar
	// (RFC 9495 §3); it authorizes no CA for S/MIME certificates.
	CodeIssueMailMalformed Code = "issuemail_malformed"
	// CodeIssuerTrailingDot: an issuer domain name ends with a dot, which
	// the grammar of RFC 8659 §4.2 does not allow (the value counts as
	// malformed; CA behaviour varies).
	CodeIssuerTrailingDot Code = "issuer_trailing_dot"
	// CodeIssuerCase: an issuer domain name is not in lower case. DNS
	// names compare case-insensitively, but some CAs (Let's Encrypt)
	// compare the name exactly with their own lower-case form and refuse.
	CodeIssuerCase Code = "issuer_not_lower_case"
	// CodeIodefInvalid: an iodef value is not a mailto:, http: or https:
	// URL (RFC 8659 §4.4).
	CodeIodefInvalid Code = "iodef_invalid"
	// CodeClimbTruncated: the search asked MaxClimb names without an answer
	// and stopped.
	CodeClimbTruncated Code = "climb_truncated"
)

// Codes returns every finding code this package can report, in
// declaration order. The root package's judgement tests walk it, so each
// code has a judgement rule, a note, or an explicit reason to be ignored.
func Codes() []Code { return append([]Code(nil), order...) }

// order is the order findings are reported in.
var order = []Code{
	CodeCriticalUnknown, CodeCriticalOptional, CodeInvalidTag, CodeUnknownTag, CodeReservedFlags,
	CodeIssueMalformed, CodeIssueWildMalformed, CodeIssueMailMalformed,
	CodeIssuerTrailingDot, CodeIssuerCase, CodeIodefInvalid, CodeClimbTruncated,
}
