package tlsrpt

import (
	"errors"
	"fmt"
)

// ErrSyntax is the sentinel every parse error of this package wraps: the
// record does not follow the grammar of RFC 8460 §3. Test with errors.Is.
var ErrSyntax = errors.New("tlsrpt: syntax error")

// SyntaxError says what is wrong with a record. Its message is for
// programmers and may quote the input; never show it to end users or
// serialise it.
type SyntaxError struct {
	// Field is the part of the record that is wrong.
	Field string
	// Code is the finding a Check reports for this problem: CodeSyntaxError
	// or CodeMissingRUA.
	Code Code
	// Reason explains the problem in plain English.
	Reason string
}

// Error implements error.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("tlsrpt: syntax error in %q: %s", e.Field, e.Reason)
}

// Unwrap returns ErrSyntax.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

func syntaxErr(field string, code Code, format string, args ...any) *SyntaxError {
	return &SyntaxError{Field: field, Code: code, Reason: fmt.Sprintf(format, args...)}
}
