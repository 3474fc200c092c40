package httpapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
)

// Allowed fields of the OpenAPI 3.1 objects this document uses (OAS
// 3.1.2 §4.8). Extensions (x-...) are allowed everywhere.
var oasFields = map[string][]string{
	"openapi":     {"openapi", "info", "jsonSchemaDialect", "servers", "paths", "webhooks", "components", "security", "tags", "externalDocs"},
	"info":        {"title", "summary", "description", "termsOfService", "contact", "license", "version"},
	"server":      {"url", "description", "variables"},
	"tag":         {"name", "description", "externalDocs"},
	"pathItem":    {"$ref", "summary", "description", "get", "put", "post", "delete", "options", "head", "patch", "trace", "servers", "parameters"},
	"operation":   {"tags", "summary", "description", "externalDocs", "operationId", "parameters", "requestBody", "responses", "callbacks", "deprecated", "security", "servers"},
	"parameter":   {"name", "in", "description", "required", "deprecated", "allowEmptyValue", "style", "explode", "allowReserved", "schema", "example", "examples", "content"},
	"requestBody": {"description", "content", "required"},
	"mediaType":   {"schema", "example", "examples", "encoding"},
	"response":    {"description", "headers", "content", "links"},
	"header":      {"description", "required", "deprecated", "style", "explode", "schema", "example", "examples", "content"},
	"components":  {"schemas", "responses", "parameters", "examples", "requestBodies", "headers", "securitySchemes", "links", "callbacks", "pathItems"},
	"reference":   {"$ref", "summary", "description"},
}

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// oasChecker walks the document and collects every structural error.
type oasChecker struct {
	spec *Spec
	errs []string
	ops  map[string]string // operationId -> "METHOD path"
}

func (c *oasChecker) errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

// fields checks that obj is an object with only the allowed fields of
// kind and the required ones.
func (c *oasChecker) fields(where, kind string, v any, required ...string) map[string]any {
	obj, ok := v.(map[string]any)
	if !ok {
		c.errorf("%s: %s must be an object", where, kind)
		return nil
	}
	if _, isRef := obj["$ref"]; isRef && kind != "pathItem" {
		kind = "reference"
		required = []string{"$ref"}
	}
	for k := range obj {
		if !slices.Contains(oasFields[kind], k) && !strings.HasPrefix(k, "x-") {
			c.errorf("%s: field %q is not allowed in a %s object", where, k, kind)
		}
	}
	for _, k := range required {
		if _, ok := obj[k]; !ok {
			c.errorf("%s: %s object lacks required field %q", where, kind, k)
		}
	}
	return obj
}

// resolved follows a Reference object to its target.
func (c *oasChecker) resolved(where string, obj map[string]any) map[string]any {
	ref, ok := obj["$ref"].(string)
	if !ok {
		return obj
	}
	_, target, ok := c.spec.Deref(strings.TrimPrefix(ref, "#"))
	if !strings.HasPrefix(ref, "#/") || !ok {
		c.errorf("%s: $ref %q does not resolve", where, ref)
		return nil
	}
	return target
}

