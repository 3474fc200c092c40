package dkim

import (
	"slices"
	"strings"
)

// Key sizes (RFC 8301 §3.2, RFC 8463 §4.2).
const (
	// MinRSABits is the smallest RSA key a verifier may accept: signatures
	// made with shorter keys must not be considered valid (RFC 8301 §3.2).
	MinRSABits = 1024
	// RecommendedRSABits is the RSA key size signers SHOULD use
	// (RFC 8301 §3.2); smaller keys are reported as weak.
	RecommendedRSABits = 2048
	// MaxVerifiedRSABits is the largest RSA key verifiers MUST be able to
	// validate (RFC 8301 §3.2); larger keys are reported.
	MaxVerifiedRSABits = 4096
	// Ed25519KeySize is the length in bytes of an Ed25519 public key as
	// the p tag must carry it: raw, not wrapped in an SPKI (RFC 8463 §4.2).
	Ed25519KeySize = 32
)

// Version is the only value the v tag may have (RFC 6376 §3.6.1).
const Version = "DKIM1"

// KeyType is the type of the published key: the k tag (RFC 6376 §3.6.1,
// RFC 8463 §4.2). Values are the API's wire words.
type KeyType string

// Key types.
const (
	KeyTypeNone    KeyType = ""        // not known: no record evaluated, or records disagree (the API's null)
	KeyTypeRSA     KeyType = "rsa"     // k=rsa, or no k tag (the default)
	KeyTypeEd25519 KeyType = "ed25519" // k=ed25519 (RFC 8463)
	KeyTypeUnknown KeyType = "unknown" // any other k value: verifiers cannot use the key
)

// KeyState says whether a record publishes a key (the p tag).
type KeyState string

// Key states.
const (
	KeyPresent KeyState = "present" // p has a non-empty value
	KeyRevoked KeyState = "revoked" // p is present and empty: the key is revoked (RFC 6376 §3.6.1)
	KeyMissing KeyState = "missing" // no p tag: the record is invalid (p is required)
)

// Record is a parsed DKIM key record. It holds facts only: the key
// itself stays unexported and [Record.String] does not print it.
type Record struct {
	// HasVersion reports whether the record starts with v=DKIM1. The tag
	// is optional (RFC 6376 §3.6.1).
	HasVersion bool
	// KeyType is the k tag; KeyTypeRSA when absent. Never KeyTypeNone.
	KeyType KeyType
	// Hashes lists the h tag's algorithms, lower-cased, in record order,
	// unknown names included. Nil when there is no h tag (every algorithm
	// allowed); empty but non-nil for an h tag without names.
	Hashes []string
	// Services lists the s tag's service types, lower-cased, in record
	// order. Nil when there is no s tag (the default "*").
	Services []string
	// Flags lists the t tag's flags, lower-cased, in record order, unknown
	// flags included. Nil when there is no t tag.
	Flags []string
	// Key says whether p publishes a key, revokes the selector, or is
	// missing.
	Key KeyState
	// KeyBits is the size of an RSA modulus in bits; 0 for other key
	// types and when the key could not be decoded.
	KeyBits int
	// Findings are the problems and notable facts of this record, sorted,
	// without duplicates. Every finding except CodeNoRecord,
	// CodeDanglingCNAME, CodeMultipleRecords and the syntax codes carried
	// by a [SyntaxError] can appear here.
	Findings []Code

	// p is the p tag with folding white space removed. Key material:
	// never exported, never printed.
	p string
}

// TestMode reports whether the t tag has the y flag (RFC 6376 §3.6.1).
func (r Record) TestMode() bool { return slices.Contains(r.Flags, "y") }

// StrictIdentity reports whether the t tag has the s flag: the i= domain
// of a signature must equal its d= domain exactly (RFC 6376 §3.6.1).
func (r Record) StrictIdentity() bool { return slices.Contains(r.Flags, "s") }

// EmailServiceAllowed reports whether the s tag permits email: it is
// absent, or lists email or * (RFC 6376 §3.6.1).
func (r Record) EmailServiceAllowed() bool {
	return r.Services == nil || slices.Contains(r.Services, "email") || slices.Contains(r.Services, "*")
}

// SHA256Allowed reports whether the h tag permits SHA-256: it is absent
// (every algorithm), or lists sha256 (RFC 6376 §3.6.1, RFC 8301 §3.1).
func (r Record) SHA256Allowed() bool {
	return r.Hashes == nil || slices.Contains(r.Hashes, "sha256")
}

// Usable reports whether a verifier could use the key to verify an
// rsa-sha256 or ed25519-sha256 signature on mail: a key of a known type
// that decodes, RSA of at least MinRSABits bits, SHA-256 and email
// allowed. Test mode and weakness do not make a key unusable.
func (r Record) Usable() bool {
	for _, c := range r.Findings {
		if unusable[c] {
			return false
		}
	}
	return r.Key == KeyPresent
}

// keyPlaceholder stands for a non-empty key in [Record.String].
const keyPlaceholder = "[key]"

// String returns the record in canonical tag-list form with the key
// replaced by a placeholder, so that printing a Record never discloses key
// material. The result parses, but not back to the same key.
func (r Record) String() string {
	if r.p == "" {
		return r.render("")
	}
	return r.render(keyPlaceholder)
}

// GoString is String, so that %#v does not print the key either.
func (r Record) GoString() string { return r.String() }

// render writes the record in canonical form with p set to key: v first
// when present, then k, h, s, t and p; unknown tags and n are dropped.
func (r Record) render(key string) string {
	var parts []string
	if r.HasVersion {
		parts = append(parts, "v="+Version)
	}
	parts = append(parts, "k="+string(r.KeyType))
	if r.Hashes != nil {
		parts = append(parts, "h="+strings.Join(r.Hashes, ":"))
	}
	if r.Services != nil {
		parts = append(parts, "s="+strings.Join(r.Services, ":"))
	}
	if r.Flags != nil {
		parts = append(parts, "t="+strings.Join(r.Flags, ":"))
	}
	if r.Key != KeyMissing {
		parts = append(parts, "p="+key)
	}
	return strings.Join(parts, "; ")
}
