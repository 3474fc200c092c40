package mtasts

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mailauth/mailauth/internal/tagrec"
)

// Limits of the policy file (RFC 8461 §3.2, §3.3).
const (
	// MaxPolicySize is the largest policy body accepted, 64 KiB: the limit
	// RFC 8461 §3.3 suggests. A larger body makes the policy unusable.
	MaxPolicySize = 64 << 10
	// MaxMaxAge is the largest valid max_age in seconds, about one year
	// (RFC 8461 §3.2).
	MaxMaxAge = 31557600
	// maxAgeDigits is the longest max_age value: 1 to 10 digits (§3.2).
	maxAgeDigits = 10
)

// Mode is the policy mode (RFC 8461 §5). Values are case-sensitive.
type Mode string

// Policy modes.
const (
	ModeEnforce Mode = "enforce" // senders must not deliver without a valid TLS connection to a matching MX
	ModeTesting Mode = "testing" // senders deliver anyway and report failures (RFC 8460)
	ModeNone    Mode = "none"    // the policy is withdrawn (§8.3)
)

// Policy is a parsed MTA-STS policy file (RFC 8461 §3.2). It holds data
// fetched from the wire (MX patterns, extension values): keep it in
// memory, never serialise it or show its values.
//
// ParsePolicy fills in every field it can also when the policy as a whole
// is invalid, so that each field can be reported on its own.
type Policy struct {
	// Version is "STSv1" when the first version field is valid, else "".
	Version string
	// Mode is the mode of the first mode field when it is valid, else "".
	Mode Mode
	// MaxAge is the first max_age field in seconds when it is valid
	// (0..MaxMaxAge); nil when the field is missing or invalid (the
	// package's convention for an unknown fact, see the package doc).
	MaxAge *int64
	// MX lists the value of every mx field in order, as written, valid or
	// not. Matches ignores the invalid ones.
	MX []string
	// Extensions lists the unknown key: value lines in order. They are
	// ignored (§3.2).
	Extensions []Field
}

// String renders p as a policy file with LF line endings: version, mode,
// each mx, max_age, then the extensions. For a valid policy,
// ParsePolicy(p.String()) returns p.
func (p Policy) String() string {
	var b strings.Builder
	line := func(k, v string) {
		b.WriteString(k)
		b.WriteString(": ")
		b.WriteString(v)
		b.WriteByte('\n')
	}
	line("version", p.Version)
	line("mode", string(p.Mode))
	for _, mx := range p.MX {
		line("mx", mx)
	}
	if p.MaxAge != nil {
		line("max_age", strconv.FormatInt(*p.MaxAge, 10))
	}
	for _, e := range p.Extensions {
		line(e.Name, e.Value)
	}
	return b.String()
}

// policyReport is everything parsing a policy found out.
type policyReport struct {
	policy   Policy
	errs     []error // each a *SyntaxError; non-empty means invalid
	warnings []Code  // findings that leave the policy valid
	lines    []string
}

// ParsePolicy parses a policy file with the grammar of RFC 8461 §3.2:
// lines end with LF or CRLF (the last terminator is optional; a lone CR is
// not one), each line is `key: value` with optional white space after the
// colon and at the end. Keys and the values STSv1, enforce, testing and
// none are case-sensitive. version, mode and max_age are required, mx is
// required unless the mode is none; for version, mode and max_age the
// first occurrence wins. Unknown keys are ignored. Empty lines are
// tolerated and skipped.
//
// The returned Policy holds every field that could be read, also when the
// error is non-nil. The error joins one *SyntaxError per problem; each
// wraps ErrSyntax.
func ParsePolicy(s string) (Policy, error) {
	rep := parsePolicy(s)
	return rep.policy, errors.Join(rep.errs...)
}

func parsePolicy(s string) policyReport {
	rep := policyReport{}
	seen := map[string]bool{}
	lf, crlf := false, false
	for s != "" {
		var line string
		var ok bool
		line, s, ok = strings.Cut(s, "\n")
		if ok {
			if l, cr := strings.CutSuffix(line, "\r"); cr {
				line, crlf = l, true
			} else {
				lf = true
			}
		}
		if line == "" {
			continue
		}
		rep.lines = append(rep.lines, line)
		rep.parseLine(line, seen)
	}
	if lf && crlf {
		rep.warnings = append(rep.warnings, CodePolicyMixedLineEndings)
	}
	rep.checkRequired(seen)
	return rep
}

