package mailauth

import (
	"net/netip"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// domainCase is one NormalizeDomain case: either ascii (and unicode, when
// it differs from ascii) or the rule that must fire.
type domainCase struct {
	name    string
	input   string
	ascii   string
	unicode string
	rule    InputRule
}

var (
	label63   = strings.Repeat("a", 63)
	label64   = strings.Repeat("a", 64)
	name253   = label63 + "." + label63 + "." + label63 + "." + strings.Repeat("b", 61) // 253 octets
	name254   = label63 + "." + label63 + "." + label63 + "." + strings.Repeat("b", 62)
	bucher20  = strings.Repeat("bücher.", 20) + "de" // 142 code points, 282 octets as A-labels
	longULabl = strings.Repeat("a", 58) + "ü.com"    // 59 code points, a 67-octet A-label
)

// domainCases covers doc/rfc-notes.md §1.1 step by step and every edge case
// of §1.2 (the "§1.2 #n" names).
var domainCases = []domainCase{
	// Plain names and step 1 (trim, forbidden characters).
	{name: "bare", input: "example.com", ascii: "example.com"},
	{name: "subdomain", input: "mail.example.org", ascii: "mail.example.org"},
	{name: "§1.2 #1 upper case and trailing dot", input: "Example.COM.", ascii: "example.com"},
	{name: "surrounding ASCII whitespace", input: " \t example.com \r\n", ascii: "example.com"},
	{name: "hyphen inside label", input: "a-b.example.com", ascii: "a-b.example.com"},
	{name: "minimal three octets", input: "a.b", ascii: "a.b"},
	{name: "inner space", input: "exa mple.com", rule: RuleInvalidCharacters},
	{name: "slash", input: "example.com/path", rule: RuleInvalidCharacters},
	{name: "protocol-relative", input: "//example.com", rule: RuleInvalidCharacters},
	{name: "backslash", input: `example.com\x`, rule: RuleInvalidCharacters},
	{name: "question mark", input: "example.com?x", rule: RuleInvalidCharacters},
	{name: "hash", input: "example.com#x", rule: RuleInvalidCharacters},
	{name: "percent", input: "exa%41mple.com", rule: RuleInvalidCharacters},
	{name: "NUL", input: "exa\x00mple.com", rule: RuleInvalidCharacters},
	{name: "NEL not trimmed", input: "example.com\u0085", rule: RuleInvalidCharacters},
	{name: "no-break space", input: "exa\u00a0mple.com", rule: RuleInvalidCharacters},
	{name: "ideographic space", input: "例子\u3000中国.com", rule: RuleInvalidCharacters},
	{name: "invalid UTF-8", input: "exa\xffmple.com", rule: RuleInvalidCharacters},
	{name: "space in mailbox", input: "al ice@example.com", rule: RuleInvalidCharacters},
	{name: "§1.2 #12 underscore label", input: "_dmarc.example.com", rule: RuleInvalidCharacters},
	{name: "underscore inside label", input: "a_b.example.com", rule: RuleInvalidCharacters},
	{name: "host and port", input: "example.com:8080", rule: RuleInvalidCharacters},
	{name: "exclamation mark", input: "exa!mple.com", rule: RuleInvalidCharacters},
	{name: "underscore in Unicode name", input: "bücher_.de", rule: RuleInvalidCharacters},

	// Raw length 3..253 code points.
	{name: "empty", input: "", rule: RuleTooShort},
	{name: "one character", input: "a", rule: RuleTooShort},
	{name: "two characters", input: "ab", rule: RuleTooShort},
	{name: "dot-terminated two characters", input: "a.", rule: RuleTooShort},
	{name: "only whitespace", input: "   ", rule: RuleTooShort},
	{name: "253 octets", input: name253, ascii: name253},
	{name: "254 characters", input: name254, rule: RuleTooLong},
	{name: "254 characters with trailing dot", input: name253 + ".", rule: RuleTooLong},
	{name: "long URL", input: "https://example.com/" + strings.Repeat("p", 240), rule: RuleTooLong},
	{name: "253 code points Unicode", input: strings.Repeat("ü", 50) + "." + strings.Repeat("ü", 50) + "." +
		strings.Repeat("ü", 50) + "." + strings.Repeat("ü", 50) + "." + strings.Repeat("ü", 49), rule: RuleTooLong},
	{name: "A-label form over 253 octets", input: bucher20, rule: RuleTooLong},

	// Step 2: URL form.
	{name: "§1.2 #3 URL with port path query fragment", input: "HTTPS://Mail.Example.com:8443/a?b#c", ascii: "mail.example.com"},
	{name: "http URL", input: "http://example.com", ascii: "example.com"},
	{name: "https URL with slash", input: "https://example.com/", ascii: "example.com"},
	{name: "URL with trailing-dot host", input: "http://example.com.:80/", ascii: "example.com"},
	{name: "URL with out-of-range port", input: "http://example.com:99999/", ascii: "example.com"},
	{name: "URL with at sign in path", input: "https://example.com/@user", ascii: "example.com"},
	{name: "URL with at sign in fragment", input: "https://example.com#@evil.example", ascii: "example.com"},
	{name: "URL with URL in query", input: "https://example.com/?next=http://a.b", ascii: "example.com"},
	{name: "URL with Unicode host", input: "http://例子.中国/path", ascii: "xn--fsqu00a.xn--fiqs8s", unicode: "例子.中国"},
	{name: "URL with space in host", input: "http://exa mple.com/", rule: RuleInvalidURL},
	{name: "URL with bad port", input: "http://example.com:port/", rule: RuleInvalidURL},
	{name: "URL with escaped host", input: "http://ex%61mple.com/", rule: RuleInvalidURL},
	{name: "URL with backslash before at", input: `http://example.com\@evil.example`, rule: RuleInvalidURL},
	{name: "URL with control character", input: "http://exam\x01ple.com/", rule: RuleInvalidURL},
	{name: "URL with escaped invalid UTF-8", input: "http://example.com%800000", rule: RuleInvalidCharacters},
	{name: "URL with escaped UTF-8 host", input: "http://b%C3%BCcher.de/", ascii: "xn--bcher-kva.de", unicode: "bücher.de"},
	{name: "§1.2 #4 ftp", input: "ftp://example.com", rule: RuleUnsupportedScheme},
	{name: "javascript URL", input: "javascript://example.com/%0aalert(1)", rule: RuleUnsupportedScheme},
	{name: "wss URL", input: "wss://example.com", rule: RuleUnsupportedScheme},
	{name: "missing scheme", input: "://example.com", rule: RuleUnsupportedScheme},
	{name: "file URL", input: "FILE:///etc/passwd", rule: RuleUnsupportedScheme},
	{name: "mailto", input: "mailto:alice@example.com", rule: RuleUnsupportedScheme},
	{name: "http without slashes", input: "http:example.com", rule: RuleUnsupportedScheme},
	{name: "§1.2 #2 user and password", input: "https://user:pw@example.com/x", rule: RuleCredentialedURL},
	{name: "user only", input: "https://user@example.com", rule: RuleCredentialedURL},
	{name: "empty user info", input: "https://@example.com", rule: RuleCredentialedURL},
	{name: "URL without host", input: "http:///path", rule: RuleEmptyHost},
	{name: "URL with port only", input: "https://:443/", rule: RuleEmptyHost},
	{name: "short valid URL", input: "http://a.b", ascii: "a.b"},

	// Step 3: mailbox form.
	{name: "mailbox", input: "postmaster@example.com", ascii: "example.com"},
	{name: "mailbox with upper case", input: "Alice@EXAMPLE.com", ascii: "example.com"},
	{name: "§1.2 #5 quoted local part with at", input: `"a@b"@example.com`, ascii: "example.com"},
	{name: "§1.2 #5 Unicode mailbox domain", input: "alice@Bücher.de", ascii: "xn--bcher-kva.de", unicode: "bücher.de"},
	{name: "§1.2 #5 as written, .example is special-use", input: "alice@Bücher.example", rule: RuleSpecialUse},
	{name: "at sign in local part", input: "@@example.com", ascii: "example.com"},
	{name: "empty local part", input: "@example.com", rule: RuleEmptyLocalPart},
	{name: "empty mailbox domain", input: "alice@", rule: RuleEmptyHost},
	{name: "§1.2 #6 IPv4 address literal", input: "postmaster@[192.0.2.1]", rule: RuleAddressLiteral},
	{name: "IPv6 address literal", input: "a@[IPv6:2001:db8::1]", rule: RuleAddressLiteral},

	// Step 4: trailing dot and empty labels.
	{name: "ideographic full stops", input: "例子。中国", ascii: "xn--fsqu00a.xn--fiqs8s", unicode: "例子.中国"},
	{name: "trailing ideographic full stop", input: "例子.中国。", ascii: "xn--fsqu00a.xn--fiqs8s", unicode: "例子.中国"},
	{name: "§1.2 #11 double dot", input: "example..com", rule: RuleEmptyLabel},
	{name: "§1.2 #11 leading dot", input: ".example.com", rule: RuleEmptyLabel},
	{name: "§1.2 #11 two trailing dots", input: "example.com..", rule: RuleEmptyLabel},
	{name: "only dots", input: "...", rule: RuleEmptyLabel},
	{name: "two trailing ideographic full stops", input: "example.com。。", rule: RuleEmptyLabel},
	{name: "double ideographic full stop", input: "例子。。中国", rule: RuleEmptyLabel},
	{name: "URL with dot host", input: "http://./", rule: RuleEmptyLabel},

	// Step 5: IP targets.
	{name: "§1.2 #8 IPv4", input: "192.0.2.1", rule: RuleIPTarget},
	{name: "§1.2 #8 bracketed IPv6", input: "[2001:db8::1]", rule: RuleIPTarget},
	{name: "§1.2 #8 URL with bracketed IPv6", input: "http://[::1]/", rule: RuleIPTarget},
	{name: "public IPv4", input: "8.8.8.8", rule: RuleIPTarget},
	{name: "IPv4 with trailing dot", input: "1.2.3.4.", rule: RuleIPTarget},
	{name: "IPv6", input: "2001:db8::1", rule: RuleIPTarget},
	{name: "IPv6 loopback", input: "::1", rule: RuleIPTarget},
	{name: "IPv6 starting with a letter", input: "fe80::1", rule: RuleIPTarget},
	{name: "IPv4-mapped IPv6", input: "::ffff:1.2.3.4", rule: RuleIPTarget},
	{name: "bracketed IPv6 with port", input: "[::1]:25", rule: RuleIPTarget},
	{name: "URL with IPv4 host", input: "http://1.2.3.4:80/", rule: RuleIPTarget},
	{name: "full-width IPv4", input: "１２７．０．０．１", rule: RuleIPTarget},
	{name: "IPv4 as leading labels", input: "1.2.3.4.example.com", ascii: "1.2.3.4.example.com"},
	{name: "IPv6 with zone", input: "fe80::1%eth0", rule: RuleInvalidCharacters},

	// Step 6: ambiguous numeric forms.
	{name: "§1.2 #7 127.1", input: "127.1", rule: RuleAmbiguousNumeric},
	{name: "§1.2 #7 0x7f.1", input: "0x7f.1", rule: RuleAmbiguousNumeric},
	{name: "§1.2 #7 2130706433", input: "2130706433", rule: RuleAmbiguousNumeric},
	{name: "§1.2 #7 0177.0.0.1", input: "0177.0.0.1", rule: RuleAmbiguousNumeric},
	{name: "§1.2 #7 127.0.0.01", input: "127.0.0.01", rule: RuleAmbiguousNumeric},
	{name: "§1.2 #17 numeric TLD", input: "1.example.123", rule: RuleAmbiguousNumeric},
	{name: "§1.2 #17 hex TLD", input: "host.0x1f", rule: RuleAmbiguousNumeric},
	{name: "hex integer", input: "0x7f000001", rule: RuleAmbiguousNumeric},
	{name: "upper-case hex", input: "0X7F.0.0.1", rule: RuleAmbiguousNumeric},
	{name: "bare 0x", input: "host.0x", rule: RuleAmbiguousNumeric},
	{name: "leading zero octet", input: "010.0.0.1", rule: RuleAmbiguousNumeric},
	{name: "numeric URL host", input: "http://127.1/", rule: RuleAmbiguousNumeric},
	{name: "numeric mailbox domain", input: "alice@127.1", rule: RuleAmbiguousNumeric},
	{name: "full-width digits TLD", input: "example.１２３", rule: RuleAmbiguousNumeric},
	{name: "numeric first label", input: "123.example.com", ascii: "123.example.com"},
	{name: "0x followed by non-hex", input: "host.0xg", ascii: "host.0xg"},
	{name: "TLD starting with digit", input: "host.1a", ascii: "host.1a"},

	// Step 7: IDNA (UTS #46 lookup, non-transitional).
	{name: "§1.2 #13 full-width", input: "ＥＸＡＭＰＬＥ．ｃｏｍ", ascii: "example.com"},
	{name: "§1.2 #14 sharp s non-transitional", input: "faß.de", ascii: "xn--fa-hia.de", unicode: "faß.de"},
	{name: "Chinese", input: "例子.中国", ascii: "xn--fsqu00a.xn--fiqs8s", unicode: "例子.中国"},
	{name: "Cyrillic", input: "пример.рф", ascii: "xn--e1afmkfd.xn--p1ai", unicode: "пример.рф"},
	{name: "Arabic right-to-left", input: "مثال.إختبار", ascii: "xn--mgbh0fb.xn--kgbechtv", unicode: "مثال.إختبار"},
	{name: "upper-case Unicode", input: "BÜCHER.de", ascii: "xn--bcher-kva.de", unicode: "bücher.de"},
	{name: "A-label input", input: "xn--bcher-kva.de", ascii: "xn--bcher-kva.de", unicode: "bücher.de"},
	{name: "upper-case A-label input", input: "XN--BCHER-KVA.DE", ascii: "xn--bcher-kva.de", unicode: "bücher.de"},
	{name: "soft hyphen ignored", input: "exam\u00adple.com", ascii: "example.com"},
	{name: "§1.2 #15 bad punycode", input: "xn--zz.example", rule: RuleIDNA},
	{name: "bad punycode scannable TLD", input: "xn--zz.com", rule: RuleIDNA},
	{name: "punycode decoding to ASCII", input: "xn--a.com", rule: RuleIDNA},
	{name: "§1.2 #16 leading hyphen", input: "-bad.example.com", rule: RuleIDNA},
	{name: "trailing hyphen", input: "bad-.example.com", rule: RuleIDNA},
	{name: "hyphens in positions 3 and 4", input: "ab--cd.example.com", rule: RuleIDNA},
	{name: "r3--- label (CheckHyphens)", input: "r3---sn-x.example.com", rule: RuleIDNA},
	{name: "zero width joiner", input: "\u200d.com", rule: RuleIDNA},
	{name: "mixed Bidi label", input: "a\u05d0.com", rule: RuleIDNA},
	{name: "STD3 disallowed mapping", input: "\u2488com", rule: RuleIDNA},
	{name: "replacement character", input: "exa\ufffdmple.com", rule: RuleIDNA},

	// Step 8: label lengths and label count.
	{name: "63-octet label", input: label63 + ".com", ascii: label63 + ".com"},
	{name: "§1.2 #10 64-octet label", input: label64 + ".com", rule: RuleLabelTooLong},
	{name: "Unicode label over 63 octets as A-label", input: longULabl, rule: RuleLabelTooLong},
	{name: "§1.2 #9 localhost", input: "localhost", rule: RuleSingleLabel},
	{name: "§1.2 #9 com", input: "com", rule: RuleSingleLabel},
	{name: "single label with trailing dot", input: "com.", rule: RuleSingleLabel},
	{name: "intranet", input: "intranet", rule: RuleSingleLabel},
	{name: "single-label URL", input: "http://localhost:8080/", rule: RuleSingleLabel},
	{name: "full-width single label", input: "ｌｏｃａｌｈｏｓｔ", rule: RuleSingleLabel},
	{name: "single Unicode label", input: "bücher", rule: RuleSingleLabel},

	// Step 9: special-use names.
	{name: "localhost subdomain", input: "foo.localhost", rule: RuleSpecialUse},
	{name: "test", input: "example.test", rule: RuleSpecialUse},
	{name: "test upper case", input: "EXAMPLE.TEST.", rule: RuleSpecialUse},
	{name: "invalid", input: "foo.invalid", rule: RuleSpecialUse},
	{name: "example TLD", input: "foo.example", rule: RuleSpecialUse},
	{name: "local", input: "printer.local", rule: RuleSpecialUse},
	{name: "onion", input: "duckduckgo.onion", rule: RuleSpecialUse},
	{name: "home.arpa", input: "home.arpa", rule: RuleSpecialUse},
	{name: "under home.arpa", input: "router.home.arpa", rule: RuleSpecialUse},
	{name: "internal", input: "corp.internal", rule: RuleSpecialUse},
	{name: "in-addr.arpa", input: "1.0.0.127.in-addr.arpa", rule: RuleSpecialUse},
	{name: "ip6.arpa", input: "ip6.arpa", rule: RuleSpecialUse},
	{name: "mailbox at test", input: "alice@example.test", rule: RuleSpecialUse},
	{name: "example.com is scannable", input: "example.com", ascii: "example.com"},
	{name: "example.net is scannable", input: "www.example.net", ascii: "www.example.net"},
	{name: "test as second-level label", input: "test.com", ascii: "test.com"},
	{name: "localhost as second-level label", input: "localhost.com", ascii: "localhost.com"},
	{name: "other arpa name", input: "example.arpa", ascii: "example.arpa"},
}

func TestNormalizeDomain(t *testing.T) {
	t.Parallel()
	for _, tc := range domainCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := NormalizeDomain(tc.input)
			if tc.rule != "" {
				assertInputError(t, err, FieldDomain, tc.rule)
				assert.Equal(t, Domain{}, got, "got %+v with an error, want the zero Domain", got)
				return
			}
			want := Domain{ASCII: tc.ascii, Unicode: tc.unicode}
			if want.Unicode == "" {
				want.Unicode = want.ASCII
			}
			require.NoError(t, err, "NormalizeDomain(%q) = %+v, %v; want %+v", tc.input, got, err, want)
			require.Equal(t, want, got, "NormalizeDomain(%q) = %+v, %v; want %+v", tc.input, got, err, want)
		})
	}
}

