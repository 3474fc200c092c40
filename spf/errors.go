package spf

import (
	"errors"
	"fmt"
)

// Shared errors (the same names in every mailauth protocol package).
var (
	// ErrSyntax is wrapped by every *SyntaxError.
	ErrSyntax = errors.New("spf: syntax error")
)

// SyntaxError says which term of a record is wrong and why. Any syntax
// error makes the policy a permerror (RFC 7208 §4.6).
type SyntaxError struct {
	// Term is the offending term as written. It is raw record data: fine
	// for programmers and logs under their control, never for output.
	Term string
	// Index is the term's position, 1 for the first term after the
	// version tag; 0 for the version tag itself.
	Index int
	// Code says what is wrong; one of the CodeSyntax… codes.
	Code Code
}

// Error implements error.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("spf: term %d %q: %s", e.Index, e.Term, e.Code.describe())
}

// Unwrap returns ErrSyntax, so errors.Is(err, ErrSyntax) holds.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }
