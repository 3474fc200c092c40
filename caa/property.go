package caa

import (
	"fmt"
	"strconv"
	"strings"
)

// FlagCritical is the issuer-critical flag (RFC 8659 §4.1): a CA that does
// not understand the property's tag must not issue.
const FlagCritical uint8 = 128

// maxRDATA is the largest RDATA of any RR (RFC 1035 §3.2.1: RDLENGTH is
// 16 bits); a CAA RDATA is flags, tag length, tag and value.
const maxRDATA = 65535

// maxTagLen is the largest tag the one-octet tag length allows
// (RFC 8659 §4.1; tags SHOULD NOT exceed 15 octets).
const maxTagLen = 255

// Tag is a property tag registered with IANA, in its canonical lower-case
// form (RFC 8659 §7.2, RFC 9495).
type Tag string

// Registered tags.
const (
	TagIssue        Tag = "issue"        // who may issue certificates (RFC 8659 §4.2)
	TagIssueWild    Tag = "issuewild"    // who may issue wildcard certificates (RFC 8659 §4.3)
	TagIodef        Tag = "iodef"        // where to report violations (RFC 8659 §4.4)
	TagIssueMail    Tag = "issuemail"    // who may issue S/MIME certificates (RFC 9495)
	TagIssueVMC     Tag = "issuevmc"     // who may issue verified mark certificates (IANA registry)
	TagContactEmail Tag = "contactemail" // domain contact e-mail (CA/B Forum BR, IANA registry)
	TagContactPhone Tag = "contactphone" // domain contact phone (CA/B Forum BR, IANA registry)
	TagAuth         Tag = "auth"         // reserved (RFC 8659 §7.2); not understood
	TagPath         Tag = "path"         // reserved (RFC 8659 §7.2); not understood
	TagPolicy       Tag = "policy"       // reserved (RFC 8659 §7.2); not understood
)

// registered maps the canonical form of every registered tag to whether
// it has a meaning a CA understands (reserved tags have none).
var registered = map[Tag]bool{
	TagIssue: true, TagIssueWild: true, TagIodef: true, TagIssueMail: true, TagIssueVMC: true,
	TagContactEmail: true, TagContactPhone: true, TagAuth: false, TagPath: false, TagPolicy: false,
}

func syntaxErr(part, format string, args ...any) error {
	return &SyntaxError{Part: part, Reason: fmt.Sprintf(format, args...)}
}

// Property is one CAA record: flags, tag and value (RFC 8659 §4.1). Tag
// and Value are kept as published (Value as raw octets).
type Property struct {
	Flags uint8
	Tag   string
	Value string
}

// Critical reports whether the issuer-critical flag is set.
func (p Property) Critical() bool { return p.Flags&FlagCritical != 0 }

// Known returns the registered tag p.Tag matches, case-insensitively
// (RFC 8659 §4.1), and whether there is one.
func (p Property) Known() (Tag, bool) {
	t := Tag(strings.ToLower(p.Tag))
	_, ok := registered[t]
	if !ok {
		return "", false
	}
	return t, true
}

// understood reports whether a CA understands p's tag, which is what
// the issuer-critical flag asks for.
func (p Property) understood() bool {
	t, ok := p.Known()
	return ok && registered[t]
}

// required reports whether every CA must implement p's tag: RFC 8659's
// issue, issuewild and iodef. Other registered tags (issuemail,
// issuevmc, contactemail, contactphone) are optional for CAs.
func (p Property) required() bool {
	t, _ := p.Known()
	return t == TagIssue || t == TagIssueWild || t == TagIodef
}

// ValidTag reports whether tag is a non-empty sequence of ASCII letters
// and digits (RFC 8659 §4.1) no longer than 255 octets.
func ValidTag(tag string) bool {
	if tag == "" || len(tag) > maxTagLen {
		return false
	}
	for i := 0; i < len(tag); i++ {
		if !isAlnum(tag[i]) {
			return false
		}
	}
	return true
}

// String returns p in presentation form, its value always quoted, with
// '"', '\' and octets outside printable ASCII escaped (RFC 1035 §5.1).
func (p Property) String() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(int(p.Flags)))
	b.WriteByte(' ')
	b.WriteString(p.Tag)
	b.WriteString(` "`)
	for i := 0; i < len(p.Value); i++ {
		switch c := p.Value[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c > 0x7e:
			fmt.Fprintf(&b, "\\%03d", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isWSP(c byte) bool { return c == ' ' || c == '\t' }

func skipWSP(s string, i int) int {
	for i < len(s) && isWSP(s[i]) {
		i++
	}
	return i
}
