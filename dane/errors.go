package dane

import "errors"

// ErrSyntax is wrapped by every error Parse returns.
var ErrSyntax = errors.New("dane: malformed TLSA record")
