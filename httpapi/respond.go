package httpapi

import (
	"net/http"
	"strconv"

	"github.com/mailauth/mailauth/internal/report"
)

// Encode marshals v exactly as the service writes it: encoding/json with
// HTML escaping off, followed by a newline. The command-line client uses it
// so that `-json` prints the API's bytes.
func Encode(v any) ([]byte, error) { return report.Encode(v) }

// errorBody is the API's Error object.
type errorBody = report.Error

// writeJSON writes v as the response body with status. A value that cannot
// be marshalled becomes the generic 500.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	b, err := Encode(v)
	if err != nil {
		noteError(r, errInternal.class)
		status = errInternal.status
		b, _ = Encode(errorBody{Error: errInternal.msg})
	}
	writeBytes(w, status, b)
}

// writeBytes writes a JSON body with its length.
func writeBytes(w http.ResponseWriter, status int, b []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeError answers with the catalogue entry e: the fixed entries from
// their bodies encoded once (catalogueBodies), so that the refusals an
// attacker draws by the thousand (429, 500 busy) cost no JSON encoding.
func writeError(w http.ResponseWriter, r *http.Request, e apiError) {
	noteError(r, e.class)
	if b, ok := catalogueBodies[e.msg]; ok {
		writeBytes(w, e.status, b)
		return
	}
	writeJSON(w, r, e.status, errorBody{Error: e.msg})
}

// catalogueBodies are the encoded bodies of the error catalogue's fixed
// entries (errors.go), by message; the field errors, built per request
// from fixed texts, are encoded when written.
var catalogueBodies = func() map[string][]byte {
	m := map[string][]byte{}
	for _, e := range []apiError{errNotFound, errMethod, errRateLimited, errMediaType, errTooLarge, errBodyRead,
		errBodyEncoding, errBodySyntax, errBodyNotObject, errBodyTrailing, errUnknownField, errDuplicateField,
		errQuerySyntax, errUTMRepeated, errLimiterDown, errSourceBudget, errNetworkLimited, errBusy,
		errResolverDown, errScanIncomplete, errScanSlow, errInternal, errCanceledRequest} {
		if b, err := Encode(errorBody{Error: e.msg}); err == nil {
			m[e.msg] = b
		}
	}
	return m
}()
