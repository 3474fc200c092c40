package resolver

import (
	"encoding/hex"
	"math"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/miekg/dns"
)

// MaxCNAMEChain bounds the aliases followed for one question, inside one
// reply and across re-queries (RFC 1034 §3.6.2 asks resolvers to bound
// chains). It is 16, BIND's bound and above Unbound's 11, so that a chain
// the recursive resolver followed is never refused here: receivers that
// use such a resolver read the records at its end.
const MaxCNAMEChain = 16

// FromMsg turns a DNS reply to the question (qname, qtype) into an Answer.
// It follows the CNAME chain that starts at qname inside the answer
// section. When the chain ends in an alias whose target the reply does not
// cover, FromMsg returns NoData and the unresolved target as next; the
// caller may ask again for next. FromMsg is exported for resolver/dnstest,
// which serves the same decoded answers without a socket.
//
// m must hold records as github.com/miekg/dns unpacks them from the wire
// (TXT strings in escaped presentation form, CAA values raw); a nil m is
// an inconclusive, malformed answer.
func FromMsg(qname string, qtype Type, m *dns.Msg) (a Answer, next string) {
	next = fromMsg(&a, qname, qtype, m)
	return a, next
}

// fromMsg is FromMsg, into *a. The client decodes a reply under every
// layer of a lookup, on the stack of the goroutine that waits for it:
// fromMsg and the functions it calls keep no Answer or Record of their
// own in their frames, and no map of the names seen (the CNAMEs followed
// are the names seen, bounded by MaxCNAMEChain), so that the deepest
// point of a lookup stays within its goroutine's 8 KiB stack.
//
//go:noinline
func fromMsg(a *Answer, qname string, qtype Type, m *dns.Msg) (next string) {
	if m == nil {
		*a = Fail(ReasonMalformed)
		return ""
	}
	*a = Answer{Rcode: m.Rcode, Authentic: m.AuthenticatedData, EDE: edeOf(m)}
	if edeOverrides(a.EDE) {
		// The resolver says this is its answer, not the domain's.
		failIn(a, edeReason(a.EDE))
		return ""
	}
	asked := CanonicalName(qname)
	name := asked
	for {
		target := recordsAt(&a.Records, m.Answer, name, qtype)
		if len(a.Records) > 0 {
			a.Outcome = Found
			return ""
		}
		if target == "" {
			break
		}
		if target == asked || slices.Contains(a.CNAMEs, target) {
			failIn(a, ReasonCNAMELoop)
			return ""
		}
		if len(a.CNAMEs) >= MaxCNAMEChain {
			failIn(a, ReasonCNAMEChain)
			return ""
		}
		a.CNAMEs = append(a.CNAMEs, target)
		name = target
		if !ownerPresent(m.Answer, name) && m.Rcode == dns.RcodeSuccess && !hasSOA(m.Ns) {
			// The reply stops at the alias; ask again for the target.
			a.Outcome = NoData
			return name
		}
	}
	switch m.Rcode {
	case dns.RcodeSuccess:
		a.Outcome = NoData
	case dns.RcodeNameError:
		a.Outcome = NXDomain
	case dns.RcodeServerFailure:
		failIn(a, errorReason(a.EDE, ReasonServFail))
	case dns.RcodeRefused:
		failIn(a, errorReason(a.EDE, ReasonRefused))
	default:
		failIn(a, errorReason(a.EDE, ReasonRcode))
	}
	return ""
}

// errorReason is the Reason of an error reply: what its EDE info-code
// says, or byRcode when it says nothing.
func errorReason(ede uint16, byRcode Reason) Reason {
	if r := edeReason(ede); r != ReasonNone {
		return r
	}
	return byRcode
}

// retryable reports whether another server may answer better than the
// reply that gave a: an error RCODE or a resolver's own answer. A CNAME
// loop or an over-long chain is the domain's and final.
func retryable(a Answer) bool {
	return a.Outcome == Inconclusive && a.Reason != ReasonCNAMELoop && a.Reason != ReasonCNAMEChain
}

func failWith(a Answer, r Reason) Answer {
	failIn(&a, r)
	return a
}