func (c *oasChecker) root() {
	root := c.fields("#", "openapi", c.spec.Doc, "openapi", "info")
	if root["openapi"] != "3.1.2" {
		c.errorf("openapi = %v, want 3.1.2", root["openapi"])
	}
	if root["jsonSchemaDialect"] != "https://json-schema.org/draft/2020-12/schema" {
		c.errorf("jsonSchemaDialect = %v", root["jsonSchemaDialect"])
	}
	info := c.fields("#/info", "info", root["info"], "title", "version")
	if info["version"] != "1.2.0" {
		c.errorf("info.version = %v, want 1.2.0", info["version"])
	}
	for i, s := range asList(root["servers"]) {
		c.fields(fmt.Sprintf("#/servers/%d", i), "server", s, "url")
	}
	for i, tg := range asList(root["tags"]) {
		c.fields(fmt.Sprintf("#/tags/%d", i), "tag", tg, "name")
	}
	paths, ok := root["paths"].(map[string]any)
	if !ok {
		c.errorf("#/paths must be an object")
	}
	for p, item := range paths {
		c.pathItem(p, item)
	}
	c.components(root["components"])
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func (c *oasChecker) pathItem(path string, v any) {
	where := "#/paths/" + path
	if !strings.HasPrefix(path, "/") {
		c.errorf("%s: path must start with /", where)
	}
	item := c.fields(where, "pathItem", v)
	for _, m := range httpMethods {
		if op, ok := item[m]; ok {
			c.operation(where+"/"+m, strings.ToUpper(m)+" "+path, op)
		}
	}
}

var statusKey = regexp.MustCompile(`^([1-5](\d\d|XX)|default)$`)

func (c *oasChecker) operation(where, name string, v any) {
	op := c.fields(where, "operation", v, "responses")
	id, _ := op["operationId"].(string)
	if id == "" {
		c.errorf("%s: operationId missing", where)
	} else if prev, dup := c.ops[id]; dup {
		c.errorf("%s: operationId %q also used by %s", where, id, prev)
	}
	c.ops[id] = name
	declared := map[string]bool{}
	for _, tg := range asList(c.spec.Doc["tags"]) {
		declared[tg.(map[string]any)["name"].(string)] = true
	}
	for _, tg := range asList(op["tags"]) {
		if s, _ := tg.(string); !declared[s] {
			c.errorf("%s: tag %v not declared", where, tg)
		}
	}
	for i, p := range asList(op["parameters"]) {
		c.parameter(fmt.Sprintf("%s/parameters/%d", where, i), p)
	}
	if rb, ok := op["requestBody"]; ok {
		body := c.resolved(where, c.fields(where+"/requestBody", "requestBody", rb, "content"))
		c.content(where+"/requestBody", body["content"])
	}
	responses, _ := op["responses"].(map[string]any)
	if len(responses) == 0 {
		c.errorf("%s: no responses", where)
	}
	for code, r := range responses {
		if !statusKey.MatchString(code) {
			c.errorf("%s: response key %q", where, code)
		}
		c.response(where+"/responses/"+code, r)
	}
}

func (c *oasChecker) parameter(where string, v any) {
	p := c.resolved(where, c.fields(where, "parameter", v))
	if p == nil {
		return
	}
	c.fields(where, "parameter", p, "name", "in", "schema")
	if in := p["in"]; !slices.Contains([]any{"query", "header", "path", "cookie"}, in) {
		c.errorf("%s: in = %v", where, in)
	}
	if p["in"] == "path" && p["required"] != true {
		c.errorf("%s: path parameters must be required", where)
	}
}

func (c *oasChecker) response(where string, v any) {
	r := c.resolved(where, c.fields(where, "response", v))
	if r == nil {
		return
	}
	c.fields(where, "response", r, "description")
	headers, _ := r["headers"].(map[string]any)
	for name, h := range headers {
		hw := where + "/headers/" + name
		if strings.EqualFold(name, "Content-Type") {
			c.errorf("%s: Content-Type must not be described as a header", hw)
		}
		if hr := c.resolved(hw, c.fields(hw, "header", h)); hr != nil {
			c.fields(hw, "header", hr, "schema")
		}
	}
	if ct, ok := r["content"]; ok {
		c.content(where, ct)
	}
}

func (c *oasChecker) content(where string, v any) {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		c.errorf("%s: content must be a non-empty map", where)
		return
	}
	for mt, media := range m {
		if mt != "application/json" {
			c.errorf("%s: media type %q (the service speaks application/json only)", where, mt)
		}
		c.fields(where+"/content/"+mt, "mediaType", media, "schema")
	}
}

func (c *oasChecker) components(v any) {
	comp := c.fields("#/components", "components", v)
	name := regexp.MustCompile(`^[a-zA-Z0-9.\-_]+$`)
	for kind, group := range comp {
		for n, obj := range group.(map[string]any) {
			where := "#/components/" + kind + "/" + n
			if !name.MatchString(n) {
				c.errorf("%s: component name not allowed", where)
			}
			switch kind {
			case "responses":
				c.response(where, obj)
			case "parameters":
				c.parameter(where, obj)
			case "headers":
				c.fields(where, "header", obj, "schema")
			}
		}
	}
}

