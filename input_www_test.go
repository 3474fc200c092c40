package mailauth

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNormalizeDomainDropsWWW: the leading www. label of a URL's host is
// dropped (doc/rfc-notes.md §1.1 step 10); a bare name or a mailbox keeps
// it, and so does a URL whose rest would not be a name to scan.
func TestNormalizeDomainDropsWWW(t *testing.T) {
	tests := []struct {
		input, ascii, unicode string
		dropped               bool
	}{
		{"https://www.example.com/", "example.com", "example.com", true},
		{"HTTP://WWW.Example.COM:8080/path?q#f", "example.com", "example.com", true},
		{"https://www.例子.中国/", "xn--fsqu00a.xn--fiqs8s", "例子.中国", true},
		{"https://www.mail.example.org", "mail.example.org", "mail.example.org", true},
		{"https://www.com/", "www.com", "www.com", false},
		{"https://www.co.uk/", "www.co.uk", "www.co.uk", false},
		{"https://www.github.io/", "www.github.io", "www.github.io", false},
		{"https://www.example.co.uk/", "example.co.uk", "example.co.uk", true},
		{"https://www2.example.com/", "www2.example.com", "www2.example.com", false},
		{"https://mail.www.example.com/", "mail.www.example.com", "mail.www.example.com", false},
		{"www.example.com", "www.example.com", "www.example.com", false},
		{"postmaster@www.example.com", "www.example.com", "www.example.com", false},
	}
	for _, tc := range tests {
		got, err := NormalizeDomain(tc.input)
		require.NoError(t, err, tc.input)
		assert.Equal(t, Domain{ASCII: tc.ascii, Unicode: tc.unicode, WWWDropped: tc.dropped}, got, tc.input)
	}
	_, err := NormalizeDomain("https://www.localhost/")
	assertInputError(t, err, FieldDomain, RuleSpecialUse)
}
