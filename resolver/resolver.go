package resolver

import (
	"context"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/miekg/dns"
)

// Resolver answers one DNS question. Implementations must be safe for
// concurrent use, must honour ctx, and must never block past ctx's deadline.
type Resolver interface {
	// Lookup asks for the records of type qtype at name. name is an ASCII
	// domain name, with or without the trailing dot, in any case.
	Lookup(ctx context.Context, name string, qtype Type) Answer
}

// Type is a DNS RR type (RFC 1035 §3.2.2).
type Type uint16

// The RR types mailauth asks for or follows.
const (
	TypeA     Type = 1   // IPv4 address (RFC 1035)
	TypeNS    Type = 2   // name server (RFC 1035)
	TypeCNAME Type = 5   // alias (RFC 1035)
	TypeSOA   Type = 6   // start of authority (RFC 1035)
	TypePTR   Type = 12  // domain name pointer (RFC 1035)
	TypeMX    Type = 15  // mail exchange (RFC 1035)
	TypeTXT   Type = 16  // text strings (RFC 1035)
	TypeAAAA  Type = 28  // IPv6 address (RFC 3596)
	TypeSPF   Type = 99  // obsolete SPF type (RFC 7208 §14.1)
	TypeCAA   Type = 257 // certification authority authorization (RFC 8659)
	TypeTLSA  Type = 52  // TLS authentication for DANE (RFC 6698)
)

var typeNames = map[Type]string{
	TypeA: "A", TypeNS: "NS", TypeCNAME: "CNAME", TypeSOA: "SOA", TypePTR: "PTR",
	TypeMX: "MX", TypeTXT: "TXT", TypeAAAA: "AAAA", TypeSPF: "SPF", TypeCAA: "CAA",
	TypeTLSA: "TLSA",
}

// String returns the mnemonic of t, or TYPEnnn (RFC 3597) for others.
func (t Type) String() string {
	if s, ok := typeNames[t]; ok {
		return s
	}
	return "TYPE" + strconv.Itoa(int(t))
}

// Outcome classifies a lookup.
type Outcome string

// The four outcomes of a lookup (doc/design.md §2).
const (
	Found        Outcome = "found"        // records of the asked type were returned
	NoData       Outcome = "nodata"       // the name exists, no records of this type (RFC 2308)
	NXDomain     Outcome = "nxdomain"     // the name does not exist (RFC 8020)
	Inconclusive Outcome = "inconclusive" // nothing can be concluded; see Reason
)

// Reason says why a lookup was inconclusive. It is empty otherwise.
type Reason string

// Reasons for an inconclusive lookup.
const (
	ReasonNone            Reason = ""                 // the lookup was conclusive
	ReasonServFail        Reason = "servfail"         // RCODE 2
	ReasonRefused         Reason = "refused"          // RCODE 5
	ReasonRcode           Reason = "rcode"            // another error RCODE
	ReasonTimeout         Reason = "timeout"          // no reply within the timeout
	ReasonNetwork         Reason = "network"          // the server could not be reached
	ReasonTruncated       Reason = "truncated"        // UDP reply truncated and the TCP retry failed
	ReasonBudgetExhausted Reason = "budget_exhausted" // the per-scan query budget is spent
	ReasonCanceled        Reason = "canceled"         // the caller's context ended
	ReasonMalformed       Reason = "malformed"        // the reply could not be used
	ReasonCNAMELoop       Reason = "cname_loop"       // the CNAME chain loops
	ReasonInvalidName     Reason = "invalid_name"     // the question name is not a valid DNS name

	// ReasonCNAMEChain: the CNAME chain is longer than MaxCNAMEChain.
	ReasonCNAMEChain Reason = "cname_chain"
	// ReasonDNSSEC: the domain's DNSSEC signatures do not validate. The
	// resolver said so (EDE 6–12), or it answered SERVFAIL and then
	// answered the same question with the CD bit set (validation off).
	// Receivers that validate see none of the domain's records.
	ReasonDNSSEC Reason = "dnssec_bogus"
	// ReasonNoReachableAuthority: the resolver could not get an answer
	// from any of the domain's name servers: they do not answer, refuse
	// or are lame (EDE 22 No Reachable Authority, 23 Network Error).
	ReasonNoReachableAuthority Reason = "no_reachable_authority"
	// ReasonResolverPolicy: our own resolver declined to give the
	// domain's answer: it is not ready (EDE 14), blocks, censors or
	// filters the name (15–17), does not serve us (18), is not a
	// recursive resolver (20, 21), or forged the answer (4).
	ReasonResolverPolicy Reason = "resolver_policy"
	// ReasonSlow: the resolver answered other questions meanwhile, but
	// not this one before the deadline: it was still working on it (the
	// domain's name servers, or this machine, slower than the time the
	// lookup had). Slowness, not a verdict: it attributes nothing.
	ReasonSlow Reason = "slow"
)

