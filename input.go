package mailauth

import (
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"

	"github.com/mailauth/mailauth/internal/ipclass"
)

// Bounds of the request fields, from the API contract (ScanRequest,
// PtrCheckRequest and the Limits table). Lengths of raw request fields
// count Unicode code points, as JSON Schema does.
const (
	// MinDomainLen is the shortest domain field accepted, raw in code
	// points and normalized in octets (the normalized bound always holds:
	// two labels of at least one octet and a dot).
	MinDomainLen = 3
	// MaxDomainLen is the longest domain field accepted, raw in code points
	// and normalized in octets: 253 octets is the longest name in
	// presentation form without the trailing dot (RFC 1035 §2.3.4: 255
	// octets on the wire).
	MaxDomainLen = 253
	// MaxSelectorLen is the longest DKIM selector: one DNS label
	// (RFC 6376 §3.1, RFC 1035 §2.3.4).
	MaxSelectorLen = 63
	// MinSendingIPLen is the shortest sending IP text accepted.
	MinSendingIPLen = 3
	// MaxSendingIPLenScan is the longest ScanRequest.sendingIp: 45
	// characters is the longest IPv6 text, with an embedded IPv4 address
	// (RFC 4291 §2.2).
	MaxSendingIPLenScan = 45
	// MaxSendingIPLenPtr is the longest PtrCheckRequest.sendingIp.
	MaxSendingIPLenPtr = 47
)

const (
	maxLabelLen     = 63 // RFC 1035 §2.3.4
	maxUTMSourceLen = 64 // ^[a-z0-9][a-z0-9._-]{0,63}$
)

// InputField names the request field an InputError is about: the
// contract's JSON field name.
type InputField string

// The fields of InputError.
const (
	FieldDomain       InputField = "domain"
	FieldDKIMSelector InputField = "dkimSelector"
	FieldSendingIP    InputField = "sendingIp"
	FieldUTMSource    InputField = "utm_source"
)

// InputRule is the stable snake_case code of the rule an InputError
// reports. The codes are documented on InputError.
type InputRule string

// The rules of InputError.
const (
	RuleTooShort          InputRule = "too_short"
	RuleTooLong           InputRule = "too_long"
	RuleInvalidCharacters InputRule = "invalid_characters"
	RuleInvalidURL        InputRule = "invalid_url"
	RuleUnsupportedScheme InputRule = "unsupported_scheme"
	RuleCredentialedURL   InputRule = "credentialed_url"
	RuleEmptyHost         InputRule = "empty_host"
	RuleEmptyLocalPart    InputRule = "empty_local_part"
	RuleAddressLiteral    InputRule = "address_literal"
	RuleIPTarget          InputRule = "ip_target"
	RuleAmbiguousNumeric  InputRule = "ambiguous_numeric"
	RuleEmptyLabel        InputRule = "empty_label"
	RuleLabelTooLong      InputRule = "label_too_long"
	RuleSingleLabel       InputRule = "single_label"
	RuleIDNA              InputRule = "idna"
	RuleSpecialUse        InputRule = "special_use"
	RuleNotAnIP           InputRule = "not_an_ip"
	RuleZoneID            InputRule = "zone_id"
	RuleNotPublicPrefix   InputRule = "not_public_" // + the ipclass.Class, e.g. not_public_private
	RulePattern           InputRule = "pattern"
)

