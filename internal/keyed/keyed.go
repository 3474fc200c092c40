// Package keyed derives the service's keyed hashes: HMAC-SHA-256 (RFC
// 2104, FIPS 180-4) under a server secret, with a purpose label that
// separates the uses of one secret (a domain hash can never equal a
// visitor hash or a rate-limit key of the same text).
//
// A plain hash of a domain or an IPv4 address is reversible by trying every
// candidate (there are 2^32 IPv4 addresses); a keyed hash is not, for
// anyone without the secret.
package keyed

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// Purposes of the keyed hashes; each is a domain-separation label.
const (
	PurposeDomain    = "mailauth/analytics/domain/v1"      // a scanned domain
	PurposeVisitor   = "mailauth/analytics/visitor/v1"     // a client, under a day key
	PurposeDayKey    = "mailauth/analytics/visitor-day/v1" // the day key of visitor hashes
	PurposeRateLimit = "mailauth/ratelimit/source/v1"      // a rate-limit source key
)

// Sum is the HMAC-SHA-256 of purpose, a zero byte and value under secret.
func Sum(secret []byte, purpose, value string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write([]byte(value))
	return m.Sum(nil)
}

// Hex is Sum in lower-case hexadecimal.
func Hex(secret []byte, purpose, value string) string {
	return hex.EncodeToString(Sum(secret, purpose, value))
}
