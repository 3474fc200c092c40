package dmarc

// Code is a stable snake_case finding. Codes are facts for the caller to
// judge and word; they carry no data from the record or the DNS.
type Code string

// Record-level codes: set by Parse, reported by Check for the selected
// policy record only.
const (
	// CodeUppercaseVersionTag: the version tag is written "V=DMARC1". The
	// ABNF literal is case-insensitive (RFC 9989 §4.8, RFC 5234 §2.3) but
	// some receivers only accept "v".
	CodeUppercaseVersionTag Code = "uppercase_version_tag"
	// CodeTagNameCase: a tag name is a registered tag's name in another
	// case (P=reject). Tag names are case-sensitive (RFC 9989 §4.7 takes
	// the tag-list rules of RFC 6376 §3.2), so it is not that tag: it is
	// ignored like an unknown tag, and P=reject sets no policy.
	CodeTagNameCase Code = "tag_name_case"
	// CodeMissingP: no p tag (RFC 9989 §4.7, §4.10.1).
	CodeMissingP Code = "missing_p"
	// CodeInvalidP: the p value is not none, quarantine or reject (RFC 9989
	// §4.8, §4.10.1).
	CodeInvalidP Code = "invalid_p"
	// CodeInvalidSP: the sp value is not a policy; the whole record then
	// falls back (RFC 9989 §4.10.1).
	CodeInvalidSP Code = "invalid_sp"
	// CodeInvalidNP: the np value is not a policy; the whole record then
	// falls back (RFC 9989 §4.10.1).
	CodeInvalidNP Code = "invalid_np"
	// CodeInvalidPSD: the psd value is not y, n or u; "u" applies (§4.8).
	CodeInvalidPSD Code = "invalid_psd"
	// CodeInvalidT: the t value is not y or n; "n" applies (§4.8).
	CodeInvalidT Code = "invalid_t"
	// CodeInvalidADKIM: the adkim value is not r or s (§4.7). RFC 9989
	// receivers use relaxed (§4.8), others reject the record.
	CodeInvalidADKIM Code = "invalid_adkim"
	// CodeInvalidASPF: the aspf value is not r or s (§4.7), as above.
	CodeInvalidASPF Code = "invalid_aspf"
	// CodeInvalidFO: the fo value is not a valid option list (§4.8 dmarc-fo).
	CodeInvalidFO Code = "invalid_fo"
	// CodeFOWithoutRUF: fo is present without ruf and is ignored (§4.7).
	CodeFOWithoutRUF Code = "fo_without_ruf"
	// CodeDuplicateTag: a tag appears more than once. RFC 9989 is silent;
	// the first occurrence is used, strict tag-list parsers (RFC 6376
	// §3.2) ignore the whole record.
	CodeDuplicateTag Code = "duplicate_tag"
	// CodeMalformedTag: a part of the record is not a tag=value pair with
	// a letters-only name and printable value; it is ignored (§4.8).
	CodeMalformedTag Code = "malformed_tag"
	// CodeUnknownTag: an unregistered tag, ignored (§4.7).
	CodeUnknownTag Code = "unknown_tag"
	// CodeInvalidRUA: the rua tag holds a URI that is not a valid DMARC
	// reporting URI (§4.6, §4.8), or no URI at all.
	CodeInvalidRUA Code = "invalid_rua_uri"
	// CodeInvalidRUF: the same for the ruf tag.
	CodeInvalidRUF Code = "invalid_ruf_uri"
	// CodeSizeSuffix: a reporting URI carries the obsolete "!size" suffix,
	// which receivers ignore (§4.8 obs-dmarc-report-size).
	CodeSizeSuffix Code = "obsolete_size_suffix"
	// CodeURINoAddress: a report URI is "mailto:" without an address. It
	// is a valid URI (RFC 3986; RFC 6068 mailtoURI = "mailto:" [ to ]
	// [ hfields ]), so a rua of it supplies the none fallback (RFC 9989
	// §4.10.1), but it names no mailbox: no report goes anywhere.
	CodeURINoAddress Code = "uri_without_address"
	// CodeUnsupportedScheme: a reporting URI uses a scheme other than
	// mailto or https; receivers ignore unsupported schemes (§4.7).
	CodeUnsupportedScheme Code = "unsupported_uri_scheme"
	// CodeTestMode: t=y; receivers apply one level less than the policy
	// (reject→quarantine, quarantine→none) (§4.7, App. A.6).
	CodeTestMode Code = "test_mode"
	// CodeLegacyPct: the pct tag, removed by RFC 9989 (App. C.5), with a
	// value below 100: RFC 7489 receivers still honour it and apply the
	// policy to only that share of the failing mail.
	CodeLegacyPct Code = "legacy_pct"
	// CodeLegacyPctFull: the pct tag with the value 100, RFC 7489's
	// default (the whole mail stream), or with an invalid value, which
	// RFC 7489 receivers replace by that default (§6.3, §6.6.3): a
	// historic tag that changes nothing.
	CodeLegacyPctFull Code = "legacy_pct_100"
	// CodeLegacyRF: the rf tag, removed by RFC 9989 (App. C.5).
	CodeLegacyRF Code = "legacy_rf"
	// CodeLegacyRI: the ri tag, removed by RFC 9989 (App. C.5).
	CodeLegacyRI Code = "legacy_ri"
)

