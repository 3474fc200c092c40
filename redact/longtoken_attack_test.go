package redact

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackLongTokenUnguarded: a token longer than MaxValueLen (a TXT
// record's text joined from several character-strings has no length
// bound below MaxScanBytes) is neither recorded nor marks the Set
// unguarded: the guard silently vouches for an output that carries it.
// A DKIM key of more than 1,024 bytes of base64 is one. Pre-existing
// (MaxValueLen is older than this change), but it is a value dropped
// without the fail-closed ErrUnguarded the change introduces.
func TestAttackLongTokenUnguarded(t *testing.T) {
	s := NewSet()
	s.UseVocabulary(NewVocabulary("The record ends in -all."))
	long := "MIIBIjANBgkqhkiG9w0BAQEFAAOC" + strings.Repeat("Q8AMIIBCgKCAQEAx9k+Yz", 50) // 1,128 bytes, one token
	s.AddText("v=DKIM1; k=rsa; p=" + long)
	err := s.Verify([]byte(`{"key":"` + long + `"}`))
	assert.Error(t, err, "an output carrying the %d-byte token was vouched for", len(long))
}
