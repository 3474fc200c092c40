package httpapi

import "testing"

// TestOpenAPINoSecurity: the document says at its root that no security
// scheme applies ("security": []), defines none, and no operation
// overrides that, so strict linters accept it as the contract states.
func TestOpenAPINoSecurity(t *testing.T) {
	s := LoadSpec(t)
	sec, ok := s.Lookup("/security")
	if list, isList := sec.([]any); !ok || !isList || len(list) != 0 {
		t.Errorf("root security = %v (present %v), want []", sec, ok)
	}
	if _, ok := s.Lookup("/components/securitySchemes"); ok {
		t.Error("the document defines security schemes")
	}
	paths, _ := s.Lookup("/paths")
	for p, item := range paths.(map[string]any) {
		for m, op := range item.(map[string]any) {
			if o, ok := op.(map[string]any); ok {
				if _, has := o["security"]; has {
					t.Errorf("%s %s overrides security", m, p)
				}
			}
		}
	}
}
