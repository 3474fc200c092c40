package tlsrpt

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want Record
		code Code // expected SyntaxError code; "" for success
	}{
		{name: "mailto", in: "v=TLSRPTv1; rua=mailto:tlsrpt@example.com",
			want: Record{RUA: []string{"mailto:tlsrpt@example.com"}, Fields: []Field{{"rua", "mailto:tlsrpt@example.com"}}}},
		{name: "comma-spaces", in: "v=TLSRPTv1;rua=mailto:a@example.com \t, https://r.example.net/x;",
			want: Record{RUA: []string{"mailto:a@example.com", "https://r.example.net/x"}, Fields: []Field{{"rua", "mailto:a@example.com,https://r.example.net/x"}}}},
		{name: "space-before-delimiter", in: "v=TLSRPTv1 ; rua=mailto:a@example.com ; ",
			want: Record{RUA: []string{"mailto:a@example.com"}, Fields: []Field{{"rua", "mailto:a@example.com"}}}},
		{name: "extension", in: "v=TLSRPTv1; foo=bar; rua=x",
			want: Record{RUA: []string{"x"}, Fields: []Field{{"foo", "bar"}, {"rua", "x"}}}},
		{name: "two-rua", in: "v=TLSRPTv1; rua=a; rua=b,c",
			want: Record{RUA: []string{"a", "b", "c"}, Fields: []Field{{"rua", "a"}, {"rua", "b,c"}}}},
		{name: "bare", in: "v=TLSRPTv1", code: CodeMissingRUA},
		{name: "bare-delimiter", in: "v=TLSRPTv1;", code: CodeMissingRUA},
		{name: "only-extension", in: "v=TLSRPTv1; foo=bar", code: CodeMissingRUA},
		{name: "uppercase-rua", in: "v=TLSRPTv1; RUA=mailto:a@example.com", code: CodeMissingRUA},
		{name: "lowercase-version", in: "v=tlsrptv1; rua=mailto:a@example.com", code: CodeSyntaxError},
		{name: "version-suffix", in: "v=TLSRPTv10; rua=mailto:a@example.com", code: CodeSyntaxError},
		{name: "bare-x", in: "v=TLSRPTv1; rua=mailto:a@example.com;x", code: CodeSyntaxError},
		{name: "empty-field", in: "v=TLSRPTv1;; rua=mailto:a@example.com", code: CodeSyntaxError},
		{name: "empty-rua", in: "v=TLSRPTv1; rua=", code: CodeSyntaxError},
		{name: "empty-uri", in: "v=TLSRPTv1; rua=mailto:a@example.com,,mailto:b@example.com", code: CodeSyntaxError},
		{name: "space-in-uri", in: "v=TLSRPTv1; rua=mailto:a b@example.com", code: CodeSyntaxError},
		{name: "bad-extension-name", in: "v=TLSRPTv1; rua=x; -a=1", code: CodeSyntaxError},
		{name: "bad-extension-value", in: "v=TLSRPTv1; rua=x; a=b=c", code: CodeSyntaxError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tc.in)
			if tc.code != "" {
				var se *SyntaxError
				require.ErrorAs(t, err, &se, "Parse(%q) error = %v, want code %s", tc.in, err, tc.code)
				require.Equal(t, tc.code, se.Code, "Parse(%q) error = %v", tc.in, err)
				require.ErrorIs(t, err, ErrSyntax, "Parse(%q)", tc.in)
				return
			}
			require.NoError(t, err, "Parse(%q)", tc.in)
			require.Equal(t, tc.want, got, "Parse(%q)", tc.in)
			again, err := Parse(got.String())
			require.NoError(t, err, "round trip via %q", got.String())
			require.Equal(t, got, again, "round trip via %q", got.String())
		})
	}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	in := []string{"v=TLSRPTv1; rua=a", "v=TLSRPTv1 ;rua=b", "v=TLSRPTv1", "v=tlsrptv1; rua=c", "V=TLSRPTv1; rua=d", "v=TLSRPTv10; rua=e", "v=spf1 -all"}
	want := []string{"v=TLSRPTv1; rua=a", "v=TLSRPTv1 ;rua=b", "v=TLSRPTv1"}
	require.Equal(t, want, Select(in), "Select")
}

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		uri  string
		want Kind
	}{
		{"mailto:tlsrpt@example.com", KindMailto},
		{"MAILTO:tlsrpt@example.com", KindMailto},
		{"mailto:tls%2Brpt@example.com?subject=report", KindMailto},
		{"mailto:first.last+tag@mail.example.co.uk", KindMailto},
		{`mailto:"odd"@example.com`, KindMailto},
		// address literals (RFC 6068 §2 domain, RFC 5321 §4.1.3)
		{"mailto:user@[192.0.2.1]", KindMailto},
		{"mailto:user@[IPv6:2001:db8::1]", KindMailto},
		{"mailto:user@%5B192.0.2.1%5D", KindMailto},
		{"mailto:user@[192.0.2.256]", KindBadMailto},
		{"mailto:user@[192.0.2]", KindBadMailto},
		{"mailto:user@[2001:db8::1]", KindBadMailto}, // IPv6 needs the "IPv6:" tag
		{"mailto:user@[IPv6:192.0.2.1]", KindBadMailto},
		{"mailto:user@[]", KindBadMailto},
		{"mailto:user@[x:y]", KindBadMailto},
		{"mailto:user@192.0.2.1]", KindBadMailto},
		{"mailto:user@[192.0.2.1", KindBadMailto},
		{"https://rep.example.net/tlsrpt", KindHTTPS},
		{"HTTPS://rep.example.net:8443/v1/report?x=1", KindHTTPS},
		{"https://[2001:db8::1]/r", KindHTTPS},
		{"https://192.0.2.1/r", KindHTTPS},
		{"http://rep.example.net/", KindHTTP},
		{"tlsrpt@example.com", KindInvalidScheme},
		{"ftp://rep.example.net/", KindInvalidScheme},
		{"1mailto:a@example.com", KindInvalidScheme},
		{":a@example.com", KindInvalidScheme},
		{"mailto:", KindBadMailto},
		{"mailto:@example.com", KindBadMailto},
		{"mailto:a@", KindBadMailto},
		{"mailto:a@localhost", KindBadMailto},
		{"mailto:a..b@example.com", KindBadMailto},
		{"mailto:a@exa_mple.com", KindBadMailto},
		{"mailto:a!b@example.com", KindBadMailto},
		{"mailto:a@example.com%", KindBadMailto},
		{"mailto:é@example.com", KindBadMailto},
		{"https:///tlsrpt", KindBadHTTPS},
		{"https:rep.example.net", KindBadHTTPS},
		{"https://user@rep.example.net/", KindBadHTTPS},
		{"https://rep_x.example.net/", KindBadHTTPS},
		{"https://localhost/", KindBadHTTPS},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, Classify(tc.uri), "Classify(%q)", tc.uri)
	}
}
