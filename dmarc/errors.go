package dmarc

import (
	"errors"
	"fmt"
)

// ErrSyntax is wrapped by every error Parse returns: the text is not a
// DMARC policy record because it does not begin with the version tag.
var ErrSyntax = errors.New("dmarc: syntax error")

// SyntaxError says why a text is not a DMARC policy record. Its message
// may quote the input; it is for programmers and never for output.
type SyntaxError struct {
	Tag    string // the tag at fault ("v")
	Reason string // what is wrong with it
}

// Error implements error.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("dmarc: tag %q: %s", e.Tag, e.Reason)
}

// Unwrap makes errors.Is(err, ErrSyntax) true.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }
