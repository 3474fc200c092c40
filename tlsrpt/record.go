package tlsrpt

import (
	"strings"

	"github.com/mailauth/mailauth/internal/tagrec"
)

// MaxExtensionNameLength is the longest extension field name: one letter
// or digit followed by up to 31 more characters (RFC 8460 §3).
const MaxExtensionNameLength = tagrec.MaxExtensionNameLength

// versionTag opens every TLS-RPT record; it is case-sensitive
// (RFC 8460 §3).
const versionTag = "v=TLSRPTv1"

// Field is one name=value field of a record.
type Field struct {
	Name  string
	Value string
}

// Record is a parsed _smtp._tls TXT record (RFC 8460 §3). It holds
// reporting URIs from the wire: keep it in memory, never serialise it.
type Record struct {
	// RUA lists the URIs of every rua field, in order, as written
	// (whitespace around commas removed). Destinations classifies them.
	RUA []string
	// Fields lists every field after the version in order. The Value of a
	// rua field is its URIs joined with ",".
	Fields []Field
}

// String renders r in canonical form: "v=TLSRPTv1; " followed by the
// fields joined with "; ". Parse(r.String()) returns r.
func (r Record) String() string {
	return tagrec.Render(versionTag, r.Fields)
}

// RUAFieldCount returns the number of rua fields.
func (r Record) RUAFieldCount() int {
	n := 0
	for _, f := range r.Fields {
		if f.Name == "rua" {
			n++
		}
	}
	return n
}

// IsRecord reports whether a TXT string is a TLS-RPT record: it starts with
// the case-sensitive "v=TLSRPTv1" followed by optional spaces or tabs and
// then ";" or the end of the string. RFC 8460 §3 names the literal prefix
// "v=TLSRPTv1;", but its ABNF allows white space before the delimiter; a
// bare "v=TLSRPTv1" is counted too, so that it is reported as an invalid
// record rather than overlooked.
func IsRecord(txt string) bool {
	return tagrec.IsRecord(txt, versionTag)
}

// Select keeps the TXT strings that are TLS-RPT records (see IsRecord), in
// order. Other TXT strings at the same name are ignored.
func Select(txts []string) []string {
	return tagrec.Select(txts, versionTag)
}

// Parse parses one record with the grammar of RFC 8460 §3: "v=TLSRPTv1",
// then fields each after a ";" with optional white space around it, and an
// optional final ";". rua is required; its value is one or more URIs
// separated by "," with optional white space around the comma ("," "!"
// and ";" inside a URI must be percent-encoded). Other fields are
// extensions (name=value), kept and otherwise ignored. Several rua fields
// are accepted and merged. Parse checks the structure only: whether each
// URI is a usable destination is for Destinations. Errors wrap ErrSyntax
// and are *SyntaxError.
func Parse(s string) (Record, error) {
	rest, ok := strings.CutPrefix(s, versionTag)
	if !ok {
		return Record{}, syntaxErr(s, CodeSyntaxError, "does not start with %q", versionTag)
	}
	if t := strings.TrimLeft(rest, " \t"); t != "" && t[0] != ';' {
		return Record{}, syntaxErr(s, CodeSyntaxError, "expected ';' after the version")
	}
	var r Record
	parts := strings.Split(rest, ";")[1:]
	for i, part := range parts {
		part = strings.Trim(part, " \t")
		if part == "" {
			if i == len(parts)-1 {
				break // optional final delimiter
			}
			return Record{}, syntaxErr(s, CodeSyntaxError, "empty field")
		}
		f, uris, err := parseField(part)
		if err != nil {
			return Record{}, err
		}
		r.Fields = append(r.Fields, f)
		r.RUA = append(r.RUA, uris...)
	}
	if r.RUAFieldCount() == 0 {
		return Record{}, syntaxErr(s, CodeMissingRUA, "no rua field")
	}
	return r, nil
}

// parseField parses tlsrpt-rua or tlsrpt-extension (RFC 8460 §3).
func parseField(part string) (Field, []string, error) {
	name, value, ok := strings.Cut(part, "=")
	if !ok {
		return Field{}, nil, syntaxErr(part, CodeSyntaxError, "field without '='")
	}
	if name == "rua" {
		uris, err := parseRUA(value)
		if err != nil {
			return Field{}, nil, err
		}
		return Field{Name: name, Value: strings.Join(uris, ",")}, uris, nil
	}
	if !tagrec.ValidExtensionName(name) {
		return Field{}, nil, syntaxErr(part, CodeSyntaxError, "invalid field name")
	}
	if !tagrec.ValidExtensionValue(value) {
		return Field{}, nil, syntaxErr(part, CodeSyntaxError, "invalid field value")
	}
	return Field{Name: name, Value: value}, nil, nil
}

// parseRUA splits tlsrpt-uri *(*WSP "," *WSP tlsrpt-uri).
func parseRUA(value string) ([]string, error) {
	var uris []string
	for u := range strings.SplitSeq(value, ",") {
		u = strings.Trim(u, " \t")
		if u == "" {
			return nil, syntaxErr(value, CodeSyntaxError, "empty URI in rua")
		}
		if strings.ContainsAny(u, " \t") {
			return nil, syntaxErr(value, CodeSyntaxError, "white space inside a URI")
		}
		uris = append(uris, u)
	}
	return uris, nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
