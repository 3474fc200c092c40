package mtasts

// Code is a stable, snake_case finding about an MTA-STS setup. Codes are
// facts, not judgements: the caller decides status and wording.
type Code string

// Findings about the _mta-sts TXT announcement (RFC 8461 §3.1).
const (
	// CodeAnnouncementMultiple: more than one v=STSv1 record; senders treat the
	// domain as not using MTA-STS (§3.1).
	CodeAnnouncementMultiple Code = "announcement_multiple"
	// CodeAnnouncementSyntax: the v=STSv1 record does not follow the §3.1 ABNF.
	CodeAnnouncementSyntax Code = "announcement_syntax"
	// CodeAnnouncementMissingID: the record has no id field (§3.1).
	CodeAnnouncementMissingID Code = "announcement_missing_id"
	// CodeAnnouncementBadID: the id is not 1 to 32 letters and digits (§3.1).
	CodeAnnouncementBadID Code = "announcement_bad_id"
	// CodeAnnouncementDuplicateField: a field name repeats; the first one is
	// used (RFC silent; the policy file's first-wins rule of §3.2).
	CodeAnnouncementDuplicateField Code = "announcement_duplicate_field"
)

// Findings about reaching the policy host and fetching the policy
// (RFC 8461 §3.2, §3.3).
const (
	// CodePolicyHostNotFound: mta-sts.<domain> has no A or AAAA record.
	CodePolicyHostNotFound Code = "policy_host_not_found"
	// CodePolicyHostDNSInconclusive: an A or AAAA lookup for the policy host
	// was inconclusive.
	CodePolicyHostDNSInconclusive Code = "policy_host_dns_inconclusive"
	// CodePolicyHostNonPublic: the policy host resolves to an address that is
	// not public (private, loopback, link-local, CGNAT, …); it was refused
	// and never connected to.
	CodePolicyHostNonPublic Code = "policy_host_non_public"
	// CodePolicyConnectFailed: no TCP connection could be made to any vetted
	// address of the policy host.
	CodePolicyConnectFailed Code = "policy_connect_failed"
	// CodePolicyFetchTimeout: the policy host's lookups, the connection, the
	// TLS handshake or the HTTP exchange did not finish before the
	// deadline (or the caller's context ended first).
	CodePolicyFetchTimeout Code = "policy_fetch_timeout"
	// CodePolicyCertNameMismatch: the server certificate is not valid for
	// mta-sts.<domain> (§3.3).
	CodePolicyCertNameMismatch Code = "policy_cert_name_mismatch"
	// CodePolicyCertExpired: the server certificate is expired or not yet
	// valid (§3.3).
	CodePolicyCertExpired Code = "policy_cert_expired"
	// CodePolicyCertUntrusted: the certificate chain does not lead to a trusted
	// root (§3.3).
	CodePolicyCertUntrusted Code = "policy_cert_untrusted"
	// CodePolicyCertInvalid: the certificate failed verification for another
	// reason (§3.3).
	CodePolicyCertInvalid Code = "policy_cert_invalid"
	// CodePolicyTLSFailed: the TLS handshake failed for a reason other than
	// certificate verification.
	CodePolicyTLSFailed Code = "policy_tls_failed"
	// CodePolicyHTTPFailed: the HTTP response was malformed or its body could
	// not be read.
	CodePolicyHTTPFailed Code = "policy_http_failed"
	// CodePolicyRedirect: the server answered with a 3xx status; redirects are
	// never followed (§3.3).
	CodePolicyRedirect Code = "policy_redirect"
	// CodePolicyStatusClientError: the server answered 4xx; only 200 yields a
	// policy (§3.3).
	CodePolicyStatusClientError Code = "policy_status_client_error"
	// CodePolicyStatusServerError: the server answered 5xx (§3.3).
	CodePolicyStatusServerError Code = "policy_status_server_error"
	// CodePolicyStatusUnexpected: the server answered a status that is neither
	// 200 nor 3xx, 4xx or 5xx (§3.3).
	CodePolicyStatusUnexpected Code = "policy_status_unexpected"
	// CodePolicyTooLarge: the body exceeds MaxPolicySize; it is not parsed
	// (§3.3).
	CodePolicyTooLarge Code = "policy_too_large"
	// CodePolicyMediaType: the Content-Type is not text/plain; validating
	// senders may reject the policy. The body is still parsed (§3.2).
	CodePolicyMediaType Code = "policy_media_type"
)