// failIn makes *a inconclusive for reason r, keeping what else it says.
func failIn(a *Answer, r Reason) { a.Outcome, a.Reason, a.Records = Inconclusive, r, nil }

// recordsAt sets *out to the records of qtype owned by name (nil: none)
// and returns the target of a CNAME owned by name when there are none.
// Each record is decoded into its place in *out (decodeInto), not into a
// frame: see fromMsg.
func recordsAt(out *[]Record, rrs []dns.RR, name string, qtype Type) (cname string) {
	var recs []Record
	for i, rr := range rrs {
		if !ownedBy(rr, name) {
			continue
		}
		if Type(rr.Header().Rrtype) == qtype {
			if recs == nil {
				// At most this many: one allocation rather than a
				// doubling per record, and none at an owner that has no
				// record of qtype (a CNAME hop).
				recs = make([]Record, 0, countAt(rrs[i:], name, qtype))
			}
			recs = append(recs, Record{}) // within the room countAt made; grows if it was short
			if !decodeInto(&recs[len(recs)-1], rr) {
				recs[len(recs)-1] = Record{}
				recs = recs[:len(recs)-1]
			}
			continue
		}
		if c, ok := rr.(*dns.CNAME); ok && cname == "" {
			cname = CanonicalName(c.Target)
		}
	}
	switch {
	case len(recs) == 0:
		recs = nil
	case len(recs) < cap(recs):
		// Records that did not decode: the answer, which a Cache may
		// keep and charges by its length, holds no room it is not charged
		// (make, not append, whose capacity the allocator rounds up).
		recs = append(make([]Record, 0, len(recs)), recs...)
	}
	*out = recs
	return cname
}

// ownedBy reports whether rr is an Internet-class record owned by name,
// a canonical name.
func ownedBy(rr dns.RR, name string) bool {
	if rr == nil {
		return false
	}
	h := rr.Header()
	return h.Class == dns.ClassINET && isCanonicalOf(h.Name, name)
}

// isCanonicalOf reports whether CanonicalName(s) == canon, without the
// lower-case copy CanonicalName makes of a name with capitals (a reply
// may spell the owner names of its records in any case).
func isCanonicalOf(s, canon string) bool {
	if !isASCII(s) {
		return CanonicalName(s) == canon // strings.ToLower's Unicode rules
	}
	s = strings.TrimSuffix(s, ".")
	if len(s) != len(canon) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != canon[i] {
			return false
		}
	}
	return true
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// countAt returns the number of records of qtype that name owns in rrs.
func countAt(rrs []dns.RR, name string, qtype Type) int {
	n := 0
	for _, rr := range rrs {
		if ownedBy(rr, name) && Type(rr.Header().Rrtype) == qtype {
			n++
		}
	}
	return n
}

// hasSOA reports whether an authority section carries the SOA that marks
// a final negative answer (RFC 2308 §2.2).
func hasSOA(rrs []dns.RR) bool {
	for _, rr := range rrs {
		if rr != nil && rr.Header().Rrtype == dns.TypeSOA {
			return true
		}
	}
	return false
}

// msgTTL is how long the answer a (with next, as FromMsg made them of m)
// may be cached, in seconds: the smallest TTL of the CNAME records of the
// reply's chain and, for Found, of its records; for a final NoData or
// NXDomain, also the negative TTL of RFC 2308 §5; 0 (never cached) for an
// inconclusive answer or a negative one without an SOA.
func msgTTL(a Answer, next string, m *dns.Msg) uint32 {
	ttl := uint32(math.MaxUint32)
	for _, rr := range m.Answer {
		if c, ok := rr.(*dns.CNAME); ok && slices.Contains(a.CNAMEs, CanonicalName(c.Target)) {
			ttl = min(ttl, c.Hdr.Ttl)
		}
	}
	switch {
	case next != "":
		return ttl // the chain goes on in another reply
	case a.Outcome == Found:
		for _, r := range a.Records {
			ttl = min(ttl, r.TTL)
		}
		return ttl
	case a.Outcome == NoData || a.Outcome == NXDomain:
		return min(ttl, negativeTTL(m.Ns))
	}
	return 0
}