// assertInputError checks that err is an *InputError for field and rule
// and that its message does not echo the input.
func assertInputError(t *testing.T, err error, field InputField, rule InputRule) {
	t.Helper()
	var ie *InputError
	require.ErrorAs(t, err, &ie, "error = %v (%T), want *InputError{%s, %s}", err, err, field, rule)
	require.Equal(t, field, ie.Field, "error = {%s, %s}, want {%s, %s}", ie.Field, ie.Rule, field, rule)
	require.Equal(t, rule, ie.Rule, "error = {%s, %s}, want {%s, %s}", ie.Field, ie.Rule, field, rule)
	msg := ie.Error()
	assert.True(t, strings.HasPrefix(msg, string(field)+": "), "message %q has no field prefix or no specific text", msg)
	assert.False(t, strings.HasSuffix(msg, "invalid value"), "message %q has no field prefix or no specific text", msg)
}

// TestDomainRulesCovered makes sure every domain rule has at least one
// rejecting case in the table (valid near misses sit beside them).
func TestDomainRulesCovered(t *testing.T) {
	t.Parallel()
	seen := map[InputRule]bool{}
	valid := 0
	for _, tc := range domainCases {
		seen[tc.rule] = true
		if tc.rule == "" {
			valid++
		}
	}
	for _, rule := range []InputRule{
		RuleTooShort, RuleTooLong, RuleInvalidCharacters, RuleInvalidURL, RuleUnsupportedScheme,
		RuleCredentialedURL, RuleEmptyHost, RuleEmptyLocalPart, RuleAddressLiteral, RuleIPTarget,
		RuleAmbiguousNumeric, RuleEmptyLabel, RuleLabelTooLong, RuleSingleLabel, RuleIDNA, RuleSpecialUse,
	} {
		assert.True(t, seen[rule], "no case for rule %s", rule)
	}
	assert.GreaterOrEqual(t, valid, 30, "only %d valid cases", valid)
}

