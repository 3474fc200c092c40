package tagrec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIsRecord(t *testing.T) {
	t.Parallel()
	tests := []struct {
		txt  string
		want bool
	}{
		{"v=STSv1; id=1", true},
		{"v=STSv1", true},
		{"v=STSv1 \t;id=1", true},
		{"v=STSv1;", true},
		{"v=STSv10; id=1", false},
		{"v=stsv1; id=1", false},
		{" v=STSv1; id=1", false},
		{"v=STSv1 id=1", false},
		{"", false},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, IsRecord(tc.txt, "v=STSv1"), "IsRecord(%q)", tc.txt)
	}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	in := []string{"v=TLSRPTv1; rua=x", "other", "v=TLSRPTv1", "v=TLSRPTv2;"}
	want := []string{"v=TLSRPTv1; rua=x", "v=TLSRPTv1"}
	require.Equal(t, want, Select(in, "v=TLSRPTv1"), "Select")
	require.Nil(t, Select([]string{"other"}, "v=TLSRPTv1"), "Select without records, want nil")
}

type testField struct {
	Name  string
	Value string
}

func TestRender(t *testing.T) {
	t.Parallel()
	require.Equal(t, "v=STSv1", Render[testField]("v=STSv1", nil), "Render(no fields)")
	fields := []testField{{"id", "1"}, {"ext", "a.b"}}
	require.Equal(t, "v=STSv1; id=1; ext=a.b", Render("v=STSv1", fields), "Render")
}

func TestValidExtensionName(t *testing.T) {
	t.Parallel()
	longest := "a" + strings.Repeat("_", MaxExtensionNameLength-1)
	for s, want := range map[string]bool{
		"a": true, "9x": true, "a_b-c.d": true, longest: true, longest + "x": false,
		"": false, "_a": false, "-a": false, ".a": false, "a b": false, "a=b": false, "é": false,
	} {
		assert.Equal(t, want, ValidExtensionName(s), "ValidExtensionName(%q)", s)
	}
}

func TestValidExtensionValue(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"x": true, "!~": true, "a:b/c": true,
		"": false, "a;b": false, "a=b": false, "a b": false, "a\tb": false, "\x7f": false, "é": false,
	} {
		assert.Equal(t, want, ValidExtensionValue(s), "ValidExtensionValue(%q)", s)
	}
}