// negativeTTL is how long a negative answer may be cached (RFC 2308 §5):
// the smaller of the authority SOA's TTL and its MINIMUM field, or 0 when
// the reply carries no SOA.
func negativeTTL(rrs []dns.RR) uint32 {
	for _, rr := range rrs {
		if soa, ok := rr.(*dns.SOA); ok {
			return min(soa.Hdr.Ttl, soa.Minttl)
		}
	}
	return 0
}

func ownerPresent(rrs []dns.RR, name string) bool {
	for _, rr := range rrs {
		if rr != nil && CanonicalName(rr.Header().Name) == name {
			return true
		}
	}
	return false
}

// decodeInto converts one miekg RR into *r, in its place (see recordsAt),
// and reports whether it could. Types mailauth does not use are reported
// with their header only.
func decodeInto(r *Record, rr dns.RR) bool {
	h := rr.Header()
	*r = Record{Name: CanonicalName(h.Name), Type: Type(h.Rrtype), TTL: h.Ttl}
	switch v := rr.(type) {
	case *dns.A:
		addr, ok := netip.AddrFromSlice(v.A.To4())
		if !ok {
			return false
		}
		r.Addr = addr
	case *dns.AAAA:
		addr, ok := netip.AddrFromSlice(v.AAAA.To16())
		if !ok {
			return false
		}
		r.Addr = addr
	case *dns.MX:
		r.Preference, r.Target = v.Preference, CanonicalName(v.Mx)
	case *dns.PTR:
		r.Target = CanonicalName(v.Ptr)
	case *dns.CNAME:
		r.Target = CanonicalName(v.Target)
	case *dns.TXT:
		r.TXT = unescapeAll(v.Txt)
	case *dns.SPF:
		r.TXT = unescapeAll(v.Txt)
	case *dns.CAA:
		// miekg/dns escapes the tag like a character-string but keeps
		// the value as raw octets (RFC 8659 §4.1).
		r.CAAFlags, r.CAATag, r.CAAValue = v.Flag, unescape(v.Tag), v.Value
	case *dns.TLSA:
		data, err := hex.DecodeString(v.Certificate)
		if err != nil {
			return false
		}
		r.RData = append([]byte{v.Usage, v.Selector, v.MatchingType}, data...)
	}
	return true
}

// unescapeAll unescapes the character-strings of a TXT record. Two or
// more are written once, joined, into one text, and returned as pieces
// of it with the text kept past their length (withJoined), where
// JoinedTXT finds it: the record's readers share that one copy.
func unescapeAll(ss []string) []string {
	if len(ss) < 2 {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = unescape(s)
		}
		return out
	}
	n := 0
	for _, s := range ss {
		n += len(s) // at least the unescaped length
	}
	var b strings.Builder
	b.Grow(n)
	var buf [16]int
	ends := buf[:0]
	for _, s := range ss {
		unescapeTo(&b, s)
		ends = append(ends, b.Len())
	}
	j := b.String()
	out := make([]string, len(ss), len(ss)+1)
	start := 0
	for i, end := range ends {
		out[i] = j[start:end]
		start = end
	}
	out[:len(ss)+1][len(ss)] = j // see withJoined
	return out
}

// unescape undoes the presentation escapes miekg/dns applies to
// character-strings (\X and \DDD), giving back the octets on the wire.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	unescapeTo(&b, s)
	return b.String()
}

// unescapeTo writes s to b with its presentation escapes undone: the
// runs between escapes whole, not byte by byte.
func unescapeTo(b *strings.Builder, s string) {
	for {
		i := strings.IndexByte(s, '\\')
		if i < 0 {
			b.WriteString(s)
			return
		}
		b.WriteString(s[:i])
		s = s[i:] // starts with the backslash
		switch {
		case len(s) == 1:
			b.WriteByte('\\') // a backslash at the end stays
			return
		case len(s) >= 4 && isDigit(s[1]) && isDigit(s[2]) && isDigit(s[3]):
			if n, err := strconv.Atoi(s[1:4]); err == nil && n <= 255 {
				b.WriteByte(byte(n))
				s = s[4:]
				continue
			}
		}
		b.WriteByte(s[1])
		s = s[2:]
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
