package keyed

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHexIsHMAC: Hex is the RFC 2104 HMAC-SHA-256 of purpose NUL value,
// differs per secret and per purpose, and is not the plain SHA-256.
func TestHexIsHMAC(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(PurposeDomain + "\x00example.com"))
	assert.Equal(t, hex.EncodeToString(m.Sum(nil)), Hex(secret, PurposeDomain, "example.com"), "Hex")
	plain := sha256.Sum256([]byte("example.com"))
	seen := map[string]bool{hex.EncodeToString(plain[:]): true}
	for _, h := range []string{
		Hex(secret, PurposeDomain, "example.com"),
		Hex([]byte("another secret of 32 bytes......"), PurposeDomain, "example.com"),
		Hex(secret, PurposeVisitor, "example.com"),
		Hex(secret, PurposeRateLimit, "example.com"),
	} {
		assert.False(t, seen[h], "hash %s repeats or is not 32 bytes", h)
		assert.Len(t, h, 64, "hash %s repeats or is not 32 bytes", h)
		seen[h] = true
	}
}