// ruleMessages is the English text of each rule code. It never contains
// any part of the rejected input.
var ruleMessages = map[InputRule]string{
	RuleTooShort:          "too short",
	RuleTooLong:           "too long",
	RuleInvalidCharacters: "contains characters that are not allowed",
	RuleInvalidURL:        "not a valid URL",
	RuleUnsupportedScheme: "only http and https URLs are accepted",
	RuleCredentialedURL:   "credentialed URLs are not accepted",
	RuleEmptyHost:         "no host name given",
	RuleEmptyLocalPart:    "the mailbox has an empty local part",
	RuleAddressLiteral:    "address literals are not accepted",
	RuleIPTarget:          "IP addresses are not accepted, give a domain name",
	RuleAmbiguousNumeric:  "numeric names that could be read as an IP address are not accepted",
	RuleEmptyLabel:        "empty labels are not allowed",
	RuleLabelTooLong:      "a label is longer than 63 octets",
	RuleSingleLabel:       "a domain needs at least two labels",
	RuleIDNA:              "not a valid internationalized domain name",
	RuleSpecialUse:        "special-use and local names are not accepted",
	RuleNotAnIP:           "not an IPv4 or IPv6 address",
	RuleZoneID:            "IPv6 zone identifiers are not accepted",
	RulePattern:           "does not match the required pattern",
}

// invalidValueMessage is the text of a rule code ruleMessages lacks.
const invalidValueMessage = "invalid value"

// InputRuleMessages returns every English rule text an InputError message
// ends with ("domain: <text>"), sorted, except those of the
// not_public_<class> rules, which read "not a public address (<class>
// range)" with the class's underscores as spaces. The web page keeps a
// Chinese text for each.
func InputRuleMessages() []string {
	out := []string{invalidValueMessage}
	for _, m := range ruleMessages {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// Domain is a normalized domain to scan.
type Domain struct {
	// ASCII is the lower-case A-label form without the trailing dot; it is
	// what is queried.
	ASCII string
	// Unicode is the same name in U-label form for display
	// (idna.Display.ToUnicode of ASCII). When no label of ASCII is an
	// xn-- label, Unicode equals ASCII, whatever the input looked like.
	Unicode string
	// WWWDropped reports that the input was an http(s) URL whose host
	// began with a www. label, which was dropped: the mail domain of
	// https://www.example.com/ is example.com.
	WWWDropped bool
}

// InputError reports an invalid request field. It never carries the
// rejected value, so its message may be shown to anyone.
//
// Field is the contract's JSON field name: "domain", "dkimSelector",
// "sendingIp" or "utm_source". Rule is a stable snake_case code:
//
//   - too_short, too_long: length outside the contract's bounds (raw
//     field in code points; for domain also the normalized A-label form
//     in octets, and a domain of only whitespace is too short).
//   - invalid_characters: invalid UTF-8, whitespace, a control character,
//     one of / \ ? # %, or an ASCII character other than letter, digit,
//     hyphen and dot in a domain (STD3, RFC 1123 §2.1).
//   - invalid_url: a "://" input that net/url cannot parse.
//   - unsupported_scheme: a URL scheme other than http or https, including
//     scheme-only forms such as "mailto:".
//   - credentialed_url: a URL with a user-info part (user@ or user:pw@).
//   - empty_host: a URL or mailbox without a host.
//   - empty_local_part: a mailbox with nothing before the last @.
//   - address_literal: a mailbox domain in brackets (RFC 5321 §4.1.3).
//   - ip_target: the host is an IP address (bracketed or not).
//   - ambiguous_numeric: the last label is all digits or 0x-hex, a form
//     that resolvers may read as an IPv4 address (127.1, 2130706433).
//   - empty_label, label_too_long: a label of 0 or more than 63 octets.
//   - single_label: fewer than two labels.
//   - idna: rejected by UTS #46 processing (disallowed code point, bad
//     punycode, hyphen placement, joiners, Bidi rule).
//   - special_use: a special-use or local name (RFC 6761, RFC 6762,
//     RFC 7686, RFC 8375, .internal, reverse-mapping zones).
//   - not_an_ip: sendingIp is not IPv4 or IPv6 text as netip.ParseAddr
//     reads it (no leading zeros, no short forms, no brackets, no spaces).
//   - zone_id: sendingIp carries an IPv6 zone (%eth0).
//   - not_public_<class>: sendingIp is in a special-purpose range; <class>
//     is the [ipclass.Class], e.g. not_public_private,
//     not_public_documentation, not_public_loopback.
//   - pattern: dkimSelector or utm_source does not match its pattern.
type InputError struct {
	Field InputField
	Rule  InputRule
}

// Error returns a short English message naming the field and the rule,
// e.g. "domain: credentialed URLs are not accepted". It never echoes the
// input.
func (e *InputError) Error() string {
	msg, ok := ruleMessages[e.Rule]
	if !ok {
		msg = invalidValueMessage
		if class, found := strings.CutPrefix(string(e.Rule), string(RuleNotPublicPrefix)); found {
			msg = "not a public address (" + strings.ReplaceAll(class, "_", " ") + " range)"
		}
	}
	return string(e.Field) + ": " + msg
}

func inputErr(field InputField, rule InputRule) error { return &InputError{Field: field, Rule: rule} }

// idnaStrict is the UTS #46 lookup profile used for domains: mapping
// (case and width folding, full stops), non-transitional (ß stays ß),
// STD3 rules, CheckHyphens and CheckJoiners (via MapForLookup), the
// RFC 5893 Bidi rule and the DNS length checks.
var idnaStrict = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.Transitional(false),
	idna.VerifyDNSLength(true),
)

// idnaLax is idnaStrict without the DNS length checks. It only serves to
// tell which length rule made idnaStrict fail.
var idnaLax = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.Transitional(false),
)

