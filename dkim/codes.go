package dkim

// Code is a stable, machine-readable finding about a DKIM key record.
// Codes never embed data from the record.
type Code string

// Findings reported by [Parse] (in [Record.Findings]) and by [Check] (in
// [Result.Findings]).
const (
	// CodeNoRecord: the selector has no TXT record (NODATA or NXDOMAIN), so
	// no signature made with it can verify (RFC 6376 §6.1.2).
	CodeNoRecord Code = "no_record"
	// CodeDanglingCNAME: the selector is an alias whose target does not
	// exist (RFC 1034 §3.6.2); reported together with CodeNoRecord.
	CodeDanglingCNAME Code = "dangling_cname"
	// CodeMultipleRecords: more than one TXT record answers at the
	// selector; which one a verifier uses is undefined (RFC 6376 §3.6.2.2).
	CodeMultipleRecords Code = "multiple_records"
	// CodeNotDKIMRecord: the text is not a DKIM tag-list (RFC 6376 §3.2),
	// e.g. a verification token or SPF text from a wildcard.
	CodeNotDKIMRecord Code = "not_dkim_record"
	// CodeInvalidVersion: the record starts with a v tag other than
	// exactly "DKIM1" and must be discarded (RFC 6376 §3.6.1).
	CodeInvalidVersion Code = "invalid_version"
	// CodeVersionNotFirst: a v tag is present but is not the first tag
	// (RFC 6376 §3.6.1); the record is invalid.
	CodeVersionNotFirst Code = "version_not_first"
	// CodeDuplicateTag: a tag name occurs twice, which makes the whole
	// tag-list invalid (RFC 6376 §3.2).
	CodeDuplicateTag Code = "duplicate_tag"
	// CodeKeyMissing: the record has no p tag, which is required
	// (RFC 6376 §3.6.1).
	CodeKeyMissing Code = "key_missing"
	// CodeKeyRevoked: the p tag is empty, the key is revoked
	// (RFC 6376 §3.6.1).
	CodeKeyRevoked Code = "key_revoked"
	// CodeInvalidBase64: the p tag is not valid base64 (RFC 6376 §3.6.1,
	// base64string in §2.4).
	CodeInvalidBase64 Code = "invalid_base64"
	// CodeInvalidKey: k=rsa (the default) but the decoded p value is
	// neither an RSA SubjectPublicKeyInfo nor a PKCS#1 RSAPublicKey
	// (RFC 6376 §3.6.1, RFC 8017 §A.1.1).
	CodeInvalidKey Code = "invalid_key"
	// CodePKCS1Key: the RSA key is a bare PKCS#1 RSAPublicKey instead of a
	// SubjectPublicKeyInfo; the RFC text allows it (erratum 3017) but some
	// verifiers reject it.
	CodePKCS1Key Code = "pkcs1_key"
	// CodeKeyTooShort: the RSA key has fewer than MinRSABits bits;
	// signatures made with it must not be considered valid (RFC 8301 §3.2).
	CodeKeyTooShort Code = "key_too_short"
	// CodeWeakKey: the RSA key has MinRSABits up to RecommendedRSABits-1
	// bits: allowed, but signers SHOULD use 2048 bits (RFC 8301 §3.2).
	CodeWeakKey Code = "weak_key"
	// CodeLargeKey: the RSA key has more than MaxVerifiedRSABits bits,
	// which verifiers are not required to handle (RFC 8301 §3.2).
	CodeLargeKey Code = "large_key"
	// CodeInvalidEd25519Length: k=ed25519 but p does not decode to exactly
	// Ed25519KeySize bytes, e.g. an SPKI was published (RFC 8463 §4.2).
	CodeInvalidEd25519Length Code = "invalid_ed25519_length"
	// CodeUnknownKeyType: the k tag names a key type other than rsa and
	// ed25519; verifiers cannot use the key (RFC 6376 §3.6.1, RFC 8463).
	CodeUnknownKeyType Code = "unknown_key_type"
	// CodeSHA256NotAllowed: the h tag does not list sha256, e.g. h=sha1;
	// since SHA-1 must not be used, no algorithm is left (RFC 8301 §3.1,
	// RFC 6376 §3.6.1).
	CodeSHA256NotAllowed Code = "sha256_not_allowed"
	// CodeServiceNotEmail: the s tag lists neither email nor *, so the key
	// must not be used for mail (RFC 6376 §3.6.1).
	CodeServiceNotEmail Code = "service_not_email"
	// CodeTestMode: the t tag has the y flag: the domain is testing DKIM
	// and verifiers must treat signed mail as unsigned (RFC 6376 §3.6.1).
	CodeTestMode Code = "test_mode"
)

// unusable lists the findings that leave a verifier without a key it may
// use to verify an SHA-256 signature on mail.
var unusable = map[Code]bool{
	CodeKeyMissing: true, CodeKeyRevoked: true, CodeInvalidBase64: true,
	CodeInvalidKey: true, CodeKeyTooShort: true, CodeInvalidEd25519Length: true,
	CodeUnknownKeyType: true, CodeSHA256NotAllowed: true, CodeServiceNotEmail: true,
}

// Codes returns every finding code this package can report, in
// declaration order. The root package's judgement tests walk it, so each
// code has a judgement rule, a note, or an explicit reason to be ignored.
func Codes() []Code {
	return []Code{
		CodeNoRecord, CodeDanglingCNAME, CodeMultipleRecords, CodeNotDKIMRecord, CodeInvalidVersion,
		CodeVersionNotFirst, CodeDuplicateTag, CodeKeyMissing, CodeKeyRevoked, CodeInvalidBase64,
		CodeInvalidKey, CodePKCS1Key, CodeKeyTooShort, CodeWeakKey, CodeLargeKey,
		CodeInvalidEd25519Length, CodeUnknownKeyType, CodeSHA256NotAllowed, CodeServiceNotEmail,
		CodeTestMode,
	}
}
