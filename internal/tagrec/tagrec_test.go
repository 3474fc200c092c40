package tagrec

import (
	"reflect"
	"strings"
	"testing"
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
		if got := IsRecord(tc.txt, "v=STSv1"); got != tc.want {
			t.Errorf("IsRecord(%q) = %v, want %v", tc.txt, got, tc.want)
		}
	}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	in := []string{"v=TLSRPTv1; rua=x", "other", "v=TLSRPTv1", "v=TLSRPTv2;"}
	want := []string{"v=TLSRPTv1; rua=x", "v=TLSRPTv1"}
	if got := Select(in, "v=TLSRPTv1"); !reflect.DeepEqual(got, want) {
		t.Fatalf("Select = %q, want %q", got, want)
	}
	if got := Select([]string{"other"}, "v=TLSRPTv1"); got != nil {
		t.Fatalf("Select without records = %q, want nil", got)
	}
}

type testField struct {
	Name  string
	Value string
}

func TestRender(t *testing.T) {
	t.Parallel()
	if got := Render[testField]("v=STSv1", nil); got != "v=STSv1" {
		t.Fatalf("Render(no fields) = %q", got)
	}
	fields := []testField{{"id", "1"}, {"ext", "a.b"}}
	if got, want := Render("v=STSv1", fields), "v=STSv1; id=1; ext=a.b"; got != want {
		t.Fatalf("Render = %q, want %q", got, want)
	}
}

func TestValidExtensionName(t *testing.T) {
	t.Parallel()
	longest := "a" + strings.Repeat("_", MaxExtensionNameLength-1)
	for s, want := range map[string]bool{
		"a": true, "9x": true, "a_b-c.d": true, longest: true, longest + "x": false,
		"": false, "_a": false, "-a": false, ".a": false, "a b": false, "a=b": false, "é": false,
	} {
		if got := ValidExtensionName(s); got != want {
			t.Errorf("ValidExtensionName(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestValidExtensionValue(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"x": true, "!~": true, "a:b/c": true,
		"": false, "a;b": false, "a=b": false, "a b": false, "a\tb": false, "\x7f": false, "é": false,
	} {
		if got := ValidExtensionValue(s); got != want {
			t.Errorf("ValidExtensionValue(%q) = %v, want %v", s, got, want)
		}
	}
}
