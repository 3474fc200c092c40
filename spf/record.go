package spf

import (
	"net/netip"
	"strconv"
	"strings"
)

// Limits of RFC 7208 and of this package.
const (
	// MaxLookups is the number of DNS-causing terms (include, a, mx, ptr,
	// exists, redirect) one evaluation may use; more is a permerror
	// (RFC 7208 §4.6.4).
	MaxLookups = 10
	// MaxVoidLookups is the number of DNS-causing terms that may return no
	// records (NODATA or NXDOMAIN); more is a permerror (RFC 7208 §4.6.4).
	MaxVoidLookups = 2
	// MaxMXNames is the number of exchanges of one mx mechanism whose
	// addresses may be looked up; needing more is a permerror
	// (RFC 7208 §4.6.4).
	MaxMXNames = 10
	// RecordSizeGuideline is the record length, in octets, above which a
	// record risks a DNS answer over 512 octets (RFC 7208 §3.4).
	RecordSizeGuideline = 450
	// MaxRecordSize is the DNS answer size SPF records should stay within
	// (RFC 7208 §3.4).
	MaxRecordSize = 512
	// MaxDomainLength is the length a domain-spec expansion is cut to by
	// dropping left-most labels (RFC 7208 §7.1; the OpenSPF suite case
	// domain-name-truncation cites it).
	MaxDomainLength = 253
	// MaxExpandTerms bounds the expansion of Check: after this many counted
	// terms it stops and reports the count as a lower bound. It is a
	// product limit, far beyond the RFC 7208 §4.6.4 limit of ten, so users
	// see how far over the limit a policy is.
	MaxExpandTerms = 40
	// MaxDepth bounds the nesting of include and redirect targets Check
	// follows (the checked record is depth 0). Deeper targets are counted
	// but not expanded. Any chain this deep already exceeds MaxLookups
	// (RFC 7208 §4.6.4).
	MaxDepth = 10
)

// Qualifier is the result a mechanism yields when it matches
// (RFC 7208 §4.6.2); its values are the characters written in a record.
type Qualifier string

// The qualifiers of RFC 7208 §4.6.2.
const (
	QualifierNone     Qualifier = ""  // no qualifier applies (no all mechanism)
	QualifierPass     Qualifier = "+" // pass, the default when none is written
	QualifierFail     Qualifier = "-" // fail
	QualifierSoftFail Qualifier = "~" // softfail
	QualifierNeutral  Qualifier = "?" // neutral
)

// Kind names a mechanism or a modifier; its values are the names written in
// a record (lower-case).
type Kind string

// Mechanisms (RFC 7208 §5) and modifiers (RFC 7208 §6).
const (
	KindAll      Kind = "all"      // matches always (§5.1)
	KindInclude  Kind = "include"  // the target policy passes (§5.2)
	KindA        Kind = "a"        // an address of the domain (§5.3)
	KindMX       Kind = "mx"       // an address of an exchange (§5.4)
	KindPTR      Kind = "ptr"      // validated reverse name; deprecated (§5.5)
	KindIP4      Kind = "ip4"      // an IPv4 network (§5.6)
	KindIP6      Kind = "ip6"      // an IPv6 network (§5.6)
	KindExists   Kind = "exists"   // the name has an A record (§5.7)
	KindRedirect Kind = "redirect" // modifier: use another policy (§6.1)
	KindExp      Kind = "exp"      // modifier: explanation for fail (§6.2)
	KindModifier Kind = "modifier" // an unknown modifier, ignored (§6)
)

// Record is a parsed SPF record: its terms in the order written, after the
// version tag "v=spf1".
type Record struct {
	Terms []Term
}

// Term is one mechanism or modifier of a record. Exactly the fields of its
// Kind are set.
type Term struct {
	Kind Kind
	// Qualifier is set for mechanisms; QualifierPass when none is written.
	Qualifier Qualifier
	// DomainSpec is the domain-spec as written, macros unexpanded, for
	// include, a, mx, ptr, exists, redirect and exp; "" when an optional
	// one is absent (a, mx and ptr then mean the current domain).
	DomainSpec string
	// Net is the network of ip4 and ip6 (the address as written, not
	// masked, with the CIDR length; a full-length prefix when none is
	// written).
	Net netip.Prefix
	// CIDR4 and CIDR6 are the dual CIDR lengths of a and mx (32 and 128
	// when not written).
	CIDR4, CIDR6 uint8
	// Name and Value are the name and macro-string of an unknown modifier,
	// as written.
	Name, Value string
}

// IsMechanism reports whether t is a mechanism rather than a modifier.
func (t Term) IsMechanism() bool {
	switch t.Kind {
	case KindRedirect, KindExp, KindModifier:
		return false
	}
	return true
}

// CausesLookup reports whether t is one of the DNS-causing terms counted
// against MaxLookups (RFC 7208 §4.6.4): include, a, mx, ptr, exists and
// redirect.
func (t Term) CausesLookup() bool {
	switch t.Kind {
	case KindInclude, KindA, KindMX, KindPTR, KindExists, KindRedirect:
		return true
	}
	return false
}

// String returns t in canonical form: lower-case names, no "+" qualifier,
// no default CIDR lengths.
func (t Term) String() string {
	switch t.Kind {
	case KindModifier:
		return t.Name + "=" + t.Value
	case KindRedirect, KindExp:
		return string(t.Kind) + "=" + t.DomainSpec
	}
	var b strings.Builder
	if t.Qualifier != QualifierPass {
		b.WriteString(string(t.Qualifier))
	}
	b.WriteString(string(t.Kind))
	switch t.Kind {
	case KindIP4, KindIP6:
		b.WriteByte(':')
		b.WriteString(t.Net.Addr().String())
		if t.Net.Bits() != t.Net.Addr().BitLen() {
			b.WriteByte('/')
			b.WriteString(strconv.Itoa(t.Net.Bits()))
		}
		return b.String()
	}
	if t.DomainSpec != "" {
		b.WriteByte(':')
		b.WriteString(t.DomainSpec)
	}
	if t.Kind == KindA || t.Kind == KindMX {
		if t.CIDR4 != 32 {
			b.WriteString("/" + strconv.Itoa(int(t.CIDR4)))
		}
		if t.CIDR6 != 128 {
			b.WriteString("//" + strconv.Itoa(int(t.CIDR6)))
		}
	}
	return b.String()
}

// String returns the record in canonical form, starting with "v=spf1".
func (r Record) String() string {
	var b strings.Builder
	b.WriteString("v=spf1")
	for _, t := range r.Terms {
		b.WriteByte(' ')
		b.WriteString(t.String())
	}
	return b.String()
}

// All returns the qualifier of the first all mechanism and its index in
// Terms, or QualifierNone and -1 when the record has none.
func (r Record) All() (Qualifier, int) {
	for i, t := range r.Terms {
		if t.Kind == KindAll {
			return t.Qualifier, i
		}
	}
	return QualifierNone, -1
}

// Redirect returns the domain-spec of the redirect modifier, if any.
func (r Record) Redirect() (string, bool) {
	return r.modifier(KindRedirect)
}

// Exp returns the domain-spec of the exp modifier, if any.
func (r Record) Exp() (string, bool) {
	return r.modifier(KindExp)
}

func (r Record) modifier(k Kind) (string, bool) {
	for _, t := range r.Terms {
		if t.Kind == k {
			return t.DomainSpec, true
		}
	}
	return "", false
}
