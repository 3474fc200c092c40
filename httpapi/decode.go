package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"slices"
	"unicode/utf8"

	"github.com/mailauth/mailauth"
)

// Body fields of the two request objects (ScanRequest, PtrCheckRequest).
var (
	scanFields = []string{"domain", "dkimSelector", "sendingIp"}
	ptrFields  = []string{"sendingIp"}
)

// decodeObject decodes raw as one JSON object whose members are all in
// known and all strings. It rejects, in this order of discovery: invalid
// UTF-8, a body that is no object, syntax errors, unknown or duplicate
// member names (matched exactly, not case-insensitively as encoding/json
// would), values that are not strings (null included), and anything after
// the closing brace. The result distinguishes absent members (no key) from
// empty strings.
func decodeObject(raw []byte, known []string) (map[string]string, *apiError) {
	if !utf8.Valid(raw) {
		return nil, &errBodyEncoding
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxOrNotObject(err)
	}
	if tok != json.Delim('{') {
		return nil, &errBodyNotObject
	}
	out := make(map[string]string, len(known))
	for dec.More() {
		if e := decodeMember(dec, known, out); e != nil {
			return nil, e
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, &errBodySyntax
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &errBodyTrailing
	}
	return out, nil
}

// syntaxOrNotObject classifies a failure to read the first token: an empty
// body is no object, anything else is a syntax error.
func syntaxOrNotObject(err error) *apiError {
	if errors.Is(err, io.EOF) {
		return &errBodyNotObject
	}
	return &errBodySyntax
}

// decodeMember reads one name/value pair into out.
func decodeMember(dec *json.Decoder, known []string, out map[string]string) *apiError {
	tok, err := dec.Token()
	if err != nil {
		return &errBodySyntax
	}
	name, ok := tok.(string)
	if !ok {
		return &errBodySyntax
	}
	if !slices.Contains(known, name) {
		return &errUnknownField
	}
	if _, dup := out[name]; dup {
		return &errDuplicateField
	}
	tok, err = dec.Token()
	if err != nil {
		return &errBodySyntax
	}
	s, ok := tok.(string)
	if !ok {
		e := fieldError(name, ruleNotString)
		return &e
	}
	out[name] = s
	return nil
}

// checkQuery validates the query string: it must parse, and utm_source,
// when present, must occur once and match its pattern. Other parameters
// are ignored.
func checkQuery(rawQuery string) *apiError {
	if rawQuery == "" {
		return nil
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return &errQuerySyntax
	}
	vs, ok := q["utm_source"]
	switch {
	case !ok:
		return nil
	case len(vs) != 1:
		return &errUTMRepeated
	}
	if err := mailauth.ValidateUTMSource(vs[0]); err != nil {
		e := inputError(err)
		return &e
	}
	return nil
}
