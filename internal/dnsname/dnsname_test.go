package dnsname

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsLDHLabel(t *testing.T) {
	t.Parallel()
	for label, want := range map[string]bool{
		"a": true, "A1": true, "a-b": true, "xn--bcher-kva": true, "123": true,
		strings.Repeat("a", MaxLabelLength): true, strings.Repeat("a", MaxLabelLength+1): false,
		"": false, "-a": false, "a-": false, "-": false, "a_b": false, "a.b": false, "a b": false, "é": false,
	} {
		assert.Equal(t, want, IsLDHLabel(label), "IsLDHLabel(%q)", label)
	}
}

func TestIsLDHName(t *testing.T) {
	t.Parallel()
	label := strings.Repeat("a", MaxLabelLength)
	longest := strings.Join([]string{label, label, label, strings.Repeat("b", 61)}, ".") // 253 octets
	for name, want := range map[string]bool{
		"mail.example.com": true, "localhost": true, "MX1.Example.COM": true, longest: true,
		longest + "b": false, "": false, ".": false, "example.com.": false, ".example.com": false,
		"a..b": false, "a_b.example": false, "-a.example": false, "*.example.com": false,
	} {
		assert.Equal(t, want, IsLDHName(name), "IsLDHName(%q)", name)
	}
}