func TestInputErrorNeverEchoes(t *testing.T) {
	t.Parallel()
	for _, tc := range domainCases {
		if tc.rule == "" || len(tc.input) < 8 {
			continue // short inputs can occur in any English text
		}
		_, err := NormalizeDomain(tc.input)
		if err != nil {
			assert.NotContains(t, err.Error(), strings.TrimSpace(tc.input), "%s: message %q echoes the input", tc.name, err)
		}
	}
}

func TestInputErrorMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  InputError
		want string
	}{
		{InputError{FieldDomain, RuleCredentialedURL}, "domain: credentialed URLs are not accepted"},
		{InputError{FieldSendingIP, "not_public_link_local"}, "sendingIp: not a public address (link local range)"},
		{InputError{FieldDKIMSelector, RulePattern}, "dkimSelector: does not match the required pattern"},
		{InputError{FieldUTMSource, "no_such_rule"}, "utm_source: invalid value"},
	}
	for _, tc := range tests {
		got := tc.err.Error()
		assert.Equal(t, tc.want, got, "%+v.Error() = %q, want %q", tc.err, got, tc.want)
	}
}

// ipCase is one NormalizeSendingIP case: want is the returned address
// text, or rule the rule that must fire.
type ipCase struct {
	input  string
	maxLen int // 0 means MaxSendingIPLenScan
	want   string
	rule   InputRule
}

