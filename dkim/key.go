package dkim

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"

	"github.com/mailauth/mailauth/internal/findings"
)

// inspect decodes the key of r, sets r.KeyBits and returns the findings
// of the record, normalized.
func (r *Record) inspect() []Code {
	var codes []Code
	switch r.Key {
	case KeyMissing:
		codes = append(codes, CodeKeyMissing)
	case KeyRevoked:
		codes = append(codes, CodeKeyRevoked)
	case KeyPresent:
		var keyCodes []Code
		r.KeyBits, keyCodes = decodeKey(r.KeyType, r.p)
		codes = append(codes, keyCodes...)
	}
	if r.KeyType == KeyTypeUnknown {
		codes = append(codes, CodeUnknownKeyType)
	}
	if !r.SHA256Allowed() {
		codes = append(codes, CodeSHA256NotAllowed)
	}
	if !r.EmailServiceAllowed() {
		codes = append(codes, CodeServiceNotEmail)
	}
	if r.TestMode() {
		codes = append(codes, CodeTestMode)
	}
	return findings.Normalize(codes)
}

// decodeKey decodes the base64 p value for key type kt and returns the
// RSA modulus size in bits (0 for other types) and the key's findings.
// The decoded bytes are dropped here: they never leave this function.
func decodeKey(kt KeyType, p string) (int, []Code) {
	der, err := base64.StdEncoding.DecodeString(p)
	if err != nil {
		return 0, []Code{CodeInvalidBase64}
	}
	switch kt {
	case KeyTypeRSA:
		return rsaKey(der)
	case KeyTypeEd25519:
		if len(der) != Ed25519KeySize {
			return 0, []Code{CodeInvalidEd25519Length}
		}
	}
	return 0, nil
}

// rsaKey decodes an RSA public key published as a SubjectPublicKeyInfo
// (what signers publish) or, per RFC 6376 erratum 3017, as a PKCS#1
// RSAPublicKey, and returns its size and findings.
func rsaKey(der []byte) (int, []Code) {
	if pub, err := x509.ParsePKIXPublicKey(der); err == nil {
		k, ok := pub.(*rsa.PublicKey)
		if !ok {
			return 0, []Code{CodeInvalidKey} // an SPKI of another algorithm
		}
		return k.N.BitLen(), sizeCodes(k.N.BitLen())
	}
	k, err := x509.ParsePKCS1PublicKey(der)
	if err != nil {
		return 0, []Code{CodeInvalidKey}
	}
	return k.N.BitLen(), append(sizeCodes(k.N.BitLen()), CodePKCS1Key)
}

// sizeCodes returns the finding for an RSA modulus of bits bits
// (RFC 8301 §3.2).
func sizeCodes(bits int) []Code {
	switch {
	case bits < MinRSABits:
		return []Code{CodeKeyTooShort}
	case bits < RecommendedRSABits:
		return []Code{CodeWeakKey}
	case bits > MaxVerifiedRSABits:
		return []Code{CodeLargeKey}
	}
	return nil
}
