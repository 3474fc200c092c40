package dkim

import (
	"errors"
	"fmt"
)

// ErrSyntax is wrapped by every error [Parse] returns: the text is not a
// DKIM key record, and verifiers discard it (RFC 6376 §3.2, §3.6.1).
var ErrSyntax = errors.New("dkim: syntax error")

// SyntaxError says why a text is not a DKIM key record. It wraps
// [ErrSyntax].
type SyntaxError struct {
	// Tag is the name of the tag at fault, "" when the fault is not in one
	// tag.
	Tag string
	// Code is the finding the fault is reported as: CodeNotDKIMRecord,
	// CodeInvalidVersion, CodeVersionNotFirst or CodeDuplicateTag.
	Code Code
	// Reason says what is wrong. It may quote the record, so it is for
	// programmers only and never part of a Result.
	Reason string
}

// Error implements error.
func (e *SyntaxError) Error() string {
	if e.Tag == "" {
		return "dkim: " + e.Reason
	}
	return fmt.Sprintf("dkim: tag %q: %s", e.Tag, e.Reason)
}

// Unwrap returns ErrSyntax.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }
