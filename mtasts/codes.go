package mtasts

// Code is a stable, snake_case finding about an MTA-STS setup. Codes are
// facts, not judgements: the caller decides status and wording.
type Code string

// Findings about the _mta-sts TXT announcement (RFC 8461 §3.1).
const (
	// AnnouncementMultiple: more than one v=STSv1 record; senders treat the
	// domain as not using MTA-STS (§3.1).
	AnnouncementMultiple Code = "announcement_multiple"
	// AnnouncementSyntax: the v=STSv1 record does not follow the §3.1 ABNF.
	AnnouncementSyntax Code = "announcement_syntax"
	// AnnouncementMissingID: the record has no id field (§3.1).
	AnnouncementMissingID Code = "announcement_missing_id"
	// AnnouncementBadID: the id is not 1 to 32 letters and digits (§3.1).
	AnnouncementBadID Code = "announcement_bad_id"
	// AnnouncementDuplicateField: a field name repeats; the first one is
	// used (RFC silent; the policy file's first-wins rule of §3.2).
	AnnouncementDuplicateField Code = "announcement_duplicate_field"
)

// Findings about reaching the policy host and fetching the policy
// (RFC 8461 §3.2, §3.3).
const (
	// PolicyHostNotFound: mta-sts.<domain> has no A or AAAA record.
	PolicyHostNotFound Code = "policy_host_not_found"
	// PolicyHostDNSInconclusive: an A or AAAA lookup for the policy host
	// was inconclusive.
	PolicyHostDNSInconclusive Code = "policy_host_dns_inconclusive"
	// PolicyHostNonPublic: the policy host resolves to an address that is
	// not public (private, loopback, link-local, CGNAT, …); it was refused
	// and never connected to.
	PolicyHostNonPublic Code = "policy_host_non_public"
	// PolicyConnectFailed: no TCP connection could be made to any vetted
	// address of the policy host.
	PolicyConnectFailed Code = "policy_connect_failed"
	// PolicyFetchTimeout: the policy host's lookups, the connection, the
	// TLS handshake or the HTTP exchange did not finish before the
	// deadline (or the caller's context ended first).
	PolicyFetchTimeout Code = "policy_fetch_timeout"
	// PolicyCertNameMismatch: the server certificate is not valid for
	// mta-sts.<domain> (§3.3).
	PolicyCertNameMismatch Code = "policy_cert_name_mismatch"
	// PolicyCertExpired: the server certificate is expired or not yet
	// valid (§3.3).
	PolicyCertExpired Code = "policy_cert_expired"
	// PolicyCertUntrusted: the certificate chain does not lead to a trusted
	// root (§3.3).
	PolicyCertUntrusted Code = "policy_cert_untrusted"
	// PolicyCertInvalid: the certificate failed verification for another
	// reason (§3.3).
	PolicyCertInvalid Code = "policy_cert_invalid"
	// PolicyTLSFailed: the TLS handshake failed for a reason other than
	// certificate verification.
	PolicyTLSFailed Code = "policy_tls_failed"
	// PolicyHTTPFailed: the HTTP response was malformed or its body could
	// not be read.
	PolicyHTTPFailed Code = "policy_http_failed"
	// PolicyRedirect: the server answered with a 3xx status; redirects are
	// never followed (§3.3).
	PolicyRedirect Code = "policy_redirect"
	// PolicyStatusClientError: the server answered 4xx; only 200 yields a
	// policy (§3.3).
	PolicyStatusClientError Code = "policy_status_client_error"
	// PolicyStatusServerError: the server answered 5xx (§3.3).
	PolicyStatusServerError Code = "policy_status_server_error"
	// PolicyStatusUnexpected: the server answered a status that is neither
	// 200 nor 3xx, 4xx or 5xx (§3.3).
	PolicyStatusUnexpected Code = "policy_status_unexpected"
	// PolicyTooLarge: the body exceeds MaxPolicySize; it is not parsed
	// (§3.3).
	PolicyTooLarge Code = "policy_too_large"
	// PolicyMediaType: the Content-Type is not text/plain; validating
	// senders may reject the policy. The body is still parsed (§3.2).
	PolicyMediaType Code = "policy_media_type"
)

// Findings about the policy file (RFC 8461 §3.2).
const (
	// PolicySyntax: a line is not `key: value` with a valid key and value.
	PolicySyntax Code = "policy_syntax"
	// PolicyVersionMissing: no version field.
	PolicyVersionMissing Code = "policy_version_missing"
	// PolicyVersionInvalid: the version is not STSv1.
	PolicyVersionInvalid Code = "policy_version_invalid"
	// PolicyModeMissing: no mode field.
	PolicyModeMissing Code = "policy_mode_missing"
	// PolicyModeInvalid: the mode is not enforce, testing or none
	// (case-sensitive).
	PolicyModeInvalid Code = "policy_mode_invalid"
	// PolicyMaxAgeMissing: no max_age field.
	PolicyMaxAgeMissing Code = "policy_max_age_missing"
	// PolicyMaxAgeInvalid: max_age is not 1 to 10 digits.
	PolicyMaxAgeInvalid Code = "policy_max_age_invalid"
	// PolicyMaxAgeTooLarge: max_age exceeds MaxMaxAge.
	PolicyMaxAgeTooLarge Code = "policy_max_age_too_large"
	// PolicyMaxAgeZero: max_age is 0; valid, but senders cannot cache the
	// policy, so it protects nothing.
	PolicyMaxAgeZero Code = "policy_max_age_zero"
	// PolicyMXMissing: mode enforce or testing without any mx field.
	PolicyMXMissing Code = "policy_mx_missing"
	// PolicyMXInvalid: an mx value is not a valid host name or `*.`
	// wildcard pattern (§3.2, §4.1).
	PolicyMXInvalid Code = "policy_mx_invalid"
	// PolicyDuplicateField: version, mode or max_age appears more than
	// once; the first one is used (§3.2).
	PolicyDuplicateField Code = "policy_duplicate_field"
	// PolicyMixedLineEndings: the file mixes LF and CRLF line endings.
	// Valid (each line may end either way), but unusual.
	PolicyMixedLineEndings Code = "policy_mixed_line_endings"
)

// Codes returns every finding code this package can report, in
// declaration order. The root package's judgement tests walk it, so each
// code has a judgement rule, a note, or an explicit reason to be ignored.
func Codes() []Code {
	return []Code{
		AnnouncementMultiple, AnnouncementSyntax, AnnouncementMissingID, AnnouncementBadID,
		AnnouncementDuplicateField, PolicyHostNotFound, PolicyHostDNSInconclusive, PolicyHostNonPublic,
		PolicyConnectFailed, PolicyFetchTimeout, PolicyCertNameMismatch, PolicyCertExpired,
		PolicyCertUntrusted, PolicyCertInvalid, PolicyTLSFailed, PolicyHTTPFailed, PolicyRedirect,
		PolicyStatusClientError, PolicyStatusServerError, PolicyStatusUnexpected, PolicyTooLarge,
		PolicyMediaType, PolicySyntax, PolicyVersionMissing, PolicyVersionInvalid, PolicyModeMissing,
		PolicyModeInvalid, PolicyMaxAgeMissing, PolicyMaxAgeInvalid, PolicyMaxAgeTooLarge,
		PolicyMaxAgeZero, PolicyMXMissing, PolicyMXInvalid, PolicyDuplicateField, PolicyMixedLineEndings,
	}
}
