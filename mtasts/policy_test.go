package mtasts

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/findings"
)

func TestParsePolicy(t *testing.T) {
	t.Parallel()
	const base = "version: STSv1\nmode: enforce\nmx: mail.example.com\nmax_age: 604800\n"
	enforce := Policy{Version: "STSv1", Mode: ModeEnforce, MaxAge: new(int64(604800)), MX: []string{"mail.example.com"}}
	tests := []struct {
		name  string
		in    string
		want  Policy
		codes []Code // every finding of the parse (errors and warnings), sorted
		valid bool
	}{
		{name: "pass", in: base, want: enforce, valid: true},
		{name: "crlf", in: strings.ReplaceAll(base, "\n", "\r\n"), want: enforce, valid: true},
		{name: "no-final-newline", in: strings.TrimSuffix(base, "\n"), want: enforce, valid: true},
		{name: "mixed-line-endings", in: "version: STSv1\r\nmode: enforce\nmx: mail.example.com\r\nmax_age: 604800", want: enforce, valid: true, codes: []Code{CodePolicyMixedLineEndings}},
		{name: "field-order-and-spaces", in: "max_age:604800 \nmx:\tmail.example.com\nmode: enforce\t\nversion:   STSv1\n", want: enforce, valid: true},
		{name: "empty-lines", in: "\nversion: STSv1\n\nmode: enforce\nmx: mail.example.com\nmax_age: 604800\n\n", want: enforce, valid: true},
		{name: "testing-two-mx", in: "version: STSv1\nmode: testing\nmx: mail.example.com\nmx: *.backup.example.net\nmax_age: 86400\n",
			want: Policy{Version: "STSv1", Mode: ModeTesting, MaxAge: new(int64(86400)), MX: []string{"mail.example.com", "*.backup.example.net"}}, valid: true},
		{name: "none-without-mx", in: "version: STSv1\nmode: none\nmax_age: 86400\n",
			want: Policy{Version: "STSv1", Mode: ModeNone, MaxAge: new(int64(86400))}, valid: true},
		{name: "extensions-ignored", in: base + "x-note: hello wörld  \nMode: Enforce\n",
			want: Policy{Version: "STSv1", Mode: ModeEnforce, MaxAge: new(int64(604800)), MX: []string{"mail.example.com"}, Extensions: []Field{{"x-note", "hello wörld"}, {"Mode", "Enforce"}}}, valid: true},
		{name: "max-age-zero", in: strings.Replace(base, "604800", "0", 1),
			want: Policy{Version: "STSv1", Mode: ModeEnforce, MaxAge: new(int64(0)), MX: []string{"mail.example.com"}}, valid: true},
		{name: "max-age-limit", in: strings.Replace(base, "604800", "31557600", 1),
			want: Policy{Version: "STSv1", Mode: ModeEnforce, MaxAge: new(int64(MaxMaxAge)), MX: []string{"mail.example.com"}}, valid: true},
		{name: "max-age-leading-zeros", in: strings.Replace(base, "604800", "0000604800", 1), want: enforce, valid: true},
		{name: "max-age-too-large", in: strings.Replace(base, "604800", "31557601", 1),
			want: Policy{Version: "STSv1", Mode: ModeEnforce, MX: []string{"mail.example.com"}}, codes: []Code{CodePolicyMaxAgeTooLarge}},
		{name: "max-age-eleven-digits", in: strings.Replace(base, "604800", "12345678901", 1),
			want: Policy{Version: "STSv1", Mode: ModeEnforce, MX: []string{"mail.example.com"}}, codes: []Code{CodePolicyMaxAgeInvalid}},
		{name: "max-age-negative", in: strings.Replace(base, "604800", "-1", 1),
			want: Policy{Version: "STSv1", Mode: ModeEnforce, MX: []string{"mail.example.com"}}, codes: []Code{CodePolicyMaxAgeInvalid}},
		{name: "enforce-without-mx", in: "version: STSv1\nmode: enforce\nmax_age: 86400\n",
			want: Policy{Version: "STSv1", Mode: ModeEnforce, MaxAge: new(int64(86400))}, codes: []Code{CodePolicyMXMissing}},
		{name: "testing-without-mx", in: "version: STSv1\nmode: testing\nmax_age: 86400\n",
			want: Policy{Version: "STSv1", Mode: ModeTesting, MaxAge: new(int64(86400))}, codes: []Code{CodePolicyMXMissing}},
		{name: "capital-mode-key", in: "version: STSv1\nMode: enforce\nmx: a.example\nmax_age: 1\n",
			want: Policy{Version: "STSv1", MaxAge: new(int64(1)), MX: []string{"a.example"}, Extensions: []Field{{"Mode", "enforce"}}}, codes: []Code{CodePolicyModeMissing}},
		{name: "capital-mode-value", in: strings.Replace(base, "enforce", "Enforce", 1),
			want: Policy{Version: "STSv1", MaxAge: new(int64(604800)), MX: []string{"mail.example.com"}}, codes: []Code{CodePolicyModeInvalid}},
		{name: "duplicate-mode-first-wins", in: "version: STSv1\nmode: testing\nmode: testing\nmode: enforce\nmx: a.example\nmax_age: 1\n",
			want: Policy{Version: "STSv1", Mode: ModeTesting, MaxAge: new(int64(1)), MX: []string{"a.example"}}, valid: true, codes: []Code{CodePolicyDuplicateField}},
		{name: "invalid-first-mode-wins", in: "version: STSv1\nmode: strict\nmode: enforce\nmx: a.example\nmax_age: 1\n",
			want: Policy{Version: "STSv1", MaxAge: new(int64(1)), MX: []string{"a.example"}}, codes: []Code{CodePolicyDuplicateField, CodePolicyModeInvalid}},
		{name: "version-missing", in: "mode: enforce\nmx: mail.example.com\nmax_age: 604800\n",
			want: Policy{Mode: ModeEnforce, MaxAge: new(int64(604800)), MX: []string{"mail.example.com"}}, codes: []Code{CodePolicyVersionMissing}},
		{name: "version-wrong", in: strings.Replace(base, "STSv1", "STSv2", 1),
			want: Policy{Mode: ModeEnforce, MaxAge: new(int64(604800)), MX: []string{"mail.example.com"}}, codes: []Code{CodePolicyVersionInvalid}},
		{name: "wildcard-in-middle", in: strings.Replace(base, "mail.example.com", "mail.*.example.com", 1),
			want: Policy{Version: "STSv1", Mode: ModeEnforce, MaxAge: new(int64(604800)), MX: []string{"mail.*.example.com"}}, codes: []Code{CodePolicyMXInvalid}},
		{name: "wildcard-without-dot", in: strings.Replace(base, "mail.example.com", "*example.com", 1),
			want: Policy{Version: "STSv1", Mode: ModeEnforce, MaxAge: new(int64(604800)), MX: []string{"*example.com"}}, codes: []Code{CodePolicyMXInvalid}},
		{name: "u-label", in: strings.Replace(base, "mail.example.com", "bücher.example", 1),
			want: Policy{Version: "STSv1", Mode: ModeEnforce, MaxAge: new(int64(604800)), MX: []string{"bücher.example"}}, codes: []Code{CodePolicyMXInvalid}},
		{name: "lone-cr", in: "version: STSv1\rmode: enforce\nmx: a.example\nmax_age: 1\n",
			want: Policy{MaxAge: new(int64(1)), MX: []string{"a.example"}}, codes: []Code{CodePolicyModeMissing, CodePolicyVersionInvalid}},
		{name: "line-without-colon", in: base + "garbage\n", want: enforce, codes: []Code{CodePolicySyntax}},
		{name: "space-before-colon", in: base + "x-y : 1\n", want: enforce, codes: []Code{CodePolicySyntax}},
		{name: "empty-extension-value", in: base + "x-y:\n", want: enforce, codes: []Code{CodePolicySyntax}},
		{name: "empty", in: "", want: Policy{}, codes: []Code{CodePolicyMaxAgeMissing, CodePolicyModeMissing, CodePolicyVersionMissing}},
		{name: "html", in: "<html><body>Not here</body></html>\n", want: Policy{},
			codes: []Code{CodePolicyMaxAgeMissing, CodePolicyModeMissing, CodePolicySyntax, CodePolicyVersionMissing}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParsePolicy(tc.in)
			require.Equal(t, tc.valid, err == nil, "ParsePolicy valid (err %v)", err)
			if err != nil {
				require.ErrorIs(t, err, ErrSyntax, "error does not wrap ErrSyntax")
			}
			require.Equal(t, tc.want, got, "ParsePolicy")
			rep := parsePolicy(tc.in)
			codes := findings.Normalize(rep.codes())
			require.Equal(t, tc.codes, codes, "codes")
			if tc.valid {
				again, err := ParsePolicy(got.String())
				require.NoError(t, err, "round trip of %q", got.String())
				require.Equal(t, got, again, "round trip of %q", got.String())
			}
		})
	}
}