// TestOpenAPIStructure checks the document against the structure of
// OpenAPI 3.1.2 (fields allowed and required per object, operation ids
// unique, response keys, declared tags, parameter locations).
func TestOpenAPIStructure(t *testing.T) {
	c := &oasChecker{spec: LoadSpec(t), ops: map[string]string{}}
	c.root()
	sort.Strings(c.errs)
	assert.Empty(t, c.errs, "structural errors of openapi.json")
	wantOps := map[string]string{
		"scanMailDomain":           "POST /api/scan",
		"checkSendingIpReverseDns": "POST /api/ptr-check",
		"getServiceHealth":         "GET /api/health",
		"getOpenApiDocument":       "GET /openapi.json",
	}
	assert.Equal(t, wantOps, c.ops, "operations")
}

// TestOpenAPIStructureCatchesErrors proves the checker can fail.
func TestOpenAPIStructureCatchesErrors(t *testing.T) {
	var doc map[string]any
	require.NoError(t, json.Unmarshal(openAPIDocument, &doc))
	doc["openapi"] = "3.0.3"
	doc["paths"].(map[string]any)["/api/health"].(map[string]any)["get"].(map[string]any)["operationId"] = "scanMailDomain"
	doc["paths"].(map[string]any)["/api/scan"].(map[string]any)["post"].(map[string]any)["responses"].(map[string]any)["400"] =
		map[string]any{"$ref": "#/components/responses/Nope"}
	doc["components"].(map[string]any)["headers"].(map[string]any)["Link"].(map[string]any)["name"] = "Link"
	c := &oasChecker{spec: &Spec{Doc: doc}, ops: map[string]string{}}
	c.root()
	for _, want := range []string{"openapi = 3.0.3", `operationId "scanMailDomain" also used`, "does not resolve", `field "name" is not allowed in a header`} {
		assert.True(t, slices.ContainsFunc(c.errs, func(e string) bool { return strings.Contains(e, want) }), "no error containing %q in %q", want, c.errs)
	}
}

// TestOpenAPIRefsResolve walks every $ref in the document.
func TestOpenAPIRefsResolve(t *testing.T) {
	s := LoadSpec(t)
	n := 0
	var walk func(ptr string, v any)
	walk = func(ptr string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				n++
				_, found := s.Lookup(strings.TrimPrefix(ref, "#"))
				assert.True(t, strings.HasPrefix(ref, "#/"), "%s: $ref %q does not resolve", ptr, ref)
				assert.True(t, found, "%s: $ref %q does not resolve", ptr, ref)
			}
			for k, e := range x {
				walk(ptr+"/"+escape(k), e)
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s/%d", ptr, i), e)
			}
		}
	}
	walk("", s.Doc)
	assert.GreaterOrEqual(t, n, 30, "only %d $refs found; the walk is broken", n)
}

// TestOpenAPISchemasCompile compiles every schema of the document as JSON
// Schema 2020-12: components, parameters, headers, and every media type.
func TestOpenAPISchemasCompile(t *testing.T) {
	s := LoadSpec(t)
	schemas, _ := s.Lookup("/components/schemas")
	names := slices.Sorted(maps.Keys(schemas.(map[string]any)))
	// The 15 objects of the contract (CheckSummary the union of the
	// checks' items) and one item schema per check.
	assert.Len(t, names, 15+len(mailauth.CheckOrder()), "component schemas: %v", names)
	for _, n := range names {
		_, err := s.Schema("/components/schemas/" + n)
		assert.NoError(t, err, "schema %s", n)
	}
	for _, ptr := range []string{
		"/components/parameters/UtmSource/schema",
		"/components/headers/XRateLimitRemaining/schema",
		"/components/headers/RetryAfter/schema",
		"/components/headers/Link/schema",
		"/paths/~1openapi.json/get/responses/200/content/application~1json/schema",
	} {
		_, err := s.Schema(ptr)
		assert.NoError(t, err, "%s", ptr)
	}
}