var ipCases = []ipCase{
	// Public addresses (doc/rfc-notes.md §10 accepts).
	{input: "1.1.1.1", want: "1.1.1.1"},
	{input: "8.8.8.8", want: "8.8.8.8"},
	{input: "9.9.9.9", maxLen: MaxSendingIPLenPtr, want: "9.9.9.9"},
	{input: "2606:4700:4700::1111", want: "2606:4700:4700::1111"},
	{input: "2606:4700:4700:0:0:0:0:1111", want: "2606:4700:4700::1111"},
	{input: "2606:4700:4700:0000:0000:0000:0000:1111", want: "2606:4700:4700::1111"},
	{input: "2001:4860:4860::8888", want: "2001:4860:4860::8888"},
	{input: "2A00:1450:4001::ABCD", want: "2a00:1450:4001::abcd"},
	{input: "::ffff:8.8.8.8", want: "8.8.8.8"},
	{input: "::FFFF:8.8.8.8", want: "8.8.8.8"},
	{input: "::ffff:808:808", want: "8.8.8.8"},
	{input: "0000:0000:0000:0000:0000:ffff:200.200.200.200", want: "200.200.200.200"}, // 45 characters
	{input: "100.63.255.255", want: "100.63.255.255"},                                 // just below CGNAT
	{input: "100.128.0.0", want: "100.128.0.0"},                                       // just above CGNAT
	{input: "172.32.0.1", want: "172.32.0.1"},                                         // just above 172.16/12
	{input: "223.255.255.255", want: "223.255.255.255"},                               // just below multicast

	// Length 3..maxLen.
	{input: "", rule: RuleTooShort},
	{input: "::", rule: RuleTooShort},
	{input: "0000:0000:0000:0000:0000:ffff:200.200.200.2000", rule: RuleTooLong},
	{input: "2606:4700:4700:0000:0000:0000:0000:1111%eth0xx", rule: RuleTooLong},
	{input: "2606:4700:4700:0000:0000:0000:0000:1111%eth0xx", maxLen: MaxSendingIPLenPtr, rule: RuleZoneID},
	{input: "0000:0000:0000:0000:0000:ffff:200.200.200.2000", maxLen: MaxSendingIPLenPtr, rule: RuleNotAnIP},
	{input: "2606:4700:4700:0000:0000:0000:0000:1111:1:2:3:4:5", maxLen: MaxSendingIPLenPtr, rule: RuleTooLong},

	// Not IP text.
	{input: "1.2.3", rule: RuleNotAnIP},
	{input: "1.1", rule: RuleNotAnIP},
	{input: "010.1.2.3", rule: RuleNotAnIP},
	{input: "0x08.8.8.8", rule: RuleNotAnIP},
	{input: "134744072", rule: RuleNotAnIP},
	{input: "1.1.1.1.1", rule: RuleNotAnIP},
	{input: "256.1.1.1", rule: RuleNotAnIP},
	{input: " 8.8.8.8", rule: RuleNotAnIP},
	{input: "8.8.8.8 ", rule: RuleNotAnIP},
	{input: "8.8.8.8/32", rule: RuleNotAnIP},
	{input: "[2606:4700:4700::1111]", rule: RuleNotAnIP},
	{input: "2606:4700:4700::1111:", rule: RuleNotAnIP},
	{input: "2606:4700::4700::1111", rule: RuleNotAnIP},
	{input: "example.com", rule: RuleNotAnIP},
	{input: "８.８.８.８", rule: RuleNotAnIP},

	// Zones.
	{input: "fe80::1%en0", rule: RuleZoneID},
	{input: "2606:4700:4700::1111%eth0", rule: RuleZoneID},
	{input: "8.8.8.8%eth0", rule: RuleZoneID},

	// Special-purpose ranges (doc/rfc-notes.md §10 rejects).
	{input: "0.0.0.0", rule: "not_public_this_network"},
	{input: "0::", rule: "not_public_this_network"},
	{input: "10.1.2.3", rule: "not_public_private"},
	{input: "172.16.0.1", rule: "not_public_private"},
	{input: "192.168.1.1", rule: "not_public_private"},
	{input: "fd00::1", rule: "not_public_private"},
	{input: "::ffff:10.0.0.1", rule: "not_public_private"},
	{input: "100.64.1.1", rule: "not_public_shared"},
	{input: "127.0.0.1", rule: "not_public_loopback"},
	{input: "::1", rule: "not_public_loopback"},
	{input: "::ffff:127.0.0.1", rule: "not_public_loopback"},
	{input: "169.254.1.1", rule: "not_public_link_local"},
	{input: "fe80::1", rule: "not_public_link_local"},
	{input: "192.0.2.1", rule: "not_public_documentation"},
	{input: "198.51.100.7", rule: "not_public_documentation"},
	{input: "203.0.113.5", rule: "not_public_documentation"},
	{input: "2001:db8::1", rule: "not_public_documentation"},
	{input: "3fff::1", rule: "not_public_documentation"},
	{input: "::ffff:192.0.2.1", rule: "not_public_documentation"},
	{input: "198.18.0.1", rule: "not_public_benchmarking"},
	{input: "2001:2::1", rule: "not_public_benchmarking"},
	{input: "224.0.0.1", rule: "not_public_multicast"},
	{input: "ff02::1", rule: "not_public_multicast"},
	{input: "240.0.0.1", rule: "not_public_reserved"},
	{input: "::8.8.8.8", rule: "not_public_reserved"}, // IPv4-compatible
	{input: "fec0::1", rule: "not_public_reserved"},
	{input: "255.255.255.255", rule: "not_public_broadcast"},
	{input: "192.0.0.9", rule: "not_public_protocol"},
	{input: "192.31.196.1", rule: "not_public_protocol"},
	{input: "192.88.99.1", rule: "not_public_protocol"},
	{input: "2002:c000:0201::1", rule: "not_public_protocol"},
	{input: "2001:0:53aa::1", rule: "not_public_protocol"},
	{input: "64:ff9b::808:808", rule: "not_public_protocol"},
	{input: "4000::1", rule: "not_public_not_global"},
}

