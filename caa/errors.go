package caa

import (
	"errors"
	"fmt"
)

// ErrSyntax is wrapped by every error Parse and ParseIssuerValue return.
var ErrSyntax = errors.New("caa: syntax error")

// SyntaxError says which part of a property or value is malformed. Its
// message may contain the offending text.
type SyntaxError struct {
	Part   string // "flags", "tag", "value", "issuer" or "parameter"
	Reason string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("caa: invalid %s: %s", e.Part, e.Reason) }

// Unwrap returns ErrSyntax.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }
