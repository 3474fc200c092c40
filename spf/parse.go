package spf

import (
	"net/netip"
	"strings"
)

// versionTag is the SPF version section (RFC 7208 §4.5).
const versionTag = "v=spf1"

// hasVersion reports whether s starts with "v=spf1" (any case) followed by
// a space or the end (RFC 7208 §4.5).
func hasVersion(s string) bool {
	return len(s) >= len(versionTag) && strings.EqualFold(s[:len(versionTag)], versionTag) &&
		(len(s) == len(versionTag) || s[len(versionTag)] == ' ')
}

// Select returns the SPF records among the joined TXT strings of one name:
// those starting with "v=spf1" (case-insensitive) followed by a space or
// the end (RFC 7208 §4.5). Other TXT records are ignored. More than one
// result is a permerror (§3.2).
func Select(txts []string) []string {
	var out []string
	for _, s := range txts {
		if hasVersion(s) {
			out = append(out, s)
		}
	}
	return out
}

// nearMiss reports whether s looks like an SPF record that Select ignores:
// "v=spf1" after leading spaces, or followed by something other than a
// space ("v=spf10", a tab).
func nearMiss(s string) bool {
	t := strings.TrimLeft(s, " \t")
	return !hasVersion(s) && len(t) >= len(versionTag) && strings.EqualFold(t[:len(versionTag)], versionTag)
}

// Parse parses one SPF record with the RFC 7208 grammar (§4.5, §4.6.1,
// §5, §6, §7.1). Terms are separated by one or more spaces; trailing
// spaces are allowed. Any violation, also in a term after all, returns a
// *SyntaxError wrapping ErrSyntax. Parse does no DNS and expands no macro.
func Parse(s string) (Record, error) {
	tr, err := readTerms(s)
	if err != nil {
		return Record{}, err
	}
	var rec Record
	if n := strings.Count(tr.rest, " "); n > 0 {
		rec.Terms = make([]Term, 0, n)
	}
	for raw, ok := tr.token(); ok; raw, ok = tr.token() {
		rec.Terms = append(rec.Terms, Term{}) // parsed in place: a Term is 120 bytes
		if err := tr.parse(&rec.Terms[len(rec.Terms)-1], raw); err != nil {
			return Record{}, err
		}
	}
	if len(rec.Terms) == 0 {
		rec.Terms = nil // "v=spf1 " and "v=spf1" are the same record
	}
	return rec, nil
}

// termReader reads the terms of a record one at a time, as Parse does:
// a caller that only looks at each term in turn (the walk, see shapeOf)
// parses the record without holding all of its terms at once.
type termReader struct {
	rest          string // the terms not yet read
	index         int    // 1-based index of the last term read
	redirect, exp bool   // a redirect or an exp modifier was read
}

// readTerms returns a termReader for the record s, or the *SyntaxError of
// a missing version tag.
func readTerms(s string) (termReader, error) {
	if !hasVersion(s) {
		end := min(len(s), len(versionTag)+1)
		return termReader{}, &SyntaxError{Term: s[:end], Code: CodeSyntaxVersion}
	}
	return termReader{rest: s[len(versionTag):]}, nil
}

// token returns the next term as written; ok is false at the end of the
// record.
func (tr *termReader) token() (raw string, ok bool) {
	tr.rest = strings.TrimLeft(tr.rest, " ")
	if tr.rest == "" {
		return "", false
	}
	raw = tr.rest
	if i := strings.IndexByte(tr.rest, ' '); i >= 0 {
		raw, tr.rest = tr.rest[:i], tr.rest[i:]
	} else {
		tr.rest = ""
	}
	tr.index++
	return raw, true
}

// parse parses raw, the term token returned, into the zero Term t, or
// returns its *SyntaxError (a second redirect or exp modifier is one).
func (tr *termReader) parse(t *Term, raw string) error {
	code := parseTerm(t, raw)
	if code == "" && (t.Kind == KindRedirect && tr.redirect || t.Kind == KindExp && tr.exp) {
		code = CodeSyntaxDuplicateModifier
	}
	if code != "" {
		return &SyntaxError{Term: raw, Index: tr.index, Code: code}
	}
	tr.redirect = tr.redirect || t.Kind == KindRedirect
	tr.exp = tr.exp || t.Kind == KindExp
	return nil
}

// parseTerm parses one term (a directive or a modifier) into the zero
// Term t; t is left partly set when it returns a Code.
func parseTerm(t *Term, s string) Code {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return CodeSyntaxCharacter
		}
	}
	end := indexColonOrSlash(s)
	if eq := strings.IndexByte(s, '='); eq >= 0 && (end < 0 || end > eq) {
		return parseModifier(t, s[:eq], s[eq+1:])
	}
	t.Qualifier = QualifierPass
	switch s[0] {
	case '+', '-', '~', '?':
		t.Qualifier, s = Qualifier(s[:1]), s[1:]
	}
	if end = indexColonOrSlash(s); end < 0 {
		end = len(s)
	}
	name, arg := s[:end], s[end:]
	t.Kind = mechanismKind(name)
	switch t.Kind {
	case KindAll:
		if arg != "" {
			return CodeSyntaxArgument
		}
		return ""
	case KindInclude, KindExists, KindPTR:
		return parseDomainArg(t, arg)
	case KindA, KindMX:
		return parseDualCIDRArg(t, arg)
	case KindIP4, KindIP6:
		return parseIPArg(t, arg)
	}
	return CodeSyntaxUnknownMechanism
}