// TestOpenAPIObjectsClosed checks additionalProperties false on every
// object schema under components. A union (CheckSummary, discriminated
// by id) is no object of its own: each of its branches is a closed
// object schema of the components.
func TestOpenAPIObjectsClosed(t *testing.T) {
	s := LoadSpec(t)
	schemas, _ := s.Lookup("/components/schemas")
	for name, v := range schemas.(map[string]any) {
		sch := v.(map[string]any)
		if oneOf, union := sch["oneOf"]; union {
			assert.NotContains(t, sch, "properties", "%s: a union has no properties of its own", name)
			assert.NotEmpty(t, sch["discriminator"], "%s: a union without a discriminator", name)
			for _, b := range asList(oneOf) {
				ref, _ := b.(map[string]any)["$ref"].(string)
				branch, ok := s.Lookup(strings.TrimPrefix(ref, "#"))
				assert.True(t, ok && strings.HasPrefix(ref, "#/components/schemas/"), "%s: branch %v is not a component schema", name, b)
				if m, _ := branch.(map[string]any); ok {
					assert.Equal(t, "object", m["type"], "%s: branch %s: type", name, ref)
				}
			}
			continue
		}
		assert.Equal(t, "object", sch["type"], "%s: type", name)
		assert.Equal(t, false, sch["additionalProperties"], "%s: additionalProperties is not false", name)
		props, _ := sch["properties"].(map[string]any)
		req := asList(sch["required"])
		if name != "ScanRequest" && name != "PtrCheckRequest" && !strings.HasSuffix(name, "Check") {
			assert.Len(t, req, len(props), "%s: %d required of %d properties; the contract requires all", name, len(req), len(props))
		}
	}
}

// TestOpenAPIRoutesMatch checks that the document's operations and the
// handler's route table are the same, in both directions.
func TestOpenAPIRoutesMatch(t *testing.T) {
	s := LoadSpec(t)
	var inDoc, inCode []string
	paths, _ := s.Lookup("/paths")
	for p, item := range paths.(map[string]any) {
		for m, op := range item.(map[string]any) {
			if slices.Contains(httpMethods, m) {
				inDoc = append(inDoc, strings.ToUpper(m)+" "+p+" "+op.(map[string]any)["operationId"].(string))
			}
		}
	}
	for _, rt := range (&handler{}).routeTable() {
		inCode = append(inCode, rt.method+" "+rt.path+" "+rt.operationID)
	}
	slices.Sort(inDoc)
	slices.Sort(inCode)
	assert.Equal(t, inCode, inDoc, "openapi.json operations (actual) and route table (expected)")
}

// TestOpenAPIBounds ties the request and header bounds of the document
// to the code's constants and the contract's numbers.
func TestOpenAPIBounds(t *testing.T) {
	s := LoadSpec(t)
	want := map[string]any{
		"/components/schemas/ScanRequest/properties/domain/minLength":        int(mailauth.MinDomainLen),
		"/components/schemas/ScanRequest/properties/domain/maxLength":        int(mailauth.MaxDomainLen),
		"/components/schemas/ScanRequest/properties/dkimSelector/minLength":  int(1),
		"/components/schemas/ScanRequest/properties/dkimSelector/maxLength":  int(mailauth.MaxSelectorLen),
		"/components/schemas/ScanRequest/properties/dkimSelector/pattern":    "^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$",
		"/components/schemas/ScanRequest/properties/sendingIp/minLength":     int(mailauth.MinSendingIPLen),
		"/components/schemas/ScanRequest/properties/sendingIp/maxLength":     int(mailauth.MaxSendingIPLenScan),
		"/components/schemas/PtrCheckRequest/properties/sendingIp/minLength": int(mailauth.MinSendingIPLen),
		"/components/schemas/PtrCheckRequest/properties/sendingIp/maxLength": int(mailauth.MaxSendingIPLenPtr),
		"/components/parameters/UtmSource/schema/pattern":                    "^[a-z0-9][a-z0-9._-]{0,63}$",
		// The response schemas' bounds are tied to their constants in
		// internal/report (TestBoundsMatchConstants).
		"/components/headers/RetryAfter/schema/minimum":          int(1),
		"/components/headers/XRateLimitRemaining/schema/minimum": int(0),
	}
	for ptr, w := range want {
		got, ok := s.Lookup(ptr)
		assert.True(t, ok, "%s = %v, want %v", ptr, got, w)
		assert.Equal(t, fmt.Sprint(w), fmt.Sprint(got), "%s", ptr)
	}
	// One item schema per check; internal/report ties each to its check id
	// and diagnostics (TestCheckItemsDiscriminated).
	oneOf, _ := s.Lookup("/components/schemas/CheckSummary/oneOf")
	assert.Len(t, asList(oneOf), len(mailauth.CheckOrder()), "CheckSummary oneOf entries")
}