func TestNormalizeSendingIP(t *testing.T) {
	t.Parallel()
	for _, tc := range ipCases {
		maxLen := tc.maxLen
		if maxLen == 0 {
			maxLen = MaxSendingIPLenScan
		}
		member := ScanSendingIP
		if maxLen == MaxSendingIPLenPtr {
			member = PTRCheckSendingIP
		}
		t.Run(tc.input, func(t *testing.T) {
			t.Parallel()
			got, err := member.Normalize(tc.input)
			if tc.rule != "" {
				assertInputError(t, err, FieldSendingIP, tc.rule)
				assert.False(t, got.IsValid(), "got %v with an error, want the zero Addr", got)
				return
			}
			msg := "NormalizeSendingIP(%q, %d) = %v, %v; want %s"
			require.NoError(t, err, msg, tc.input, maxLen, got, err, tc.want)
			require.Equal(t, netip.MustParseAddr(tc.want), got, msg, tc.input, maxLen, got, err, tc.want)
			require.Equal(t, tc.want, got.String(), msg, tc.input, maxLen, got, err, tc.want)
		})
	}
}

// tokenCase is a selector or utm_source case; rule "" means valid.
type tokenCase struct {
	input string
	rule  InputRule
}

func TestValidateSelector(t *testing.T) {
	t.Parallel()
	contract := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)
	tests := []tokenCase{
		{"s1", ""}, {"a", ""}, {"S1", ""}, {"selector1", ""}, {"google", ""}, {"k1.sub", ""},
		{"s_1", ""}, {"s-1", ""}, {"2024", ""}, {"a..b", ""}, {strings.Repeat("x", 63), ""},
		{"", RuleTooShort}, {strings.Repeat("x", 64), RuleTooLong},
		{"_s1", RulePattern}, {".s1", RulePattern}, {"-s1", RulePattern}, {"s 1", RulePattern},
		{"s1/x", RulePattern}, {"s1@x", RulePattern}, {"sél", RulePattern}, {"s1\n", RulePattern},
		{"s1._domainkey", ""}, {"s1:x", RulePattern},
	}
	for _, tc := range tests {
		t.Run(tc.input, func(t *testing.T) {
			t.Parallel()
			err := ValidateSelector(tc.input)
			assert.Equal(t, contract.MatchString(tc.input), err == nil, "ValidateSelector(%q) = %v, contract pattern says %v", tc.input, err, contract.MatchString(tc.input))
			if tc.rule == "" {
				assert.NoError(t, err, "ValidateSelector(%q) = %v, want nil", tc.input, err)
				return
			}
			assertInputError(t, err, FieldDKIMSelector, tc.rule)
		})
	}
}