// asciiSpace is the set trimmed from both ends of a domain input.
const asciiSpace = " \t\n\v\f\r"

// NormalizeDomain turns the domain field of a scan request into the name
// to scan, following doc/rfc-notes.md §1.1: trim; reduce an http(s) URL to
// its host or a mailbox to its domain; strip one trailing dot; reject
// empty labels, IP targets and ambiguous numeric forms; map with UTS #46
// (IDNA lookup profile, non-transitional); then check label and name
// lengths, require two labels, and refuse special-use names; finally drop
// the leading www. label of a URL's host (Domain.WWWDropped). The error
// is always an *InputError with Field "domain".
func NormalizeDomain(input string) (Domain, error) {
	if rule := checkLength(input, MinDomainLen, MaxDomainLen); rule != "" {
		return Domain{}, inputErr(FieldDomain, rule)
	}
	if !utf8.ValidString(input) {
		return Domain{}, inputErr(FieldDomain, RuleInvalidCharacters)
	}
	s := strings.Trim(input, asciiSpace)
	if s == "" {
		return Domain{}, inputErr(FieldDomain, RuleTooShort)
	}
	host, rule := extractHost(s)
	if rule == "" {
		host, rule = normalizeHost(host)
	}
	if rule != "" {
		return Domain{}, inputErr(FieldDomain, rule)
	}
	dropped := false
	if strings.Contains(s, "://") {
		host, dropped = dropWWW(host)
	}
	return Domain{ASCII: host, Unicode: displayName(host), WWWDropped: dropped}, nil
}

// dropWWW removes the leading www. label of a URL's normalized host
// (step 10): a web address names the web server, and the mail domain is
// the name below it. The label stays when what is left would not be a
// valid name to scan (www.com stays www.com), or would be a public suffix
// of the Public Suffix List (www.co.uk stays www.co.uk: co.uk is no one's
// mail domain).
func dropWWW(host string) (string, bool) {
	rest, ok := strings.CutPrefix(host, "www.")
	if !ok || checkASCII(rest) != "" {
		return host, false
	}
	if ps, _ := publicsuffix.PublicSuffix(rest); ps == rest {
		return host, false
	}
	return rest, true
}

// checkLength applies a contract length bound, counted in code points.
func checkLength(s string, lo, hi int) InputRule {
	switch n := utf8.RuneCountInString(s); {
	case n < lo:
		return RuleTooShort
	case n > hi:
		return RuleTooLong
	}
	return ""
}

