package spf

import (
	"strings"

	"github.com/mailauth/mailauth/internal/dnsname"
)

// maxMacroDigits caps the value read from a macro's DIGIT transformer
// while its digits are accumulated, so that a long digit run cannot
// overflow an int. Product choice: the cap is not a limit on the record,
// because any value of 128 or more already means "all parts" (a domain
// name has at most 127 labels, which RFC 7208 §7.3 gives as the reason
// implementations must support at least 127); once reached, further
// digits are read and ignored, and the value (at most 10*maxMacroDigits-1)
// still keeps every part.
const maxMacroDigits = 1000

// Macro letters as bits (RFC 7208 §7.2), for macroInfo.letters.
const (
	letterS uint16 = 1 << iota
	letterL
	letterO
	letterD
	letterI
	letterP
	letterH
	letterV
	letterC
	letterR
	letterT
)

// senderLetters are the macro letters that need data from a message or a
// connection; %{d} and %{o} can be expanded without one.
const senderLetters = letterS | letterL | letterI | letterP | letterH | letterV | letterC | letterR | letterT

// macroInfo describes a valid macro-string.
type macroInfo struct {
	letters uint16 // macro letters used
	// tail is the index just after the last macro-expand; the literal
	// domain-end of a domain-spec must fit in s[tail:].
	tail int
	// endsInMacro is true when the string ends with a macro-expand.
	endsInMacro bool
}

func letterBit(c byte) uint16 {
	switch c | 0x20 { // ABNF literals are case-insensitive; upper case means URL-escape
	case 's':
		return letterS
	case 'l':
		return letterL
	case 'o':
		return letterO
	case 'd':
		return letterD
	case 'i':
		return letterI
	case 'p':
		return letterP
	case 'h':
		return letterH
	case 'v':
		return letterV
	case 'c':
		return letterC
	case 'r':
		return letterR
	case 't':
		return letterT
	}
	return 0
}

func isDelimiter(c byte) bool {
	switch c {
	case '.', '-', '+', ',', '/', '_', '=':
		return true
	}
	return false
}

// scanMacroString validates a macro-string (RFC 7208 §7.1). allowCRT
// permits the letters c, r and t, which are reserved for explanation text
// and so are refused in a domain-spec.
func scanMacroString(s string, allowCRT bool) (macroInfo, bool) {
	var mi macroInfo
	for i := 0; i < len(s); {
		c := s[i]
		if c != '%' {
			if c < 0x21 || c > 0x7e {
				return mi, false
			}
			i++
			mi.endsInMacro = false
			continue
		}
		if i+1 >= len(s) {
			return mi, false
		}
		switch s[i+1] {
		case '%', '_', '-':
			i += 2
		case '{':
			n, bit, ok := scanMacroExpand(s[i+2:])
			if !ok || (!allowCRT && bit&(letterC|letterR|letterT) != 0) {
				return mi, false
			}
			mi.letters |= bit
			i += 2 + n
		default:
			return mi, false
		}
		mi.tail, mi.endsInMacro = i, true
	}
	return mi, true
}

// scanMacroExpand validates the body of "%{…}" starting after the brace:
// letter, transformers (non-zero digits, optional r), delimiters, "}". It
// returns the number of bytes consumed including the closing brace.
func scanMacroExpand(s string) (int, uint16, bool) {
	if len(s) == 0 {
		return 0, 0, false
	}
	bit := letterBit(s[0])
	if bit == 0 {
		return 0, 0, false
	}
	i := 1
	digits, nonzero := 0, false
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		nonzero = nonzero || s[i] != '0'
		digits++
		i++
	}
	if digits > 0 && !nonzero {
		return 0, 0, false // the count must be non-zero (§7.3)
	}
	if i < len(s) && (s[i] == 'r' || s[i] == 'R') {
		i++
	}
	for i < len(s) && isDelimiter(s[i]) {
		i++
	}
	if i >= len(s) || s[i] != '}' {
		return 0, 0, false
	}
	return i + 1, bit, true
}