func TestValidateUTMSource(t *testing.T) {
	t.Parallel()
	contract := regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	tests := []tokenCase{
		{"newsletter", ""}, {"a", ""}, {"0", ""}, {"x.y_z-1", ""}, {strings.Repeat("x", 64), ""},
		{"", RulePattern}, {"Newsletter", RulePattern}, {"_x", RulePattern}, {".x", RulePattern},
		{"a b", RulePattern}, {strings.Repeat("x", 65), RulePattern}, {"ü", RulePattern}, {"x/y", RulePattern},
	}
	for _, tc := range tests {
		t.Run(tc.input, func(t *testing.T) {
			t.Parallel()
			err := ValidateUTMSource(tc.input)
			assert.Equal(t, contract.MatchString(tc.input), err == nil, "ValidateUTMSource(%q) = %v, contract pattern says %v", tc.input, err, contract.MatchString(tc.input))
			if tc.rule == "" {
				assert.NoError(t, err, "ValidateUTMSource(%q) = %v, want nil", tc.input, err)
				return
			}
			assertInputError(t, err, FieldUTMSource, tc.rule)
		})
	}
}

func BenchmarkNormalizeDomain(b *testing.B) {
	for _, bc := range []struct{ name, input string }{
		{"url", "HTTPS://Mail.Example.com:8443/a?b#c"},
		{"bare", "example.com"},
		{"unicode", "alice@Bücher.de"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, err := NormalizeDomain(bc.input)
				require.NoError(b, err)
			}
		})
	}
}