// extractHost reduces a trimmed input to the host part (steps 1-3).
func extractHost(s string) (host string, rule InputRule) {
	if strings.Contains(s, "://") {
		return hostFromURL(s)
	}
	if hasForbiddenRune(s) {
		return "", RuleInvalidCharacters
	}
	if hasSchemePrefix(s) {
		return "", RuleUnsupportedScheme
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		return hostFromMailbox(s[:i], s[i+1:])
	}
	if strings.HasPrefix(s, "[") {
		return "", RuleIPTarget
	}
	return s, ""
}

// hostFromURL takes the host of an http or https URL (step 2).
func hostFromURL(s string) (host string, rule InputRule) {
	scheme := s[:strings.Index(s, "://")]
	if !strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https") {
		return "", RuleUnsupportedScheme
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "", RuleInvalidURL
	case u.User != nil:
		return "", RuleCredentialedURL
	case strings.HasPrefix(u.Host, "["):
		return "", RuleIPTarget
	}
	host = u.Hostname()
	switch {
	case host == "":
		return "", RuleEmptyHost
	case hasForbiddenRune(host):
		return "", RuleInvalidCharacters
	}
	return host, ""
}

// hostFromMailbox takes the domain of local@domain, split at the last @
// because a quoted local part may contain @ (step 3).
func hostFromMailbox(local, domain string) (host string, rule InputRule) {
	switch {
	case local == "":
		return "", RuleEmptyLocalPart
	case domain == "":
		return "", RuleEmptyHost
	case strings.HasPrefix(domain, "["):
		return "", RuleAddressLiteral
	}
	return domain, ""
}

// hasForbiddenRune reports whitespace, control characters and the URL
// delimiters / \ ? # % in a bare domain, mailbox or URL host (step 1),
// and invalid UTF-8, which a URL host can carry in escaped form (%80).
func hasForbiddenRune(s string) bool {
	return !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune(`/\?#%`, r)
	})
}

