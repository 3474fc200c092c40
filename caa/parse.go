package caa

import (
	"strconv"
	"strings"
)

// Parse reads one CAA property in presentation form, "<flags> <tag>
// <value>" (RFC 8659 §4.1.1): flags a decimal number from 0 to 255, tag
// ASCII letters and digits, value a character-string, quoted or not, with
// RFC 1035 §5.1 escapes (\X and \DDD). Surrounding spaces and tabs are
// ignored. The value's meaning is not checked: see [ParseIssuerValue].
// Errors wrap [ErrSyntax].
func Parse(s string) (Property, error) {
	rest := s[skipWSP(s, 0):]
	flagsTok, rest := token(rest)
	if flagsTok == "" {
		return Property{}, syntaxErr("flags", "missing")
	}
	flags, err := strconv.ParseUint(flagsTok, 10, 8)
	if err != nil {
		return Property{}, syntaxErr("flags", "%q is not a number from 0 to 255", flagsTok)
	}
	tag, rest := token(rest)
	if tag == "" {
		return Property{}, syntaxErr("tag", "missing")
	}
	if !ValidTag(tag) {
		return Property{}, syntaxErr("tag", "%q is not 1 to 255 letters and digits", tag)
	}
	if rest == "" {
		return Property{}, syntaxErr("value", "missing")
	}
	value, err := parseValue(rest)
	if err != nil {
		return Property{}, err
	}
	if 2+len(tag)+len(value) > maxRDATA {
		return Property{}, syntaxErr("value", "longer than an RDATA can hold")
	}
	return Property{Flags: uint8(flags), Tag: tag, Value: value}, nil
}

// token splits s at its first space or tab and drops the spaces and tabs
// that follow.
func token(s string) (tok, rest string) {
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], s[skipWSP(s, i):]
}

// parseValue reads a character-string that starts s; only spaces and
// tabs may follow it.
func parseValue(s string) (string, error) {
	quoted := s[0] == '"'
	i := 0
	if quoted {
		i = 1
	}
	var b strings.Builder
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			v, n, err := unescape(s[i:])
			if err != nil {
				return "", err
			}
			b.WriteByte(v)
			i += n - 1
		case quoted && c == '"', !quoted && isWSP(c):
			if j := skipWSP(s, i+b2i(quoted)); j != len(s) {
				return "", syntaxErr("value", "unexpected text after the value")
			}
			return b.String(), nil
		default:
			b.WriteByte(c)
		}
	}
	if quoted {
		return "", syntaxErr("value", "missing closing quote")
	}
	return b.String(), nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// unescape decodes the escape at the start of s (\DDD or \X) and returns
// the octet and the length of the escape.
func unescape(s string) (byte, int, error) {
	if len(s) < 2 {
		return 0, 0, syntaxErr("value", "backslash at the end")
	}
	if !isDigit(s[1]) {
		return s[1], 2, nil
	}
	if len(s) < 4 || !isDigit(s[2]) || !isDigit(s[3]) {
		return 0, 0, syntaxErr("value", `\DDD escape needs three digits`)
	}
	n, _ := strconv.Atoi(s[1:4])
	if n > 255 {
		return 0, 0, syntaxErr("value", `\DDD escape above 255`)
	}
	return byte(n), 4, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