// TestSendingIPMemberBounds: the length bounds belong to the request
// member, not to the address: a 46-character text is too long for a scan
// but, in a ptr-check, fails only as an address; NormalizeSendingIP
// itself bounds no length.
func TestSendingIPMemberBounds(t *testing.T) {
	t.Parallel()
	long := "2606:4700:4700:0000:0000:0000:0000:1111" + strings.Repeat(" ", 7) // 46 characters
	_, err := ScanSendingIP.Normalize(long)
	assertInputError(t, err, FieldSendingIP, RuleTooLong)
	_, err = PTRCheckSendingIP.Normalize(long)
	assertInputError(t, err, FieldSendingIP, RuleNotAnIP)
	_, err = PTRCheckSendingIP.Normalize(long + "xx")
	assertInputError(t, err, FieldSendingIP, RuleTooLong)
	got, err := NormalizeSendingIP("::ffff:8.8.8.8")
	assert.NoError(t, err, "NormalizeSendingIP(::ffff:8.8.8.8) = %v, %v", got, err)
	assert.Equal(t, "8.8.8.8", got.String(), "NormalizeSendingIP(::ffff:8.8.8.8) = %v, %v", got, err)
	_, err = NormalizeSendingIP("")
	assertInputError(t, err, FieldSendingIP, RuleNotAnIP)
}