// hasSchemePrefix reports a URI scheme without "//", such as
// "mailto:alice@example.com" or "http:example.com": RFC 3986 scheme
// characters, a colon, then anything but a digit (so "example.com:25"
// is not taken for a scheme). IPv6 addresses are not schemes.
func hasSchemePrefix(s string) bool {
	colon := strings.IndexByte(s, ':')
	if colon < 1 || !isASCIILetter(s[0]) {
		return false
	}
	for i := 1; i < colon; i++ {
		if c := s[i]; !isASCIILetter(c) && !isASCIIDigit(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	if colon+1 < len(s) && isASCIIDigit(s[colon+1]) {
		return false
	}
	_, err := netip.ParseAddr(s)
	return err != nil
}

// fullStops are the label separators UTS #46 maps to ".": FULL STOP,
// IDEOGRAPHIC FULL STOP, FULLWIDTH FULL STOP, HALFWIDTH IDEOGRAPHIC FULL
// STOP.
var fullStops = []string{".", "\u3002", "\uff0e", "\uff61"}

// normalizeHost runs steps 4-9 on a host and returns the A-label form.
func normalizeHost(host string) (string, InputRule) {
	host = stripTrailingDot(host)
	if hasEmptyLabel(host) {
		return "", RuleEmptyLabel
	}
	if rule := checkNumeric(host); rule != "" {
		return "", rule
	}
	if !isLDH(host) {
		return "", RuleInvalidCharacters
	}
	ascii, err := idnaStrict.ToASCII(host)
	if err != nil {
		return "", classifyIDNAError(host)
	}
	ascii = strings.ToLower(ascii)
	if rule := checkASCII(ascii); rule != "" {
		return "", rule
	}
	return ascii, ""
}

// stripTrailingDot removes exactly one trailing full stop (step 4).
func stripTrailingDot(host string) string {
	for _, dot := range fullStops {
		if s, ok := strings.CutSuffix(host, dot); ok {
			return s
		}
	}
	return host
}

// hasEmptyLabel reports an empty name or an empty label between ASCII dots.
func hasEmptyLabel(name string) bool {
	return name == "" || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") ||
		strings.Contains(name, "..")
}

// checkNumeric rejects IP addresses (step 5) and names whose last label
// is all digits or 0x-hex (step 6, the WHATWG "ends in a number" rule).
func checkNumeric(name string) InputRule {
	if _, err := netip.ParseAddr(name); err == nil {
		return RuleIPTarget
	}
	last := name[strings.LastIndexByte(name, '.')+1:]
	if hex, ok := strings.CutPrefix(strings.ToLower(last), "0x"); ok {
		last = hex
		if last == "" || strings.IndexFunc(last, notHexDigit) < 0 {
			return RuleAmbiguousNumeric
		}
		return ""
	}
	if last != "" && strings.IndexFunc(last, notDigit) < 0 {
		return RuleAmbiguousNumeric
	}
	return ""
}

func notDigit(r rune) bool    { return r > unicode.MaxASCII || !isASCIIDigit(byte(r)) }
func notHexDigit(r rune) bool { return notDigit(r) && (r < 'a' || r > 'f') }

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isASCIIDigit(c byte) bool  { return c >= '0' && c <= '9' }

// isLDH reports whether every ASCII byte of name is a letter, digit,
// hyphen or dot; other bytes are left to IDNA. This is the STD3 rule for
// ASCII, checked here so that the error names it.
func isLDH(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < utf8.RuneSelf && !isASCIILetter(c) && !isASCIIDigit(c) && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// classifyIDNAError tells a length failure of the strict profile apart
// from any other IDNA failure.
func classifyIDNAError(host string) InputRule {
	mapped, err := idnaLax.ToASCII(host)
	if err != nil {
		return RuleIDNA
	}
	if rule := checkASCII(mapped); rule != "" {
		return rule
	}
	return RuleIDNA
}

// checkASCII checks the mapped A-label form (steps 5, 6, 8, 9 again):
// mapping can produce dots (U+3002) and digits (full-width forms), so the
// structural checks are repeated on what will be queried.
func checkASCII(name string) InputRule {
	if hasEmptyLabel(name) {
		return RuleEmptyLabel
	}
	if rule := checkNumeric(name); rule != "" {
		return rule
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if len(l) > maxLabelLen {
			return RuleLabelTooLong
		}
	}
	switch {
	case len(name) > MaxDomainLen:
		return RuleTooLong
	case len(name) < MinDomainLen:
		return RuleTooShort
	case len(labels) < 2:
		return RuleSingleLabel
	case isSpecialUse(labels):
		return RuleSpecialUse
	}
	return ""
}

// specialUseTLDs are top-level labels that never name a scannable mail
// domain: RFC 6761 (localhost, test, invalid), RFC 2606 (example),
// RFC 6762 (local), RFC 7686 (onion) and the private-use .internal.
// example.com, example.net and example.org are real and stay scannable.
var specialUseTLDs = map[string]bool{
	"localhost": true, "test": true, "invalid": true, "example": true,
	"local": true, "onion": true, "internal": true,
}

// specialUseArpa are the .arpa zones refused with everything below them:
// home.arpa (RFC 8375) and the reverse-mapping zones (RFC 1035 §3.5,
// RFC 3596 §2.5).
var specialUseArpa = map[string]bool{"home": true, "in-addr": true, "ip6": true}

// isSpecialUse applies the product policy of step 9.
func isSpecialUse(labels []string) bool {
	n := len(labels)
	return specialUseTLDs[labels[n-1]] || (labels[n-1] == "arpa" && specialUseArpa[labels[n-2]])
}

// displayName returns the U-label form of a valid A-label name, or the
// name itself should the Display profile refuse it.
func displayName(ascii string) string {
	u, err := idna.Display.ToUnicode(ascii)
	if err != nil {
		return ascii
	}
	return u
}

// NormalizeSendingIP validates a sending IP address: no zone, IPv4 or
// IPv6 text as netip.ParseAddr accepts it (no surrounding spaces,
// brackets, leading zeros or short IPv4 forms), and a public address per
// [ipclass.IsPublic]. An IPv4-mapped address is returned unmapped
// (::ffff:8.8.8.8 gives 8.8.8.8), so the returned address's String is the
// normalized echo. It bounds nothing but the address itself: the length
// limits the API contract puts on a request's sendingIp member are
// checked by [SendingIPMember.Normalize]. The error is always an
// *InputError with Field "sendingIp".
func NormalizeSendingIP(input string) (netip.Addr, error) {
	if strings.ContainsRune(input, '%') {
		return netip.Addr{}, inputErr(FieldSendingIP, RuleZoneID)
	}
	addr, err := netip.ParseAddr(input)
	if err != nil {
		return netip.Addr{}, inputErr(FieldSendingIP, RuleNotAnIP)
	}
	addr = addr.Unmap()
	if class := ipclass.Classify(addr); class != ipclass.Public {
		return netip.Addr{}, inputErr(FieldSendingIP, RuleNotPublicPrefix+InputRule(class))
	}
	return addr, nil
}

// SendingIPMember names a request member that carries a sending IP: the
// API contract bounds its raw length differently in a scan and in a
// ptr-check.
type SendingIPMember int

// The two request members that carry a sending IP.
const (
	// ScanSendingIP is ScanRequest.sendingIp: MinSendingIPLen to
	// MaxSendingIPLenScan characters.
	ScanSendingIP SendingIPMember = iota
	// PTRCheckSendingIP is PtrCheckRequest.sendingIp: MinSendingIPLen to
	// MaxSendingIPLenPtr characters.
	PTRCheckSendingIP
)

// MaxLen is the longest raw value the contract accepts for the member.
func (m SendingIPMember) MaxLen() int {
	if m == PTRCheckSendingIP {
		return MaxSendingIPLenPtr
	}
	return MaxSendingIPLenScan
}

// Normalize checks the member's raw length against the contract, then
// validates the address with [NormalizeSendingIP]. The error is always an
// *InputError with Field "sendingIp".
func (m SendingIPMember) Normalize(input string) (netip.Addr, error) {
	if rule := checkLength(input, MinSendingIPLen, m.MaxLen()); rule != "" {
		return netip.Addr{}, inputErr(FieldSendingIP, rule)
	}
	return NormalizeSendingIP(input)
}

// ValidateSelector checks a DKIM selector against the contract: length
// 1..MaxSelectorLen and pattern ^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$. The
// error is an *InputError with Field "dkimSelector". The pattern admits
// forms that are no valid DNS name ("a..b", "a."); the DKIM check, not
// this function, deals with those.
func ValidateSelector(s string) error {
	if rule := checkLength(s, 1, MaxSelectorLen); rule != "" {
		return inputErr(FieldDKIMSelector, rule)
	}
	if !matchToken(s, isASCIILetter) {
		return inputErr(FieldDKIMSelector, RulePattern)
	}
	return nil
}

// ValidateUTMSource checks the utm_source query parameter against the
// contract's pattern ^[a-z0-9][a-z0-9._-]{0,63}$. Every violation,
// including an empty or over-long value, is rule "pattern". The error is
// an *InputError with Field "utm_source".
func ValidateUTMSource(s string) error {
	if len(s) > maxUTMSourceLen || !matchToken(s, isLowerASCIILetter) {
		return inputErr(FieldUTMSource, RulePattern)
	}
	return nil
}

func isLowerASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' }

// matchToken matches ^[L0-9][L0-9._-]*$ where letter defines L.
func matchToken(s string, letter func(byte) bool) bool {
	if s == "" || s[0] == '.' || s[0] == '_' || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !letter(c) && !isASCIIDigit(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}