// Answer is the result of one lookup.
type Answer struct {
	Outcome Outcome
	// Reason is set only when Outcome is Inconclusive.
	Reason Reason
	// Rcode is the DNS response code of the final reply, or -1 when there
	// was no reply.
	Rcode int
	// Records holds the records of the asked type at the end of the CNAME
	// chain. It is empty unless Outcome is Found.
	Records []Record
	// CNAMEs lists the alias targets followed from the question name, in
	// order. Kept for the redaction guard; never displayed.
	CNAMEs []string
	// Authentic is the AD bit of the reply: the resolver validated the
	// answer with DNSSEC (RFC 4035 §3.2.3). The client asks for it (AD
	// set in the query, RFC 6840 §5.7).
	Authentic bool
	// EDE is the RFC 8914 Extended DNS Error info-code of the final reply
	// (EDNS0 option 15), or 0 when it carried none (or only code 0,
	// "Other Error", which says nothing). It may accompany any outcome
	// (3, Stale Answer, comes with records); its meaning for an
	// inconclusive answer is folded into Reason.
	EDE uint16
}

// Exists reports whether the name exists: Found or NoData.
func (a Answer) Exists() bool { return a.Outcome == Found || a.Outcome == NoData }

// Absent reports whether the lookup proved there are no such records:
// NoData or NXDomain.
func (a Answer) Absent() bool { return a.Outcome == NoData || a.Outcome == NXDomain }

// Conclusive reports whether the outcome is anything but Inconclusive.
func (a Answer) Conclusive() bool { return a.Outcome != Inconclusive }

// Fail returns an inconclusive Answer with the given reason.
func Fail(reason Reason) Answer {
	return Answer{Outcome: Inconclusive, Reason: reason, Rcode: -1}
}

// Record is one resource record in a decoded, presentation-neutral form.
// Exactly the fields of its Type are set.
type Record struct {
	// Name is the owner name, lower-case, without the trailing dot.
	Name string
	Type Type
	TTL  uint32
	// TXT holds the character-strings of a TXT or SPF record as raw bytes
	// (zone-file escapes undone), one element per string. A decoded record
	// of several strings keeps their joined text in the slot just past the
	// slice's length (JoinedTXT returns it while the strings are still
	// pieces of it), so appending to TXT writes into that slot: harmless to
	// JoinedTXT, which then joins the strings again.
	TXT []string
	// Target is the exchange of an MX, the name of a PTR or the target of a
	// CNAME, lower-case without the trailing dot; "" for the root (a null MX).
	Target string
	// Preference is the MX preference.
	Preference uint16
	// Addr is the address of an A or AAAA record.
	Addr netip.Addr
	// CAA fields (RFC 8659 §4.1).
	CAAFlags uint8
	CAATag   string
	CAAValue string
	// RData is the wire RDATA of a TLSA record (RFC 6698 §2.1: usage,
	// selector and matching type octets, then the certificate
	// association data), for package dane to parse.
	RData []byte
}

// JoinedTXT returns the strings of a TXT record joined with no separator,
// as SPF, DMARC, DKIM, MTA-STS and TLS-RPT require. For a record decoded
// from a reply (FromMsg) it returns, without a copy, the joined text the
// decoder made once and that the strings are pieces of (see withJoined):
// a long record's text is not built again by each reader (the SPF walk,
// the redaction guard).
func (r Record) JoinedTXT() string {
	if j, ok := joinedOf(r.TXT); ok {
		return j
	}
	return strings.Join(r.TXT, "")
}

