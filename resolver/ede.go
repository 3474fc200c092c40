package resolver

import (
	"github.com/miekg/dns"
)

// Side says whose DNS an inconclusive answer is attributed to, by its
// Reason alone (see the package doc, "Attribution").
type Side uint8

// The sides of an inconclusive answer.
const (
	// SideUnknown: the reason alone does not say; a control question any
	// working resolver answers decides (the root package asks one). A
	// resolver that fails it makes the answer the service's. One that
	// passes makes ReasonServFail and ReasonRefused the domain's (its
	// name servers refuse or are lame: Unbound 1.17 answers SERVFAIL
	// without an EDE when a zone's servers answer REFUSED; the CD and
	// chain tests have already ruled DNSSEC and the CNAME chain out), and
	// ReasonTimeout slowness, no one's fault (the resolver was still
	// working when the lookup gave up).
	SideUnknown Side = iota
	// SideDomain: the resolver said the domain's own DNS is at fault (its
	// DNSSEC signatures do not validate, none of its name servers could
	// be used, its CNAME chain loops or is too long). Every receiver
	// sees the same.
	SideDomain
	// SideService: the service's own resolver is at fault (unreachable,
	// filtering, forging, not ready, not serving us, not recursive).
	SideService
	// SideNone: nobody's DNS is shown at fault: the lookup ran out of
	// time while the resolver was still working (ReasonSlow), or it
	// ended for a reason of the scan's own (its query budget, the
	// caller giving up, an invalid name) or with a reply that names no
	// cause and could not be used.
	SideNone
)

// String returns "unknown", "domain", "service" or "none".
func (s Side) String() string {
	switch s {
	case SideDomain:
		return "domain"
	case SideService:
		return "service"
	case SideNone:
		return "none"
	}
	return "unknown"
}

// reasonClass is what this package says of one Reason: whose DNS it is
// attributed to, and whether it is a transport failure.
type reasonClass struct {
	reason    Reason
	side      Side
	transport bool
}

// reasonTable classifies every Reason of an inconclusive answer, in the
// order Reasons returns them. A Reason added to the package must be added
// here (TestReasonsComplete reads the source and fails otherwise).
var reasonTable = []reasonClass{
	{ReasonServFail, SideUnknown, false},
	{ReasonRefused, SideUnknown, true},
	{ReasonRcode, SideNone, false},
	{ReasonTimeout, SideUnknown, true},
	{ReasonNetwork, SideService, true},
	{ReasonTruncated, SideNone, false},
	{ReasonBudgetExhausted, SideNone, false},
	{ReasonCanceled, SideNone, true},
	{ReasonMalformed, SideNone, false},
	{ReasonCNAMELoop, SideDomain, false},
	{ReasonInvalidName, SideNone, false},
	{ReasonCNAMEChain, SideDomain, false},
	{ReasonDNSSEC, SideDomain, false},
	{ReasonNoReachableAuthority, SideDomain, false},
	{ReasonResolverPolicy, SideService, false},
	{ReasonSlow, SideNone, false},
}

// Reasons returns every Reason an inconclusive answer can carry (every
// Reason constant but ReasonNone), a closed set: metrics use it as their
// label set.
func Reasons() []Reason {
	out := make([]Reason, len(reasonTable))
	for i, c := range reasonTable {
		out[i] = c.reason
	}
	return out
}

// class returns r's row of reasonTable; a Reason outside the set (and
// ReasonNone) is SideUnknown and not a transport failure.
func (r Reason) class() reasonClass {
	for _, c := range reasonTable {
		if c.reason == r {
			return c
		}
	}
	return reasonClass{reason: r, side: SideUnknown}
}

// Side attributes an inconclusive answer with reason r by the reason
// alone (see the package doc, "Attribution"). ReasonNone and a Reason
// outside Reasons are SideUnknown.
func (r Reason) Side() Side { return r.class().side }

