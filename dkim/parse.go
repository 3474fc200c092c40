package dkim

import (
	"fmt"
	"strings"
)

// fws holds the characters of folding white space (RFC 5322 §3.2.2), which
// DKIM allows around tags and inside values (RFC 6376 §3.2).
const fws = " \t\r\n"

// tag is one tag-spec of a tag-list.
type tag struct {
	name, value string
}

// Parse parses the text of one DKIM key record (RFC 6376 §3.6.1,
// RFC 8463): the character-strings of one TXT record joined with no
// separator.
//
// It returns a *SyntaxError (wrapping ErrSyntax) when verifiers would
// discard the text as a whole: it is not a tag-list (§3.2), a tag occurs
// twice (§3.2), or a v tag is not first or not exactly "DKIM1" (§3.6.1).
// Every other problem (no p tag, bad base64, a short or malformed key, an
// unknown key type, no SHA-256, a service other than email) is reported in
// [Record.Findings] of a Record returned without error, so that its other
// facts stay known. Unknown tags, including the obsolete g and the n
// notes, are ignored; tag names are case-sensitive, values other than v
// are not.
func Parse(s string) (Record, error) {
	tags, err := splitTags(s)
	if err != nil {
		return Record{}, err
	}
	r := Record{KeyType: KeyTypeRSA, Key: KeyMissing}
	for i, t := range tags {
		if err := r.apply(i, t); err != nil {
			return Record{}, err
		}
	}
	r.Findings = r.inspect()
	return r, nil
}

// apply sets the field of r that tag t, the i-th tag, stands for.
func (r *Record) apply(i int, t tag) error {
	switch t.name {
	case "v":
		if i != 0 {
			return &SyntaxError{Tag: t.name, Code: CodeVersionNotFirst, Reason: "v must be the first tag"}
		}
		if t.value != Version {
			return &SyntaxError{Tag: t.name, Code: CodeInvalidVersion, Reason: fmt.Sprintf("version %q is not %s", t.value, Version)}
		}
		r.HasVersion = true
	case "k":
		r.KeyType = keyTypeOf(t.value)
	case "h":
		r.Hashes = splitList(t.value)
	case "s":
		r.Services = splitList(t.value)
	case "t":
		r.Flags = splitList(t.value)
	case "p":
		r.p = stripFWS(t.value)
		r.Key = KeyPresent
		if r.p == "" {
			r.Key = KeyRevoked
		}
	}
	return nil
}

// splitTags splits a tag-list into its tag-specs (RFC 6376 §3.2). The
// grammar, tag-spec *( ";" tag-spec ) [ ";" ], allows one ";" at the end
// (followed at most by folding white space) but no empty tag-spec
// elsewhere: ";;" or a leading ";" make the text invalid, as OpenDKIM
// and mox treat it.
func splitTags(s string) ([]tag, error) {
	var tags []tag
	seen := map[string]bool{}
	specs := strings.Split(s, ";")
	for i, spec := range specs {
		if strings.Trim(spec, fws) == "" {
			if i == len(specs)-1 && i > 0 {
				continue
			}
			if len(specs) == 1 {
				break
			}
			return nil, &SyntaxError{Code: CodeNotDKIMRecord, Reason: "empty tag-spec"}
		}
		t, err := parseSpec(spec)
		if err != nil {
			return nil, err
		}
		if seen[t.name] {
			return nil, &SyntaxError{Tag: t.name, Code: CodeDuplicateTag, Reason: "tag occurs more than once"}
		}
		seen[t.name] = true
		tags = append(tags, t)
	}
	if len(tags) == 0 {
		return nil, &SyntaxError{Code: CodeNotDKIMRecord, Reason: "empty tag-list"}
	}
	return tags, nil
}

// parseSpec parses one tag-spec: [FWS] tag-name [FWS] "=" [FWS] tag-value
// [FWS] (RFC 6376 §3.2).
func parseSpec(spec string) (tag, error) {
	name, value, ok := strings.Cut(spec, "=")
	if !ok {
		return tag{}, &SyntaxError{Code: CodeNotDKIMRecord, Reason: fmt.Sprintf("tag-spec %q has no '='", spec)}
	}
	name = strings.Trim(name, fws)
	if !validTagName(name) {
		return tag{}, &SyntaxError{Tag: name, Code: CodeNotDKIMRecord, Reason: "invalid tag name"}
	}
	value = strings.Trim(value, fws)
	for i := 0; i < len(value); i++ {
		if !valueChar(value[i]) {
			return tag{}, &SyntaxError{Tag: name, Code: CodeNotDKIMRecord, Reason: fmt.Sprintf("invalid character %#x in value", value[i])}
		}
	}
	return tag{name: name, value: value}, nil
}

// validTagName reports whether s is ALPHA *ALNUMPUNC (RFC 6376 §3.2).
func validTagName(s string) bool {
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlpha(c) && !(c >= '0' && c <= '9') && c != '_' {
			return false
		}
	}
	return true
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// valueChar reports whether c may occur in a tag-value: VALCHAR (%x21-3A /
// %x3C-7E) or folding white space between its parts (RFC 6376 §3.2).
func valueChar(c byte) bool {
	return c >= 0x21 && c <= 0x7e && c != ';' || strings.IndexByte(fws, c) >= 0
}

// keyTypeOf maps a k value to a KeyType. ABNF literals are
// case-insensitive (RFC 5234 §2.3).
func keyTypeOf(v string) KeyType {
	switch strings.ToLower(v) {
	case "rsa":
		return KeyTypeRSA
	case "ed25519":
		return KeyTypeEd25519
	}
	return KeyTypeUnknown
}

// splitList splits a colon-separated value (h, s, t) into lower-cased
// names, dropping empty ones. The result is non-nil: the tag was present.
func splitList(v string) []string {
	out := []string{}
	for _, item := range strings.Split(v, ":") {
		if item = strings.Trim(item, fws); item != "" {
			out = append(out, strings.ToLower(item))
		}
	}
	return out
}

// stripFWS removes all folding white space, which the p tag may contain
// anywhere (RFC 6376 §3.6.1).
func stripFWS(v string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x80 && strings.IndexByte(fws, byte(r)) >= 0 {
			return -1
		}
		return r
	}, v)
}
