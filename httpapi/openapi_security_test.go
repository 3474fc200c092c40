package httpapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestOpenAPINoSecurity: the document says at its root that no security
// scheme applies ("security": []), defines none, and no operation
// overrides that, so strict linters accept it as the contract states.
func TestOpenAPINoSecurity(t *testing.T) {
	s := LoadSpec(t)
	sec, ok := s.Lookup("/security")
	list, isList := sec.([]any)
	assert.True(t, ok, "root security = %v (present %v), want []", sec, ok)
	assert.True(t, isList, "root security = %v (present %v), want []", sec, ok)
	assert.Empty(t, list, "root security = %v (present %v), want []", sec, ok)
	_, ok = s.Lookup("/components/securitySchemes")
	assert.False(t, ok, "the document defines security schemes")
	paths, _ := s.Lookup("/paths")
	for p, item := range paths.(map[string]any) {
		for m, op := range item.(map[string]any) {
			if o, ok := op.(map[string]any); ok {
				assert.NotContains(t, o, "security", "%s %s overrides security", m, p)
			}
		}
	}
}