// Transport reports whether r means the resolver gave no DNS answer a
// lookup could use at all: no reply before the time-out
// (ReasonTimeout), no route or a closed port (ReasonNetwork), a refusal
// (ReasonRefused), or the caller giving up (ReasonCanceled). A scan whose
// every question failed so, and whose control question fails so too,
// tells of a dead resolver rather than of the domain.
func (r Reason) Transport() bool { return r.class().transport }

// telling reports whether r names whose DNS failed on its own
// (SideDomain or SideService): such an error reply is kept over a later
// one that does not.
func (r Reason) telling() bool {
	s := r.Side()
	return s == SideDomain || s == SideService
}

// Extended DNS Error info-codes (RFC 8914 §4, IANA registry) this package
// gives a meaning to. Others are kept on Answer.EDE and attribute nothing.
const (
	EDEForgedAnswer         uint16 = 4  // the resolver changed the answer
	EDEDNSSECBogus          uint16 = 6  // validation failed
	EDESignatureExpired     uint16 = 7  // validation failed: RRSIG expired
	EDESignatureNotYetValid uint16 = 8  // validation failed: RRSIG not yet valid
	EDEDNSKEYMissing        uint16 = 9  // validation failed: no DNSKEY matches the DS
	EDERRSIGsMissing        uint16 = 10 // validation failed: signatures missing
	EDENoZoneKeyBitSet      uint16 = 11 // validation failed: no zone key
	EDENSECMissing          uint16 = 12 // validation failed: denial of existence unproven
	EDENotReady             uint16 = 14 // the resolver is not ready to serve
	EDEBlocked              uint16 = 15 // the resolver blocks the name (its own policy)
	EDECensored             uint16 = 16 // the resolver blocks the name (an external requirement)
	EDEFiltered             uint16 = 17 // the resolver filters the name (the client's request)
	EDEProhibited           uint16 = 18 // the resolver does not serve this client
	EDENotAuthoritative     uint16 = 20 // the server is not recursive and not authoritative here
	EDENotSupported         uint16 = 21 // the server does not support the request
	EDENoReachableAuthority uint16 = 22 // none of the domain's name servers could be used
	EDENetworkError         uint16 = 23 // a network error reaching the domain's name servers
	maxDNSSECFailure               = EDENSECMissing
	minDNSSECFailure               = EDEDNSSECBogus
	edeOptionCode                  = dns.EDNS0EDE
	edeNone                 uint16 = 0 // also "Other Error", which says nothing
)

// edeReason returns the Reason an info-code gives an error reply, or
// ReasonNone when it gives none.
func edeReason(code uint16) Reason {
	switch {
	case code >= minDNSSECFailure && code <= maxDNSSECFailure:
		return ReasonDNSSEC
	case code == EDENoReachableAuthority || code == EDENetworkError:
		return ReasonNoReachableAuthority
	case code == EDEForgedAnswer, code >= EDENotReady && code <= EDEProhibited,
		code == EDENotAuthoritative, code == EDENotSupported:
		return ReasonResolverPolicy
	}
	return ReasonNone
}

// edeOverrides reports whether an info-code says that even a NOERROR or
// NXDOMAIN reply is not the domain's own answer but the resolver's (a
// forged, blocked, censored or filtered answer).
func edeOverrides(code uint16) bool {
	return code == EDEForgedAnswer || code == EDEBlocked || code == EDECensored || code == EDEFiltered
}

// edeOf returns the info-code of m's Extended DNS Error options (RFC 8914;
// EDNS0 option 15): the first one this package gives a meaning to, else
// the first non-zero one, else 0. The EXTRA-TEXT is never read: it may
// name hosts and addresses.
func edeOf(m *dns.Msg) uint16 {
	opt := m.IsEdns0()
	if opt == nil {
		return edeNone
	}
	code := edeNone
	for _, o := range opt.Option {
		e, ok := o.(*dns.EDNS0_EDE)
		if !ok || o.Option() != edeOptionCode || e.InfoCode == edeNone {
			continue
		}
		if edeReason(e.InfoCode) != ReasonNone {
			return e.InfoCode
		}
		if code == edeNone {
			code = e.InfoCode
		}
	}
	return code
}
