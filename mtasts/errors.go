package mtasts

import (
	"errors"
	"fmt"
)

// ErrSyntax is the sentinel every parse error of this package wraps: the
// announcement record or the policy file does not follow RFC 8461 §3.1 or
// §3.2. Test with errors.Is.
var ErrSyntax = errors.New("mtasts: syntax error")

// SyntaxError says what is wrong with an announcement record or a policy
// file. Its message is for programmers and may quote the offending input;
// never show it to end users or serialise it.
type SyntaxError struct {
	// Field names the field, line or part of the input that is wrong.
	Field string
	// Code is the finding a Check reports for this problem.
	Code Code
	// Reason explains the problem in plain English.
	Reason string
}

// Error implements error.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("mtasts: syntax error in %q: %s", e.Field, e.Reason)
}

// Unwrap returns ErrSyntax.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

func syntaxErr(field string, code Code, format string, args ...any) *SyntaxError {
	return &SyntaxError{Field: field, Code: code, Reason: fmt.Sprintf(format, args...)}
}
