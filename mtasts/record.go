package mtasts

import (
	"strings"

	"github.com/mailauth/mailauth/internal/tagrec"
)

// Limits of the announcement record (RFC 8461 §3.1).
const (
	// MaxIDLength is the longest id: 1 to 32 letters and digits
	// (RFC 8461 §3.1).
	MaxIDLength = 32
	// MaxExtensionNameLength is the longest extension field name: one
	// letter or digit followed by up to 31 more characters
	// (RFC 8461 §3.1, §3.2).
	MaxExtensionNameLength = tagrec.MaxExtensionNameLength
)

// Version is the only version tag of the announcement and of the policy
// (RFC 8461 §3.1, §3.2). It is case-sensitive.
const Version = "STSv1"

// versionTag opens every announcement record (RFC 8461 §3.1).
const versionTag = "v=" + Version

// Field is one name=value field of an announcement, or one unknown
// key: value line of a policy.
type Field struct {
	Name  string
	Value string
}

// Record is a parsed _mta-sts TXT announcement (RFC 8461 §3.1). It holds
// data from the wire: keep it in memory, never serialise it.
type Record struct {
	// ID is the value of the first id field.
	ID string
	// Fields lists every field after v=STSv1 in order, the id field and
	// any repeated field included.
	Fields []Field
}

// String renders r in canonical form: "v=STSv1; " followed by the fields
// joined with "; ". ParseRecord(r.String()) returns r.
func (r Record) String() string {
	return tagrec.Render(versionTag, r.Fields)
}

// HasDuplicates reports whether a field name occurs more than once.
func (r Record) HasDuplicates() bool {
	seen := make(map[string]bool, len(r.Fields))
	for _, f := range r.Fields {
		if seen[f.Name] {
			return true
		}
		seen[f.Name] = true
	}
	return false
}

// IsRecord reports whether a TXT string is an MTA-STS announcement: it
// starts with the case-sensitive "v=STSv1" followed by optional spaces or
// tabs and then ";" or the end of the string. RFC 8461 §3.1 names the
// literal prefix "v=STSv1;", but its ABNF allows white space before the
// separator; a bare "v=STSv1" is counted too, so that it is reported as an
// invalid announcement rather than overlooked.
func IsRecord(txt string) bool {
	return tagrec.IsRecord(txt, versionTag)
}

// Select keeps the TXT strings that are MTA-STS announcements (see
// IsRecord), in order. Other TXT strings at the same name are ignored.
func Select(txts []string) []string {
	return tagrec.Select(txts, versionTag)
}

// ParseRecord parses one announcement with the ABNF of RFC 8461 §3.1:
// "v=STSv1" then one or more fields, each after a ";" with optional white
// space around it, and an optional final ";". The id field is required and
// is 1 to 32 letters and digits; other fields are extensions, kept and
// otherwise ignored. When a name repeats, the first field wins. Errors
// wrap ErrSyntax and are *SyntaxError.
func ParseRecord(s string) (Record, error) {
	rest, ok := strings.CutPrefix(s, versionTag)
	if !ok {
		return Record{}, syntaxErr(s, CodeAnnouncementSyntax, "does not start with %q", versionTag)
	}
	var r Record
	haveID := false
	for rest != "" {
		var field string
		var err error
		field, rest, err = nextRecordField(rest)
		if err != nil {
			return Record{}, err
		}
		if field == "" {
			break // optional final separator
		}
		f, err := parseRecordField(field)
		if err != nil {
			return Record{}, err
		}
		if f.Name == "id" && !haveID {
			r.ID, haveID = f.Value, true
		}
		r.Fields = append(r.Fields, f)
	}
	if !haveID {
		return Record{}, syntaxErr(s, CodeAnnouncementMissingID, "no id field")
	}
	return r, nil
}

// nextRecordField consumes one separator (*WSP ";" *WSP) and the field
// after it. It returns "" as the field at the optional final separator.
func nextRecordField(s string) (field, rest string, err error) {
	t := strings.TrimLeft(s, " \t")
	if t == "" || t[0] != ';' {
		return "", "", syntaxErr(s, CodeAnnouncementSyntax, "expected ';' before the next field")
	}
	t = strings.TrimLeft(t[1:], " \t")
	end := strings.IndexAny(t, " \t;")
	if end < 0 {
		end = len(t)
	}
	field, rest = t[:end], t[end:]
	if field == "" && rest != "" {
		return "", "", syntaxErr(s, CodeAnnouncementSyntax, "empty field")
	}
	return field, rest, nil
}

// parseRecordField parses sts-id or sts-extension (RFC 8461 §3.1).
func parseRecordField(field string) (Field, error) {
	name, value, ok := strings.Cut(field, "=")
	if !ok {
		return Field{}, syntaxErr(field, CodeAnnouncementSyntax, "field without '='")
	}
	if name == "id" {
		if !validID(value) {
			return Field{}, syntaxErr(field, CodeAnnouncementBadID, "id must be 1 to %d letters and digits", MaxIDLength)
		}
		return Field{Name: name, Value: value}, nil
	}
	if !tagrec.ValidExtensionName(name) {
		return Field{}, syntaxErr(field, CodeAnnouncementSyntax, "invalid field name")
	}
	if !tagrec.ValidExtensionValue(value) {
		return Field{}, syntaxErr(field, CodeAnnouncementSyntax, "invalid field value")
	}
	return Field{Name: name, Value: value}, nil
}

// validID reports whether s is 1*32(ALPHA / DIGIT) (RFC 8461 §3.1).
func validID(s string) bool {
	if len(s) == 0 || len(s) > MaxIDLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
