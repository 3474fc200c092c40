package httpapi

import (
	"errors"
	"net/http"

	"github.com/mailauth/mailauth"
)

// apiError is one entry of the error catalogue: a status, a fixed English
// message for the body, and a class for the access log. No message ever
// contains any part of a request.
type apiError struct {
	status int
	msg    string
	class  string
}

// The error catalogue. Field errors are built by fieldError and
// inputError from fixed field names and rule texts.
var (
	errNotFound        = apiError{http.StatusNotFound, "not found", "not_found"}
	errMethod          = apiError{http.StatusMethodNotAllowed, "method not allowed", "method"}
	errRateLimited     = apiError{http.StatusTooManyRequests, "rate limit exceeded for this source address; retry after the number of seconds in Retry-After", "rate_limited"}
	errMediaType       = apiError{http.StatusUnsupportedMediaType, "Content-Type must be application/json", "media_type"}
	errTooLarge        = apiError{http.StatusRequestEntityTooLarge, "request body exceeds 8 KiB (8192 bytes)", "too_large"}
	errBodyRead        = apiError{http.StatusBadRequest, "request body could not be read", "body_read"}
	errBodyEncoding    = apiError{http.StatusBadRequest, "request body: must be UTF-8 encoded JSON", "body_encoding"}
	errBodySyntax      = apiError{http.StatusBadRequest, "request body: not valid JSON", "body_syntax"}
	errBodyNotObject   = apiError{http.StatusBadRequest, "request body: must be a JSON object", "body_not_object"}
	errBodyTrailing    = apiError{http.StatusBadRequest, "request body: unexpected data after the JSON object", "body_trailing"}
	errUnknownField    = apiError{http.StatusBadRequest, "request body: unknown field (allowed: see /openapi.json)", "unknown_field"}
	errDuplicateField  = apiError{http.StatusBadRequest, "request body: a field appears more than once", "duplicate_field"}
	errQuerySyntax     = apiError{http.StatusBadRequest, "query string: malformed", "query_syntax"}
	errUTMRepeated     = apiError{http.StatusBadRequest, "utm_source: must appear at most once", "utm_repeated"}
	errLimiterDown     = apiError{http.StatusInternalServerError, "rate limiter temporarily unavailable", "limiter_unavailable"}
	errSourceBudget    = apiError{http.StatusTooManyRequests, "diagnostic time allowance of this source address or network used up for now; retry after the number of seconds in Retry-After", "source_budget"}
	errNetworkLimited  = apiError{http.StatusTooManyRequests, "rate limit exceeded for this source network; retry after the number of seconds in Retry-After", "network_rate_limited"}
	errBusy            = apiError{http.StatusInternalServerError, "server busy: too many diagnostics in progress, retry shortly", "busy"}
	errResolverDown    = apiError{http.StatusInternalServerError, "DNS resolution temporarily unavailable", "resolver_unavailable"}
	errScanIncomplete  = apiError{http.StatusInternalServerError, "scan incomplete: DNS answers were unusable for most checks, so no grade can be given; retry later", "scan_incomplete"}
	errScanSlow        = apiError{http.StatusInternalServerError, "scan incomplete: the scan ran out of time waiting for the domain's servers, so no grade can be given; scan again", "scan_slow"}
	errInternal        = apiError{http.StatusInternalServerError, "internal error", "internal"}
	errCanceledRequest = apiError{http.StatusInternalServerError, "request canceled before the diagnostic finished", "canceled"}
)

// apiFields are the field names an error message may name.
var apiFields = map[mailauth.InputField]bool{
	mailauth.FieldDomain: true, mailauth.FieldDKIMSelector: true, mailauth.FieldSendingIP: true, mailauth.FieldUTMSource: true,
}

// The rule texts of the 400s the HTTP layer itself gives about a field;
// the root package's InputError gives the others (InputRuleMessages).
const (
	ruleRequired  = "required"
	ruleNotString = "must be a string"
)

// fieldError is a 400 for a fixed field name and a fixed rule text.
func fieldError(field, rule string) apiError {
	return apiError{http.StatusBadRequest, field + ": " + rule, "invalid_" + field}
}

// inputError maps an error of the root package's validators (or of the
// Service) to a 400. *mailauth.InputError messages name the field and the
// rule and never the input (documented by the root package); any other
// error, or an InputError for an unknown field, gets a generic text.
func inputError(err error) apiError {
	var ie *mailauth.InputError
	if !errors.As(err, &ie) || !apiFields[ie.Field] {
		return apiError{http.StatusBadRequest, "request: invalid input", "invalid_input"}
	}
	return apiError{http.StatusBadRequest, ie.Error(), "invalid_" + string(ie.Field)}
}

// serviceError maps an error of the Service to the catalogue. The text of
// an unknown error is never sent or logged.
func serviceError(err error) apiError {
	var ie *mailauth.InputError
	switch {
	case errors.As(err, &ie):
		return inputError(ie)
	case errors.Is(err, mailauth.ErrResolverUnavailable):
		return errResolverDown
	case errors.Is(err, errIncompleteSlow):
		return errScanSlow
	case errors.Is(err, errIncomplete):
		return errScanIncomplete
	}
	return errInternal
}