// parseLine parses one `key: value` line (RFC 8461 §3.2).
func (rep *policyReport) parseLine(line string, seen map[string]bool) {
	key, value, ok := strings.Cut(line, ":")
	if !ok {
		rep.fail(syntaxErr(line, CodePolicySyntax, "line without ':'"))
		return
	}
	value = strings.Trim(value, " \t")
	if !tagrec.ValidExtensionName(key) {
		rep.fail(syntaxErr(line, CodePolicySyntax, "invalid key"))
		return
	}
	if key == "mx" {
		rep.policy.MX = append(rep.policy.MX, value)
		if !ValidPattern(value) {
			rep.fail(syntaxErr(line, CodePolicyMXInvalid, "invalid mx pattern"))
		}
		return
	}
	if !knownKey(key) {
		if !validPolicyExtValue(value) {
			rep.fail(syntaxErr(line, CodePolicySyntax, "invalid value"))
			return
		}
		rep.policy.Extensions = append(rep.policy.Extensions, Field{Name: key, Value: value})
		return
	}
	if seen[key] {
		rep.warnings = append(rep.warnings, CodePolicyDuplicateField)
		return // the first one wins (§3.2)
	}
	seen[key] = true
	rep.setKnown(line, key, value)
}

func knownKey(key string) bool {
	return key == "version" || key == "mode" || key == "max_age"
}

// setKnown sets version, mode or max_age from their first occurrence.
func (rep *policyReport) setKnown(line, key, value string) {
	switch key {
	case "version":
		if value != Version {
			rep.fail(syntaxErr(line, CodePolicyVersionInvalid, "version must be %s", Version))
			return
		}
		rep.policy.Version = value
	case "mode":
		switch m := Mode(value); m {
		case ModeEnforce, ModeTesting, ModeNone:
			rep.policy.Mode = m
		default:
			rep.fail(syntaxErr(line, CodePolicyModeInvalid, "mode must be enforce, testing or none"))
		}
	case "max_age":
		n, code := parseMaxAge(value)
		if code != "" {
			rep.fail(syntaxErr(line, code, "max_age must be 0 to %d", MaxMaxAge))
			return
		}
		rep.policy.MaxAge = &n
	}
}

// parseMaxAge parses 1*10DIGIT and checks the §3.2 upper bound.
func parseMaxAge(v string) (int64, Code) {
	if v == "" || len(v) > maxAgeDigits {
		return 0, CodePolicyMaxAgeInvalid
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, CodePolicyMaxAgeInvalid
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, CodePolicyMaxAgeInvalid
	}
	if n > MaxMaxAge {
		return 0, CodePolicyMaxAgeTooLarge
	}
	return n, ""
}

// checkRequired reports missing required fields (§3.2).
func (rep *policyReport) checkRequired(seen map[string]bool) {
	if !seen["version"] {
		rep.fail(syntaxErr("version", CodePolicyVersionMissing, "no version field"))
	}
	if !seen["mode"] {
		rep.fail(syntaxErr("mode", CodePolicyModeMissing, "no mode field"))
	}
	if !seen["max_age"] {
		rep.fail(syntaxErr("max_age", CodePolicyMaxAgeMissing, "no max_age field"))
	}
	m := rep.policy.Mode
	if (m == ModeEnforce || m == ModeTesting) && len(rep.policy.MX) == 0 {
		rep.fail(syntaxErr("mx", CodePolicyMXMissing, "mode %s needs at least one mx field", m))
	}
}

func (rep *policyReport) fail(e *SyntaxError) { rep.errs = append(rep.errs, e) }

// codes returns the finding codes of every error and warning.
func (rep *policyReport) codes() []Code {
	out := append([]Code(nil), rep.warnings...)
	for _, err := range rep.errs {
		var se *SyntaxError
		if errors.As(err, &se) {
			out = append(out, se.Code)
		}
	}
	return out
}

// validPolicyExtValue reports whether s is sts-policy-ext-value
// (RFC 8461 §3.2): visible ASCII or UTF-8 characters, with inner spaces
// allowed, at least one character. Leading and trailing white space has
// already been trimmed.
func validPolicyExtValue(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}