// Findings about the policy file (RFC 8461 §3.2).
const (
	// CodePolicySyntax: a line is not `key: value` with a valid key and value.
	CodePolicySyntax Code = "policy_syntax"
	// CodePolicyVersionMissing: no version field.
	CodePolicyVersionMissing Code = "policy_version_missing"
	// CodePolicyVersionInvalid: the version is not STSv1.
	CodePolicyVersionInvalid Code = "policy_version_invalid"
	// CodePolicyModeMissing: no mode field.
	CodePolicyModeMissing Code = "policy_mode_missing"
	// CodePolicyModeInvalid: the mode is not enforce, testing or none
	// (case-sensitive).
	CodePolicyModeInvalid Code = "policy_mode_invalid"
	// CodePolicyMaxAgeMissing: no max_age field.
	CodePolicyMaxAgeMissing Code = "policy_max_age_missing"
	// CodePolicyMaxAgeInvalid: max_age is not 1 to 10 digits.
	CodePolicyMaxAgeInvalid Code = "policy_max_age_invalid"
	// CodePolicyMaxAgeTooLarge: max_age exceeds MaxMaxAge.
	CodePolicyMaxAgeTooLarge Code = "policy_max_age_too_large"
	// CodePolicyMaxAgeZero: max_age is 0; valid, but senders cannot cache the
	// policy, so it protects nothing.
	CodePolicyMaxAgeZero Code = "policy_max_age_zero"
	// CodePolicyMXMissing: mode enforce or testing without any mx field.
	CodePolicyMXMissing Code = "policy_mx_missing"
	// CodePolicyMXInvalid: an mx value is not a valid host name or `*.`
	// wildcard pattern (§3.2, §4.1).
	CodePolicyMXInvalid Code = "policy_mx_invalid"
	// CodePolicyDuplicateField: version, mode or max_age appears more than
	// once; the first one is used (§3.2).
	CodePolicyDuplicateField Code = "policy_duplicate_field"
	// CodePolicyMixedLineEndings: the file mixes LF and CRLF line endings.
	// Valid (each line may end either way), but unusual.
	CodePolicyMixedLineEndings Code = "policy_mixed_line_endings"
)

// Codes returns every finding code this package can report, in
// declaration order. The root package's judgement tests walk it, so each
// code has a judgement rule, a note, or an explicit reason to be ignored.
func Codes() []Code {
	return []Code{
		CodeAnnouncementMultiple, CodeAnnouncementSyntax, CodeAnnouncementMissingID, CodeAnnouncementBadID,
		CodeAnnouncementDuplicateField, CodePolicyHostNotFound, CodePolicyHostDNSInconclusive, CodePolicyHostNonPublic,
		CodePolicyConnectFailed, CodePolicyFetchTimeout, CodePolicyCertNameMismatch, CodePolicyCertExpired,
		CodePolicyCertUntrusted, CodePolicyCertInvalid, CodePolicyTLSFailed, CodePolicyHTTPFailed, CodePolicyRedirect,
		CodePolicyStatusClientError, CodePolicyStatusServerError, CodePolicyStatusUnexpected, CodePolicyTooLarge,
		CodePolicyMediaType, CodePolicySyntax, CodePolicyVersionMissing, CodePolicyVersionInvalid, CodePolicyModeMissing,
		CodePolicyModeInvalid, CodePolicyMaxAgeMissing, CodePolicyMaxAgeInvalid, CodePolicyMaxAgeTooLarge,
		CodePolicyMaxAgeZero, CodePolicyMXMissing, CodePolicyMXInvalid, CodePolicyDuplicateField, CodePolicyMixedLineEndings,
	}
}
