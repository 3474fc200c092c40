package httpapi

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// specURL is the location under which the OpenAPI document is registered
// with the schema compiler.
const specURL = "https://mailauth.test/openapi.json"

// Spec is the embedded OpenAPI document, parsed, with a cache of
// compiled schemas (JSON Schema draft 2020-12, formats asserted).
type Spec struct {
	Doc map[string]any

	mu       sync.Mutex
	compiler *jsonschema.Compiler
	schemas  map[string]*jsonschema.Schema
}

var (
	specOnce   sync.Once
	sharedSpec *Spec
	specErr    error
)

// LoadSpec returns the parsed document (shared by all tests).
func LoadSpec(t testing.TB) *Spec {
	t.Helper()
	specOnce.Do(func() { sharedSpec, specErr = newSpec() })
	require.NoError(t, specErr, "openapi.json")
	return sharedSpec
}

func newSpec() (*Spec, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(openAPIDocument))
	if err != nil {
		return nil, err
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("document is not an object")
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(specURL, doc); err != nil {
		return nil, err
	}
	return &Spec{Doc: m, compiler: c, schemas: map[string]*jsonschema.Schema{}}, nil
}

// Schema compiles the schema at the JSON pointer ptr ("/components/...").
func (s *Spec) Schema(ptr string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.schemas[ptr]; ok {
		return sch, nil
	}
	sch, err := s.compiler.Compile(specURL + "#" + ptr)
	if err != nil {
		return nil, err
	}
	s.schemas[ptr] = sch
	return sch, nil
}

// Validate validates the JSON text b against the schema at ptr.
func (s *Spec) Validate(ptr string, b []byte) error {
	sch, err := s.Schema(ptr)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// escape encodes one JSON pointer token (RFC 6901).
func escape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// Lookup returns the value at ptr.
func (s *Spec) Lookup(ptr string) (any, bool) {
	var v any = s.Doc
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return v, true
}

// Deref follows an OpenAPI $ref (internal pointers only) from the object
// at ptr and returns the pointer of the object it names.
func (s *Spec) Deref(ptr string) (string, map[string]any, bool) {
	for range 8 {
		v, ok := s.Lookup(ptr)
		m, isMap := v.(map[string]any)
		if !ok || !isMap {
			return "", nil, false
		}
		ref, has := m["$ref"].(string)
		if !has {
			return ptr, m, true
		}
		ptr = strings.TrimPrefix(ref, "#")
	}
	return "", nil, false
}

// ValidateResponse checks a live response against the document: for an
// operation of the document, the status must be declared, the body must
// validate against the declared schema, and every declared header must be
// present when required and valid when present. A response of no
// operation (404, 405) must be a valid Error.
func (s *Spec) ValidateResponse(t testing.TB, method, path string, r Response) {
	t.Helper()
	if method == http.MethodHead {
		assert.Empty(t, r.Body, "HEAD %s: body of %d bytes", path, len(r.Body))
		return
	}
	opPtr := "/paths/" + escape(path) + "/" + strings.ToLower(method)
	if _, ok := s.Lookup(opPtr); !ok {
		assert.NoError(t, s.Validate("/components/schemas/Error", r.Body), "%s %s (no operation): status %d body %s", method, path, r.StatusCode, r.Body)
		return
	}
	respPtr, resp, ok := s.Deref(opPtr + "/responses/" + strconv.Itoa(r.StatusCode))
	if !assert.True(t, ok, "%s %s: status %d is not declared in openapi.json (body %s)", method, path, r.StatusCode, r.Body) {
		return
	}
	assert.NoError(t, s.Validate(respPtr+"/content/application~1json/schema", r.Body), "%s %s: status %d body does not match the schema\nbody: %s", method, path, r.StatusCode, r.Body)
	headers, _ := resp["headers"].(map[string]any)
	for name := range headers {
		s.validateHeader(t, respPtr+"/headers/"+escape(name), name, r)
	}
}

// validateHeader checks one declared response header.
func (s *Spec) validateHeader(t testing.TB, ptr, name string, r Response) {
	t.Helper()
	hPtr, h, ok := s.Deref(ptr)
	if !assert.True(t, ok, "header %s: unresolvable", name) {
		return
	}
	vals := r.Header.Values(name)
	if len(vals) == 0 {
		req, _ := h["required"].(bool)
		assert.False(t, req, "%s %s: status %d lacks required header %s", r.Request.Method, r.Request.URL.Path, r.StatusCode, name)
		return
	}
	typ, _ := s.Lookup(hPtr + "/schema/type")
	text := vals[0]
	if typ == "string" {
		text = strconv.Quote(text)
	}
	assert.NoError(t, s.Validate(hPtr+"/schema", []byte(text)), "%s %s: header %s = %q", r.Request.Method, r.Request.URL.Path, name, vals[0])
}
