package dmarc

import (
	"strings"
)

// Version is the only DMARC version value (RFC 9989 §4.7, case-sensitive).
const Version = "DMARC1"

// Policy is a Domain Owner Assessment Policy (RFC 9989 §4.7, tags p, sp
// and np). The three policies are the API's wire words.
type Policy string

// Policies. PolicyInvalid appears only in a Record, never in a Result.
const (
	PolicyNone       Policy = "none"       // no preference expressed (monitoring)
	PolicyQuarantine Policy = "quarantine" // failing mail is suspicious
	PolicyReject     Policy = "reject"     // failing mail should be rejected
	PolicyInvalid    Policy = "invalid"    // Record only: the tag has a value that is not a policy
)

// PSD is the value of the psd tag (RFC 9989 §4.7).
type PSD string

// psd tag values. PSDInvalid appears for any other value, which receivers
// treat as the default "u" (RFC 9989 §4.8).
const (
	PSDYes     PSD = "y"       // the domain is a Public Suffix Domain
	PSDNo      PSD = "n"       // the domain is its own Organizational Domain
	PSDUnknown PSD = "u"       // let the DNS Tree Walk decide (the default)
	PSDInvalid PSD = "invalid" // any other value
)

// Flag is the value of the t tag (RFC 9989 §4.7).
type Flag string

// t tag values. FlagInvalid appears for any other value, which receivers
// treat as the default "n" (RFC 9989 §4.8).
const (
	FlagYes     Flag = "y"       // testing: receivers apply one level less
	FlagNo      Flag = "n"       // apply the policy as published (the default)
	FlagInvalid Flag = "invalid" // any other value
)

// Alignment is an identifier alignment mode (RFC 9989 §4.4, tags adkim
// and aspf). The values are the API's wire words.
type Alignment string

// Alignment modes. In a Record, "" means the tag is absent (relaxed
// applies) and AlignmentUnknown means its value is invalid.
const (
	AlignmentRelaxed Alignment = "relaxed" // "r": same Organizational Domain (the default)
	AlignmentStrict  Alignment = "strict"  // "s": identical domains
	AlignmentUnknown Alignment = "unknown" // the tag's value is neither r nor s
)

// Tag is one tag=value pair of a record as written, after the version
// tag. Name keeps its case; surrounding whitespace is removed. A segment
// that is not a well-formed tag (no "=", or a name that is not letters)
// has Name "" and the whole segment in Value. Tags may contain raw
// record data: never serialise them.
type Tag struct {
	Name  string
	Value string
}

// URI is one DMARC reporting URI of a rua or ruf tag (RFC 9989 §4.6,
// §4.8). It holds raw record data: never serialise it.
type URI struct {
	// Raw is the URI as written, including any obsolete size suffix.
	Raw string
	// Valid reports whether Raw is a syntactically valid absolute URI
	// (RFC 3986) with commas and "!" percent-encoded, and, for mailto and
	// http(s), whether its addresses are valid (a mailto URI may have
	// none: NoAddress) or it names a host.
	Valid bool
	// Scheme is the lower-case scheme of a valid URI.
	Scheme string
	// Host is the lower-case domain of a valid mailto address or http(s)
	// URI, "" for address literals and other schemes.
	Host string
	// SizeLimit reports the obsolete "!size" suffix (RFC 9989 §4.8
	// obs-dmarc-report-size), which receivers ignore.
	SizeLimit bool
	// NoAddress reports a valid mailto URI without an address ("mailto:",
	// RFC 6068 mailtoURI = "mailto:" [ to ] [ hfields ]): it counts as a
	// valid URI, but no report can be sent to it.
	NoAddress bool
}

// Record is a parsed DMARC policy record (RFC 9989 §4.7). Tags holds the
// record as written; every other field is derived from the first
// occurrence of its tag in Tags. Record holds raw data (URIs, unknown
// tags): it is for the package and its tests, never for output.
type Record struct {
	// VersionName is the version tag's name as written: "v", or "V"
	// (accepted, with the finding CodeUppercaseVersionTag).
	VersionName string
	// Tags lists every tag after the version tag, in order.
	Tags []Tag

	// P, SP and NP are the policies; "" when the tag is absent.
	P, SP, NP Policy
	// PSD is the psd tag; "" when absent (the default "u" applies).
	PSD PSD
	// T is the t tag; "" when absent (the default "n" applies).
	T Flag
	// ADKIM and ASPF are the alignment modes; "" when absent (relaxed).
	ADKIM, ASPF Alignment
	// RUA and RUF are the reporting URIs; nil when the tag is absent.
	RUA, RUF []URI
	// FO is the fo tag's value as written; "" when absent.
	FO string
	// HasPct reports the historic pct tag (removed by RFC 9989, App. C.5).
	HasPct bool
	// Pct is, when HasPct, the pct value RFC 7489 receivers apply
	// (§6.3): the tag's value when it is 0 to 100, else the default 100.
	// It is 0 when the tag is absent.
	Pct int
	// Findings are the record-level codes, sorted, without duplicates.
	Findings []Code
	// BadTag is the position of the first tag with a defect (malformed,
	// repeated, or an invalid value), 1 for the first tag after the
	// version tag; 0 when no tag has one. It locates a problem without
	// quoting the record.
	BadTag int
}

// String renders the record in canonical form: "v=DMARC1" followed by
// every tag as written, separated by "; ". Parse(r.String()) returns a
// Record equal to r.
func (r Record) String() string {
	var b strings.Builder
	name := r.VersionName
	if name == "" {
		name = "v"
	}
	b.WriteString(name + "=" + Version)
	for _, t := range r.Tags {
		b.WriteString("; ")
		if t.Name != "" {
			b.WriteString(t.Name + "=")
		}
		b.WriteString(t.Value)
	}
	return b.String()
}

// HasValidRUA reports whether the rua tag holds at least one
// syntactically valid URI: the condition for the p=none fallback (RFC
// 9989 §4.10.1) and for the API's aggregateReporting.
func (r Record) HasValidRUA() bool {
	for _, u := range r.RUA {
		if u.Valid {
			return true
		}
	}
	return false
}

// ValidPolicies reports whether p is a valid policy and sp and np are
// absent or valid: when false, receivers apply the RFC 9989 §4.10.1
// fallback (p=none if there is a valid rua URI, else no DMARC at all).
func (r Record) ValidPolicies() bool {
	return validPolicy(r.P) && r.SP != PolicyInvalid && r.NP != PolicyInvalid
}

func validPolicy(p Policy) bool {
	return p == PolicyNone || p == PolicyQuarantine || p == PolicyReject
}