// withJoined returns pieces (of which joined is the concatenation, each
// piece a substring of joined in order) with joined kept in the slot
// past its length: the slice has room for one more string and holds
// joined there, where JoinedTXT finds it.
func withJoined(pieces []string, joined string) []string {
	out := make([]string, len(pieces), len(pieces)+1)
	copy(out, pieces)
	out[:len(pieces)+1][len(pieces)] = joined
	return out
}

// joinedOf returns the text kept past the length of txt (withJoined),
// when txt has two strings or more and every one of them is, in order, a
// piece of that text's own memory that together cover it: then the text
// is their concatenation, whatever was done to the slice since (a string
// replaced, the slice cut or appended to, a clone without the slot),
// which fails the test and makes JoinedTXT join the strings instead.
func joinedOf(txt []string) (string, bool) {
	if len(txt) < 2 || cap(txt) == len(txt) {
		return "", false
	}
	j := txt[:len(txt)+1][len(txt)]
	off := 0
	for _, t := range txt {
		if len(t) == 0 {
			continue
		}
		if len(t) > len(j)-off || unsafe.StringData(t) != unsafe.StringData(j[off:]) {
			return "", false
		}
		off += len(t)
	}
	return j, off == len(j)
}

// cloneTXT copies the strings of a TXT record, with the joined text kept
// past their length (withJoined) when there is one.
func cloneTXT(txt []string) []string {
	if j, ok := joinedOf(txt); ok {
		return withJoined(txt, j)
	}
	return slices.Clone(txt)
}

// TXTs returns one joined string per TXT record of a Found answer.
func (a Answer) TXTs() []string {
	var out []string
	for _, r := range a.Records {
		if r.Type == TypeTXT || r.Type == TypeSPF {
			out = append(out, r.JoinedTXT())
		}
	}
	return out
}

// Addrs returns the addresses of the A and AAAA records of a Found answer.
func (a Answer) Addrs() []netip.Addr {
	var out []netip.Addr
	for _, r := range a.Records {
		if r.Type == TypeA || r.Type == TypeAAAA {
			out = append(out, r.Addr)
		}
	}
	return out
}

// Targets returns the Target of every MX, PTR or CNAME record of a Found
// answer.
func (a Answer) Targets() []string {
	var out []string
	for _, r := range a.Records {
		if r.Type == TypeMX || r.Type == TypePTR || r.Type == TypeCNAME {
			out = append(out, r.Target)
		}
	}
	return out
}

// CanonicalName returns name lower-cased without a trailing dot: the form
// every name in this package is compared and returned in.
func CanonicalName(name string) string {
	name = strings.TrimSuffix(name, ".")
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(name)
		}
	}
	return name
}

// QuestionName returns the canonical form of name (see [CanonicalName])
// and whether it can be asked: "." is the root, whose canonical form is
// ""; an empty name, or one that is not a valid DNS name (RFC 1035
// §2.3.4: labels of 1 to 63 octets, 255 octets in all), cannot.
func QuestionName(name string) (string, bool) {
	if name == "." {
		return "", true
	}
	canon := CanonicalName(name)
	if canon == "" || strings.HasSuffix(canon, ".") {
		return "", false
	}
	_, ok := dns.IsDomainName(canon)
	return canon, ok
}

// ReverseName returns the name to query PTR records for addr: in-addr.arpa
// for IPv4 (RFC 1035 §3.5) and the nibble form under ip6.arpa for IPv6
// (RFC 3596 §2.5). IPv4-mapped IPv6 addresses are treated as IPv4 and an
// IPv6 zone is ignored. It returns "" for the zero (invalid) Addr.
func ReverseName(addr netip.Addr) string {
	if !addr.IsValid() {
		return ""
	}
	addr = addr.Unmap()
	var b strings.Builder
	if addr.Is4() {
		a := addr.As4()
		for i := 3; i >= 0; i-- {
			b.WriteString(strconv.Itoa(int(a[i])))
			b.WriteByte('.')
		}
		b.WriteString("in-addr.arpa")
		return b.String()
	}
	const hexdigits = "0123456789abcdef"
	a := addr.As16()
	for i := 15; i >= 0; i-- {
		b.WriteByte(hexdigits[a[i]&0x0f])
		b.WriteByte('.')
		b.WriteByte(hexdigits[a[i]>>4])
		b.WriteByte('.')
	}
	b.WriteString("ip6.arpa")
	return b.String()
}
