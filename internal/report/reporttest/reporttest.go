// Package reporttest validates JSON against the contract's schemas (the
// components of report.OpenAPI, JSON Schema draft 2020-12 with formats
// asserted), for the tests of the packages that produce the contract's
// objects. It is the one place tests compile the schemas from; there is
// no second copy of the schema document.
package reporttest

import (
	"bytes"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mailauth/mailauth/internal/report"
)

// url is where the document is registered with the compiler.
const url = "https://mailauth.test/openapi.json"

var (
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled = map[string]*jsonschema.Schema{}
)

// Schema returns the compiled component schema name (e.g. "ScanSummary").
func Schema(t testing.TB, name string) *jsonschema.Schema {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if s, ok := compiled[name]; ok {
		return s
	}
	if compiler == nil {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(report.OpenAPI))
		if err != nil {
			t.Fatalf("openapi.json: %v", err)
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.AssertFormat()
		if err := c.AddResource(url, doc); err != nil {
			t.Fatalf("openapi.json: %v", err)
		}
		compiler = c
	}
	s, err := compiler.Compile(url + "#/components/schemas/" + name)
	if err != nil {
		t.Fatalf("schema %s: %v", name, err)
	}
	compiled[name] = s
	return s
}

// Validate fails t when body is not valid against schema name.
func Validate(t testing.TB, name string, body []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, body)
	}
	if err := Schema(t, name).Validate(v); err != nil {
		t.Fatalf("does not match the contract's %s: %v\n%s", name, err, body)
	}
}
