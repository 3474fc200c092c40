package mailauth

import "errors"

// ScanRequest asks for a scan of one domain. It mirrors the API's
// ScanRequest; empty optional fields mean "not supplied".
type ScanRequest struct {
	// Domain is a bare domain, an http(s) URL or a mailbox address.
	Domain string
	// DKIMSelector, when not empty, is the selector whose key is checked.
	// The scanner never guesses selectors.
	DKIMSelector string
	// SendingIP, when not empty, is the public outbound address whose PTR
	// and forward confirmation are checked.
	SendingIP string
}

// ErrResolverUnavailable means the service's own resolver failed the
// scan: no DNS server answered at all, or the resolver answered the
// scan's questions inconclusively and failed the control question any
// working resolver answers (Config.ControlName), or said the fault was
// its own (refused us, filtered). The result would say nothing about the
// domain, so none is given. The HTTP service answers 500.
var ErrResolverUnavailable = errors.New("mailauth: DNS resolver unavailable")