// Discovery-level codes: set by Check.
const (
	// CodeNameTooLong: "_dmarc." followed by the author domain is longer
	// than MaxNameLen, so that name cannot exist and holds no record; the
	// walk went on with the shorter names (RFC 9989 §4.10).
	CodeNameTooLong Code = "own_name_too_long"
	// CodeMultipleRecords: a queried target had more than one DMARC
	// record; all of them were discarded (RFC 9989 §4.10 steps 2 and 6).
	CodeMultipleRecords Code = "multiple_records"
	// CodeIgnoredRecord: a TXT record at a queried target mentions
	// v=DMARC1 but does not begin with a valid version tag, so it is not
	// a DMARC record (RFC 9989 §4.7: "v" first, value "DMARC1").
	CodeIgnoredRecord Code = "ignored_record"
	// CodeMissingSeparator: a TXT record at a queried target begins with
	// the version tag, but the next tag follows without the ";" separator
	// ("v=DMARC1 p=reject"), so the version value is not DMARC1 and the
	// record is not a DMARC record (RFC 9989 §4.7, §4.8). Reported instead
	// of CodeIgnoredRecord for such a record.
	CodeMissingSeparator Code = "missing_separator"
	// CodeRecordAtApex: a DMARC record is published at the domain itself
	// instead of its _dmarc name, where it has no effect (§4.5).
	CodeRecordAtApex Code = "record_at_apex"
	// CodeTreeWalkShortcut: the domain has more than eight labels, so the
	// walk skipped intermediate names (RFC 9989 §4.10 step 4, §5.1.8).
	CodeTreeWalkShortcut Code = "tree_walk_shortcut"
	// CodeNearerRecordIgnored: the walk found a record nearer to the
	// domain than the selected one; it is not used because it neither
	// belongs to the domain nor declares psd=n (§4.10.2, App. B.4).
	CodeNearerRecordIgnored Code = "nearer_record_ignored"
	// CodePSDPolicy: the selected record is a Public Suffix Domain's
	// (psd=y), because the Organizational Domain has none (§4.10.1).
	CodePSDPolicy Code = "psd_policy"
	// CodeSubdomainPolicyNone: the domain's own record asks for reject or
	// quarantine but sets sp=none, so its subdomains get no protection
	// (RFC 9989 §4.7, §4.10.1).
	CodeSubdomainPolicyNone Code = "sp_none"
	// CodeExistenceUnknown: whether the domain exists could not be
	// determined and the inherited np policy differs from the one for
	// existing subdomains; the existing-subdomain policy was applied.
	CodeExistenceUnknown Code = "existence_unknown"
	// CodeExternalUnauthorized: a rua destination in another
	// organization has no authorization record, so reports will not be
	// sent there (RFC 9990 §3).
	CodeExternalUnauthorized Code = "rua_external_unauthorized"
	// CodeExternalUnverified: the authorization record of a rua
	// destination in another organization could not be looked up (the
	// lookup was inconclusive) (RFC 9990 §3).
	CodeExternalUnverified Code = "rua_external_unverified"
)

// Codes returns every finding code this package can report, in
// declaration order. The root package's judgement tests walk it, so each
// code has a judgement rule, a note, or an explicit reason to be ignored.
func Codes() []Code {
	return []Code{
		CodeUppercaseVersionTag, CodeTagNameCase, CodeMissingP, CodeInvalidP, CodeInvalidSP,
		CodeInvalidNP, CodeInvalidPSD, CodeInvalidT, CodeInvalidADKIM, CodeInvalidASPF, CodeInvalidFO,
		CodeFOWithoutRUF, CodeDuplicateTag, CodeMalformedTag, CodeUnknownTag, CodeInvalidRUA,
		CodeInvalidRUF, CodeSizeSuffix, CodeURINoAddress, CodeUnsupportedScheme, CodeTestMode, CodeLegacyPct, CodeLegacyPctFull, CodeLegacyRF,
		CodeLegacyRI, CodeMultipleRecords, CodeIgnoredRecord, CodeMissingSeparator, CodeRecordAtApex,
		CodeTreeWalkShortcut, CodeNearerRecordIgnored, CodePSDPolicy, CodeSubdomainPolicyNone,
		CodeExistenceUnknown, CodeExternalUnauthorized, CodeExternalUnverified, CodeNameTooLong,
	}
}