// TestSchemasAcceptSamplesAndRejectViolations validates the fixtures and
// proves the schemas can fail: each mutation breaks one rule.
func TestSchemasAcceptSamplesAndRejectViolations(t *testing.T) {
	s := LoadSpec(t)
	scan, _ := Encode(SampleScanSummary())
	ptrSum, _ := Encode(SamplePtrCheckSummary())
	for ptr, b := range map[string][]byte{"/components/schemas/ScanSummary": scan, "/components/schemas/PtrCheckSummary": ptrSum} {
		assert.NoError(t, s.Validate(ptr, b), "%s rejects the sample", ptr)
	}
	mutations := []struct {
		name string
		edit func(m map[string]any)
	}{
		{"a check short", func(m map[string]any) { m["checks"] = m["checks"].([]any)[:len(mailauth.CheckOrder())-1] }},
		{"extra field", func(m map[string]any) { m["raw"] = "v=spf1" }},
		{"score 101", func(m map[string]any) { m["score"] = 101 }},
		{"grade E", func(m map[string]any) { m["grade"] = "E" }},
		{"count past the checks", func(m map[string]any) { m["counts"].(map[string]any)["pass"] = len(mailauth.CheckOrder()) + 1 }},
		{"bad date", func(m map[string]any) { m["scannedAt"] = "yesterday" }},
		{"selector missing", func(m map[string]any) { delete(m, "dkimSelector") }},
		{"spf limit 11", func(m map[string]any) { diag(m, 1)["dnsLookupLimit"] = 11 }},
		{"dmarc walk 9", func(m map[string]any) { diag(m, 2)["treeWalkQueries"] = 9 }},
		{"dkim key dsa", func(m map[string]any) { diag(m, 3)["keyType"] = "dsa" }},
		{"maxAge too big", func(m map[string]any) { diag(m, 4)["maxAge"] = 31557601 }},
		{"fetch state", func(m map[string]any) { diag(m, 4)["policyFetchState"] = "ok" }},
		{"ptr ipVersion 5", func(m map[string]any) { diag(m, 6)["ipVersion"] = 5 }},
		{"ptr forward 9", func(m map[string]any) { diag(m, 6)["forwardQueryCount"] = 9 }},
		{"spf diagnostics on dmarc", func(m map[string]any) { m["checks"].([]any)[2].(map[string]any)["diagnostics"] = diag(m, 1) }},
		{"diagnostics hostname", func(m map[string]any) { diag(m, 6)["hostname"] = "mail.example.com" }},
		{"status ok", func(m map[string]any) { m["checks"].([]any)[0].(map[string]any)["status"] = "ok" }},
		{"zh missing", func(m map[string]any) { delete(m["summary"].(map[string]any), "zh") }},
	}
	for _, mu := range mutations {
		var m map[string]any
		_ = json.Unmarshal(scan, &m)
		mu.edit(m)
		b, _ := json.Marshal(m)
		assert.Error(t, s.Validate("/components/schemas/ScanSummary", b), "%s: accepted", mu.name)
	}
}

func diag(m map[string]any, i int) map[string]any {
	return m["checks"].([]any)[i].(map[string]any)["diagnostics"].(map[string]any)
}
