package tagrec

import "strings"

// MaxExtensionNameLength is the longest extension field name: one letter
// or digit followed by up to 31 more characters (RFC 8461 §3.1, §3.2;
// RFC 8460 §3).
const MaxExtensionNameLength = 32

// IsRecord reports whether txt starts with the case-sensitive version
// field version (such as "v=STSv1") followed by optional spaces or tabs and
// then ";" or the end of the string. RFC 8461 §3.1 and RFC 8460 §3 name
// the literal prefix with its ";", but their ABNF allows white space before
// the separator; a bare version is counted too, so that it is reported as
// an invalid record rather than overlooked.
func IsRecord(txt, version string) bool {
	rest, ok := strings.CutPrefix(txt, version)
	if !ok {
		return false
	}
	rest = strings.TrimLeft(rest, " \t")
	return rest == "" || rest[0] == ';'
}

// Select keeps the TXT strings that are records of version (see
// IsRecord), in order; nil when there are none.
func Select(txts []string, version string) []string {
	var out []string
	for _, t := range txts {
		if IsRecord(t, version) {
			out = append(out, t)
		}
	}
	return out
}

// field is the shape of the Field type of the mtasts and tlsrpt packages.
type field struct {
	Name  string
	Value string
}

// Render returns version followed by each field as "; name=value", the
// canonical form of both records.
func Render[F ~struct{ Name, Value string }](version string, fields []F) string {
	var b strings.Builder
	b.WriteString(version)
	for _, f := range fields {
		b.WriteString("; ")
		b.WriteString(field(f).Name)
		b.WriteByte('=')
		b.WriteString(field(f).Value)
	}
	return b.String()
}

// ValidExtensionName reports whether s is (ALPHA / DIGIT)
// 0*31(ALPHA / DIGIT / "_" / "-" / ".") (RFC 8461 §3.1, §3.2; RFC 8460 §3).
func ValidExtensionName(s string) bool {
	if len(s) == 0 || len(s) > MaxExtensionNameLength || !isAlnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '_' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// ValidExtensionValue reports whether s is 1*(%x21-3A / %x3C / %x3E-7E)
// (RFC 8461 §3.1; RFC 8460 §3): visible ASCII except ";" and "=".
func ValidExtensionValue(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e || c == ';' || c == '=' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