// indexColonOrSlash is strings.IndexAny(s, ":/") without building a set
// per call: it runs for every term.
func indexColonOrSlash(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == ':' || s[i] == '/' {
			return i
		}
	}
	return -1
}

// mechanismKind returns the mechanism named name (any case), "" for none.
// name is printable ASCII (parseTerm), so its length and first letters
// pick the one candidate.
func mechanismKind(name string) Kind {
	var k Kind
	switch len(name) {
	case 1:
		k = KindA
	case 2:
		k = KindMX
	case 3:
		switch name[0] | 0x20 {
		case 'a':
			k = KindAll
		case 'p':
			k = KindPTR
		case 'i':
			k = KindIP6
			if name[2] == '4' {
				k = KindIP4
			}
		}
	case 6:
		k = KindExists
	case 7:
		k = KindInclude
	}
	if k != "" && strings.EqualFold(name, string(k)) {
		return k
	}
	return ""
}

// parseModifier parses name=value (RFC 7208 §6) into t.
func parseModifier(t *Term, name, value string) Code {
	if !isModifierName(name) {
		return CodeSyntaxModifier
	}
	switch {
	case strings.EqualFold(name, string(KindRedirect)):
		*t = Term{Kind: KindRedirect, DomainSpec: value}
		return checkDomainSpec(value)
	case strings.EqualFold(name, string(KindExp)):
		*t = Term{Kind: KindExp, DomainSpec: value}
		return checkDomainSpec(value)
	}
	if _, ok := scanMacroString(value, true); !ok {
		return CodeSyntaxMacro
	}
	*t = Term{Kind: KindModifier, Name: name, Value: value}
	return ""
}

// isModifierName: name = ALPHA *( ALPHA / DIGIT / "-" / "_" / "." ).
func isModifierName(s string) bool {
	if s == "" || (s[0]|0x20) < 'a' || (s[0]|0x20) > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !((c|0x20) >= 'a' && (c|0x20) <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// parseDomainArg parses the ":domain-spec" of include and exists
// (required) and ptr (optional).
func parseDomainArg(t *Term, arg string) Code {
	return parseDomainSpec(t, arg, t.Kind == KindPTR)
}

// parseDomainSpec parses ":" domain-spec into t.DomainSpec (RFC 7208
// §4.6.1); optional says whether an empty arg (no domain) is allowed.
func parseDomainSpec(t *Term, arg string, optional bool) Code {
	switch {
	case arg == "" && optional:
		return ""
	case arg == "" || arg == ":":
		return CodeSyntaxMissingDomain
	case arg[0] != ':':
		return CodeSyntaxArgument
	}
	t.DomainSpec = arg[1:]
	return checkDomainSpec(t.DomainSpec)
}

// parseDualCIDRArg parses the [":" domain-spec] [dual-cidr-length] of a
// and mx (RFC 7208 §5.3, §5.4), reading the CIDR lengths from the end.
func parseDualCIDRArg(t *Term, arg string) Code {
	t.CIDR4, t.CIDR6 = 32, 128
	if i := strings.LastIndex(arg, "//"); i >= 0 && allDigits(arg[i+2:]) {
		n, ok := cidrLength(arg[i+2:], 128)
		if !ok {
			return CodeSyntaxCIDR
		}
		t.CIDR6, arg = uint8(n), arg[:i]
	}
	if i := strings.LastIndexByte(arg, '/'); i >= 0 && allDigits(arg[i+1:]) {
		n, ok := cidrLength(arg[i+1:], 32)
		if !ok {
			return CodeSyntaxCIDR
		}
		t.CIDR4, arg = uint8(n), arg[:i]
	}
	return parseDomainSpec(t, arg, true)
}

// parseIPArg parses ":network[/length]" of ip4 and ip6 (RFC 7208 §5.6).
func parseIPArg(t *Term, arg string) Code {
	bad, limit := CodeSyntaxIP4, 32
	if t.Kind == KindIP6 {
		bad, limit = CodeSyntaxIP6, 128
	}
	if len(arg) < 2 || arg[0] != ':' {
		return bad
	}
	network, length := arg[1:], ""
	if i := strings.IndexByte(network, '/'); i >= 0 {
		network, length = network[:i], network[i+1:]
		if !allDigits(length) {
			return CodeSyntaxCIDR
		}
	}
	addr, err := netip.ParseAddr(network)
	if err != nil || addr.Zone() != "" || addr.Is4() != (t.Kind == KindIP4) {
		return bad
	}
	bits := limit
	if length != "" {
		n, ok := cidrLength(length, limit)
		if !ok {
			return CodeSyntaxCIDR
		}
		bits = n
	}
	t.Net = netip.PrefixFrom(addr, bits)
	return ""
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// cidrLength parses a CIDR length: "0" or digits without a leading zero,
// at most limit (RFC 7208 §5.6 ip4-cidr-length, ip6-cidr-length).
func cidrLength(s string, limit int) (int, bool) {
	if s == "" || len(s) > 3 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n, n <= limit
}
