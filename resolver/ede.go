package resolver

import (
	"github.com/miekg/dns"
)

// Side says whose DNS an inconclusive answer is attributed to.
type Side uint8

// The sides of an inconclusive answer.
const (
	// SideUnknown: the answer alone does not say. A resolver that fails
	// a control question any working resolver answers (the root package
	// asks one) makes it the service's; one that passes makes
	// ReasonTimeout the domain's (slower than the deadline) and
	// ReasonServFail most likely the domain's too (its name servers
	// refuse or are lame: Unbound 1.17 answers SERVFAIL without an EDE
	// when a zone's servers answer REFUSED; the CD and chain tests have
	// already ruled DNSSEC and the CNAME chain out); the rest stays
	// undetermined.
	SideUnknown Side = iota
	// SideDomain: the domain's own DNS is at fault (its name servers do
	// not answer, refuse or are lame, its DNSSEC signatures do not
	// validate, its CNAME chain loops or is too long, it is slower than
	// the deadline). Every receiver sees the same.
	SideDomain
	// SideService: the service's own resolver is at fault (unreachable,
	// refusing us, filtering, not recursive).
	SideService
)

// String returns "unknown", "domain" or "service".
func (s Side) String() string {
	switch s {
	case SideDomain:
		return "domain"
	case SideService:
		return "service"
	}
	return "unknown"
}

// Side attributes an inconclusive answer with reason r (see the package
// doc, "Attribution"). ReasonNone and reasons that say nothing about
// whose DNS failed are SideUnknown.
func (r Reason) Side() Side {
	switch r {
	case ReasonDNSSEC, ReasonNoReachableAuthority, ReasonCNAMELoop, ReasonCNAMEChain, ReasonSlow:
		return SideDomain
	case ReasonNetwork, ReasonRefused, ReasonResolverPolicy:
		return SideService
	}
	return SideUnknown
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
