package dane

import "fmt"

// The certificate usages of RFC 6698 §2.1.1 (names of RFC 7218).
const (
	UsagePKIXTA uint8 = 0 // CA constraint: unusable for SMTP (RFC 7672 §3.1.3)
	UsagePKIXEE uint8 = 1 // service certificate constraint: unusable for SMTP
	UsageDANETA uint8 = 2 // trust anchor assertion
	UsageDANEEE uint8 = 3 // domain-issued certificate
)

// The selectors of RFC 6698 §2.1.2.
const (
	SelectorCert uint8 = 0 // the full certificate
	SelectorSPKI uint8 = 1 // the SubjectPublicKeyInfo
)

// The matching types of RFC 6698 §2.1.3.
const (
	MatchingFull   uint8 = 0 // exact match on the selected content
	MatchingSHA256 uint8 = 1 // SHA-256 hash of it
	MatchingSHA512 uint8 = 2 // SHA-512 hash of it
)

// TLSA is one parsed TLSA record (RFC 6698 §2.1).
type TLSA struct {
	Usage        uint8
	Selector     uint8
	MatchingType uint8
	// Data is the certificate association data. It is wire data and
	// must never be serialised, logged or shown.
	Data []byte
}

// Parse decodes the RDATA of a TLSA record: three octets (usage,
// selector, matching type) followed by at least one octet of association
// data (RFC 6698 §2.1.4 requires data; an empty field cannot be matched).
func Parse(rdata []byte) (TLSA, error) {
	if len(rdata) < 4 {
		return TLSA{}, fmt.Errorf("%w: %d octets of RDATA, want at least 4", ErrSyntax, len(rdata))
	}
	return TLSA{Usage: rdata[0], Selector: rdata[1], MatchingType: rdata[2], Data: append([]byte(nil), rdata[3:]...)}, nil
}

// Problem says why an SMTP client cannot use a TLSA record.
type Problem int

// The problems of a TLSA record, from none to the worst.
const (
	// ProblemNone: the record is usable (DANE-TA or DANE-EE, a known
	// selector and matching type, data of the right length).
	ProblemNone Problem = iota
	// ProblemPKIX: a PKIX usage (0 or 1), which SMTP clients treat as
	// unusable (RFC 7672 §3.1.3).
	ProblemPKIX
	// ProblemParameters: an unknown usage, selector or matching type, or
	// association data whose length does not fit the matching type (32
	// octets for SHA-256, 64 for SHA-512; RFC 6698 §2.1.3, RFC 7671 §9).
	ProblemParameters
)

// Problem returns what keeps an SMTP client from using t, or ProblemNone.
func (t TLSA) Problem() Problem {
	if t.Usage > UsageDANEEE || t.Selector > SelectorSPKI || t.MatchingType > MatchingSHA512 {
		return ProblemParameters
	}
	switch {
	case t.MatchingType == MatchingSHA256 && len(t.Data) != 32,
		t.MatchingType == MatchingSHA512 && len(t.Data) != 64,
		len(t.Data) == 0:
		return ProblemParameters
	}
	if t.Usage == UsagePKIXTA || t.Usage == UsagePKIXEE {
		return ProblemPKIX
	}
	return ProblemNone
}

// UsageName returns the RFC 7218 mnemonic of a certificate usage, or its
// number.
func UsageName(u uint8) string {
	switch u {
	case UsagePKIXTA:
		return "PKIX-TA"
	case UsagePKIXEE:
		return "PKIX-EE"
	case UsageDANETA:
		return "DANE-TA"
	case UsageDANEEE:
		return "DANE-EE"
	}
	return fmt.Sprint(u)
}

// SelectorName returns the RFC 7218 mnemonic of a selector, or its
// number.
func SelectorName(s uint8) string {
	switch s {
	case SelectorCert:
		return "Cert"
	case SelectorSPKI:
		return "SPKI"
	}
	return fmt.Sprint(s)
}

// MatchingName returns the RFC 7218 mnemonic of a matching type, or its
// number.
func MatchingName(m uint8) string {
	switch m {
	case MatchingFull:
		return "Full"
	case MatchingSHA256:
		return "SHA2-256"
	case MatchingSHA512:
		return "SHA2-512"
	}
	return fmt.Sprint(m)
}

// Name returns the TLSA owner name of an SMTP server host:
// _25._tcp.<host> (RFC 7672 §2.2.3).
func Name(host string) string { return "_25._tcp." + host }