// checkDomainSpec validates a domain-spec = macro-string domain-end, where
// domain-end = ( "." toplabel [ "." ] ) / macro-expand (RFC 7208 §7.1).
func checkDomainSpec(s string) Code {
	if s == "" {
		return CodeSyntaxMissingDomain
	}
	mi, ok := scanMacroString(s, false)
	if !ok {
		return CodeSyntaxMacro
	}
	if mi.endsInMacro {
		return ""
	}
	end := strings.TrimSuffix(s[mi.tail:], ".")
	dot := strings.LastIndexByte(end, '.')
	if dot < 0 || !isTopLabel(end[dot+1:]) {
		return CodeSyntaxDomainSpec
	}
	return ""
}

// isTopLabel reports whether s is a toplabel (RFC 7208 §7.1): LDH, not
// all-numeric, not starting or ending with a hyphen.
func isTopLabel(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	alpha, hyphen := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
		case (c|0x20) >= 'a' && (c|0x20) <= 'z':
			alpha = true
		case c == '-':
			hyphen = true
		default:
			return false
		}
	}
	return alpha || hyphen
}

// macroUse reports whether a valid domain-spec needs sender data to be
// expanded and whether it uses the discouraged %{p} macro (§7.2).
func macroUse(spec string) (needsSender, usesP bool) {
	if strings.IndexByte(spec, '%') < 0 {
		return false, false
	}
	mi, _ := scanMacroString(spec, true)
	return mi.letters&senderLetters != 0, mi.letters&letterP != 0
}

// macroValue returns the value of a macro letter (lower-case, RFC 7208
// §7.3) and whether it is available.
type macroValue func(letter byte) (string, bool)

// expandDomainSpec expands a valid domain-spec with %{d} = cur and %{o} =
// sender (RFC 7208 §7.3, §7.4) and returns the name to query, lower-case
// without a trailing dot, cut to MaxDomainLength (§7.1). ok is false when
// the spec needs any other macro.
func expandDomainSpec(spec, cur, sender string) (name string, ok bool) {
	return expandName(spec, scanMacros(cur, sender))
}

// scanMacros are the macro values a scan knows without a message: %{d} =
// cur and %{o} = sender (RFC 7208 §7.3).
func scanMacros(cur, sender string) macroValue {
	return func(letter byte) (string, bool) {
		switch letter {
		case 'd':
			return cur, true
		case 'o':
			return sender, true
		}
		return "", false
	}
}

// expandName expands a domain-spec with the values of val and returns the
// name to query, lower-case without a trailing dot, cut to
// MaxDomainLength (§7.1). ok is false when the spec is not a valid
// macro-string or needs a letter val does not have.
func expandName(spec string, val macroValue) (string, bool) {
	s, ok := expandText(spec, val, maxNameText)
	if !ok {
		return "", false
	}
	return finishName(s), true
}

// maxNameText bounds the text expandName keeps while it expands a
// domain-spec. Only the right-most MaxDomainLength octets of a name, and
// the dot before them, survive the cut from the left (RFC 7208 §7.1; the
// OpenSPF case domain-name-truncation), so the text left of the last
// maxNameText octets can be dropped as it grows: the name is the same,
// and a record of many macros (each up to three times the 256-octet
// sender when URL-escaped) cannot make one expansion megabytes long.
// Product limit, above MaxDomainLength+1 with room for one label.
const maxNameText = 2 * MaxDomainLength

// tailText collects text, keeping at least its last keep octets (all of
// it when keep is 0) and at most about twice that.
type tailText struct {
	b    []byte
	keep int
}

func (t *tailText) writeString(s string) {
	t.b = append(t.b, s...)
	t.trim()
}

func (t *tailText) writeByte(c byte) {
	t.b = append(t.b, c)
	t.trim()
}

// trim drops the text left of the last keep octets once the text is
// twice as long, so that the cost of copying stays linear.
func (t *tailText) trim() {
	if t.keep > 0 && len(t.b) > 2*t.keep {
		t.b = t.b[:copy(t.b, t.b[len(t.b)-t.keep:])]
	}
}

// expandMacroString expands a macro-string (RFC 7208 §7.1, §7.3): the
// escapes %%, %_ and %-, and every macro-expand with the value of its
// letter from val, transformed. ok is false when s is not a valid
// macro-string (c, r and t allowed) or uses a letter val does not have.
func expandMacroString(s string, val macroValue) (string, bool) {
	return expandText(s, val, 0)
}

