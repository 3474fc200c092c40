package mtasts

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseRecord(t *testing.T) {
	t.Parallel()
	id33 := strings.Repeat("a", 33)
	id32 := strings.Repeat("Z9", 16)
	tests := []struct {
		name string
		in   string
		want Record
		code Code // expected SyntaxError code; "" for success
	}{
		{name: "pass", in: "v=STSv1; id=20240501T1200;", want: Record{ID: "20240501T1200", Fields: []Field{{"id", "20240501T1200"}}}},
		{name: "no-final-separator", in: "v=STSv1; id=abc", want: Record{ID: "abc", Fields: []Field{{"id", "abc"}}}},
		{name: "no-spaces", in: "v=STSv1;id=abc;ext=1", want: Record{ID: "abc", Fields: []Field{{"id", "abc"}, {"ext", "1"}}}},
		{name: "space-before-separator", in: "v=STSv1 ;\tid=abc\t; ", want: Record{ID: "abc", Fields: []Field{{"id", "abc"}}}},
		{name: "id-32", in: "v=STSv1; id=" + id32, want: Record{ID: id32, Fields: []Field{{"id", id32}}}},
		{name: "extension-before-id", in: "v=STSv1; a.b-c_d=x:y; id=1", want: Record{ID: "1", Fields: []Field{{"a.b-c_d", "x:y"}, {"id", "1"}}}},
		{name: "duplicate-id-first-wins", in: "v=STSv1; id=first; id=second", want: Record{ID: "first", Fields: []Field{{"id", "first"}, {"id", "second"}}}},
		{name: "id-with-dash", in: "v=STSv1; id=2024-05-01", code: CodeAnnouncementBadID},
		{name: "id-33", in: "v=STSv1; id=" + id33, code: CodeAnnouncementBadID},
		{name: "id-empty", in: "v=STSv1; id=", code: CodeAnnouncementBadID},
		{name: "id-non-ascii", in: "v=STSv1; id=abcé", code: CodeAnnouncementBadID},
		{name: "no-id", in: "v=STSv1; ext=1", code: CodeAnnouncementMissingID},
		{name: "bare-version", in: "v=STSv1", code: CodeAnnouncementMissingID},
		{name: "bare-version-separator", in: "v=STSv1;", code: CodeAnnouncementMissingID},
		{name: "uppercase-id-key", in: "v=STSv1; ID=abc", code: CodeAnnouncementMissingID},
		{name: "lowercase-version", in: "v=stsv1; id=abc", code: CodeAnnouncementSyntax},
		{name: "version-suffix", in: "v=STSv10; id=abc", code: CodeAnnouncementSyntax},
		{name: "trailing-space", in: "v=STSv1; id=abc ", code: CodeAnnouncementSyntax},
		{name: "empty-field", in: "v=STSv1;; id=abc", code: CodeAnnouncementSyntax},
		{name: "field-without-equals", in: "v=STSv1; id=abc; x", code: CodeAnnouncementSyntax},
		{name: "space-separated", in: "v=STSv1; id=abc ext=1", code: CodeAnnouncementSyntax},
		{name: "bad-extension-name", in: "v=STSv1; id=abc; _x=1", code: CodeAnnouncementSyntax},
		{name: "extension-value-equals", in: "v=STSv1; id=abc; x=a=b", code: CodeAnnouncementSyntax},
		{name: "extension-value-empty", in: "v=STSv1; id=abc; x=", code: CodeAnnouncementSyntax},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseRecord(tc.in)
			if tc.code != "" {
				var se *SyntaxError
				require.ErrorAs(t, err, &se, "ParseRecord(%q) error = %v, want code %s", tc.in, err, tc.code)
				require.Equal(t, tc.code, se.Code, "ParseRecord(%q) error = %v", tc.in, err)
				require.ErrorIs(t, err, ErrSyntax, "ParseRecord(%q)", tc.in)
				return
			}
			require.NoError(t, err, "ParseRecord(%q)", tc.in)
			require.Equal(t, tc.want, got, "ParseRecord(%q)", tc.in)
			again, err := ParseRecord(got.String())
			require.NoError(t, err, "round trip of %q", got.String())
			require.Equal(t, got, again, "round trip of %q", got.String())
		})
	}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	in := []string{
		"v=STSv1; id=a",
		"v=STSv1 ; id=b",
		"v=STSv1",
		"v=stsv1; id=c",
		"v=STSv10; id=d",
		"google-site-verification=xyz",
		"v=spf1 -all",
		" v=STSv1; id=e",
	}
	want := []string{"v=STSv1; id=a", "v=STSv1 ; id=b", "v=STSv1"}
	require.Equal(t, want, Select(in), "Select")
	require.Nil(t, Select(nil), "Select(nil)")
}

func TestRecordHasDuplicates(t *testing.T) {
	t.Parallel()
	r, err := ParseRecord("v=STSv1; id=a; x=1; x=2")
	require.NoError(t, err)
	require.True(t, r.HasDuplicates(), "HasDuplicates")
	r, err = ParseRecord("v=STSv1; id=a; x=1")
	require.NoError(t, err)
	require.False(t, r.HasDuplicates(), "HasDuplicates")
}