// expandText is expandMacroString keeping only the last keep octets of
// the expansion, or more (all of it when keep is 0).
func expandText(s string, val macroValue, keep int) (string, bool) {
	if strings.IndexByte(s, '%') < 0 {
		return s, true
	}
	if _, valid := scanMacroString(s, true); !valid {
		return "", false
	}
	b := tailText{keep: keep}
	for i := 0; i < len(s); {
		c := s[i]
		if c != '%' {
			b.writeByte(c)
			i++
			continue
		}
		switch s[i+1] { // a valid macro-string never ends with '%'
		case '%':
			b.writeByte('%')
		case '_':
			b.writeByte(' ')
		case '-':
			b.writeString("%20")
		case '{':
			n, _, _ := scanMacroExpand(s[i+2:])
			v, ok := expandMacro(s[i+2:i+1+n], val)
			if !ok {
				return "", false
			}
			b.writeString(v)
			i += 2 + n
			continue
		}
		i += 2
	}
	return string(b.b), true
}

// expandMacro expands one valid macro body (without braces): the letter's
// value split on the delimiters (default "."), reversed with r, the
// right-most N parts kept, joined with "." and URL-escaped when the letter
// is upper-case (RFC 7208 §7.3).
func expandMacro(body string, val macroValue) (string, bool) {
	value, ok := val(body[0] | 0x20)
	if !ok {
		return "", false
	}
	i, keep := 1, 0
	for i < len(body) && body[i] >= '0' && body[i] <= '9' {
		if keep < maxMacroDigits {
			keep = keep*10 + int(body[i]-'0')
		}
		i++
	}
	reverse := false
	if i < len(body) && (body[i] == 'r' || body[i] == 'R') {
		reverse = true
		i++
	}
	delims := body[i:]
	if delims == "" {
		delims = "."
	}
	parts := strings.FieldsFunc(value, func(r rune) bool { return strings.ContainsRune(delims, r) })
	if reverse {
		for l, r := 0, len(parts)-1; l < r; l, r = l+1, r-1 {
			parts[l], parts[r] = parts[r], parts[l]
		}
	}
	if keep > 0 && keep < len(parts) {
		parts = parts[len(parts)-keep:]
	}
	out := strings.Join(parts, ".")
	if body[0] >= 'A' && body[0] <= 'Z' {
		out = urlEscape(out)
	}
	return out, true
}

// urlEscape escapes every byte outside the RFC 3986 unreserved set
// (RFC 7208 §7.3: upper-case macro letters).
func urlEscape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c|0x20) >= 'a' && (c|0x20) <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0x0f])
	}
	return b.String()
}

// finishName lower-cases an expanded name, drops one trailing dot and cuts
// it to MaxDomainLength by removing left-most labels (RFC 7208 §7.1). A
// name left with one label still too long is returned as it is.
func finishName(s string) string {
	s = strings.ToLower(strings.TrimSuffix(s, "."))
	for start := 0; len(s)-start > MaxDomainLength; {
		i := strings.IndexByte(s[start:], '.')
		if i < 0 {
			return s[start:]
		}
		start += i + 1
		if len(s)-start <= MaxDomainLength {
			return s[start:]
		}
	}
	return s
}

// validName reports whether name can be queried as an SPF target: at least
// two labels of 1..dnsname.MaxLabelLength visible ASCII octets, at most
// MaxDomainLength octets (RFC 7208 §4.3, RFC 1035 §2.3.4).
func validName(name string) bool {
	if len(name) == 0 || len(name) > MaxDomainLength || strings.IndexByte(name, '.') < 0 {
		return false
	}
	label := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '.':
			if label == 0 {
				return false
			}
			label = 0
		case c <= 0x20 || c >= 0x7f || c == '\\' || c == '"' || c == '(' || c == ')' || c == ';' || c == '@' || c == '$':
			return false
		default:
			label++
			if label > dnsname.MaxLabelLength {
				return false
			}
		}
	}
	return label > 0
}
