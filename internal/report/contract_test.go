package report

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/dmarc"
	"github.com/mailauth/mailauth/mtasts"
	"github.com/mailauth/mailauth/ptr"
	"github.com/mailauth/mailauth/spf"
)

// goTypes maps each response schema of the OpenAPI document to the Go
// type that is encoded for it. The request schemas (ScanRequest,
// PtrCheckRequest) are decoded by httpapi and tested there. CheckSummary
// is the union of the per-check item schemas (MxCheck, SpfCheck, …),
// each of them also a CheckSummary in Go (checkBranches; see
// TestCheckItemsDiscriminated).
var goTypes = map[string]reflect.Type{
	"ScanSummary":       reflect.TypeFor[ScanSummary](),
	"PtrCheckSummary":   reflect.TypeFor[PTRCheckSummary](),
	"CheckSummary":      reflect.TypeFor[CheckSummary](),
	"LocalizedText":     reflect.TypeFor[LocalizedText](),
	"StatusCounts":      reflect.TypeFor[StatusCounts](),
	"SpfDiagnostics":    reflect.TypeFor[SPFDiagnostics](),
	"DkimDiagnostics":   reflect.TypeFor[DKIMDiagnostics](),
	"DmarcDiagnostics":  reflect.TypeFor[DMARCDiagnostics](),
	"MtaStsDiagnostics": reflect.TypeFor[MTASTSDiagnostics](),
	"TlsRptDiagnostics": reflect.TypeFor[TLSRPTDiagnostics](),
	"PtrDiagnostics":    reflect.TypeFor[PTRDiagnostics](),
	"Health":            reflect.TypeFor[Health](),
	"Error":             reflect.TypeFor[Error](),
}

// requestSchemas are the schemas with no Go type here.
var requestSchemas = []string{"ScanRequest", "PtrCheckRequest"}

// schemas returns the document's component schemas.
func schemas(t *testing.T) map[string]map[string]any {
	t.Helper()
	var doc struct {
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(OpenAPI, &doc))
	require.NotEmpty(t, doc.Components.Schemas)
	return doc.Components.Schemas
}

// TestEverySchemaHasAGoType: no response schema lacks its Go type, and no
// Go type names a schema the document does not have.
func TestEverySchemaHasAGoType(t *testing.T) {
	s := schemas(t)
	branches := checkBranches(t)
	for name := range s {
		_, typed := goTypes[name]
		_, branch := branches[name]
		assert.True(t, typed || branch || slices.Contains(requestSchemas, name), "schema %s has no Go type", name)
	}
	for name := range goTypes {
		assert.Contains(t, s, name, "Go type for %s has no schema", name)
	}
}

// field is one JSON property of a Go struct.
type field struct {
	typ       reflect.Type
	omitempty bool
}

// jsonFields lists the JSON properties of struct type t.
func jsonFields(t reflect.Type) map[string]field {
	out := map[string]field{}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out[name] = field{typ: f.Type, omitempty: opts == "omitempty"}
	}
	return out
}

// TestGoTypesMatchSchemas: for every response schema, the Go type has
// exactly its properties, omits none that is required (no omitempty on a
// required property), is a pointer exactly where the schema allows null,
// and has the JSON type the schema gives. A check's item schema has
// CheckSummary's fields, without diagnostics where the check has none.
func TestGoTypesMatchSchemas(t *testing.T) {
	branches := checkBranches(t)
	for name, sch := range schemas(t) {
		gt, ok := goTypes[name]
		id, branch := branches[name]
		if name == "CheckSummary" || (!ok && !branch) {
			continue // the union: TestCheckItemsDiscriminated
		}
		t.Run(name, func(t *testing.T) {
			props, _ := sch["properties"].(map[string]any)
			if branch {
				gt = reflect.TypeFor[CheckSummary]()
			}
			fields := jsonFields(gt)
			if branch && NewDiagnostics(id) == nil {
				delete(fields, "diagnostics")
			}
			required := stringSet(sch["required"])
			assert.ElementsMatch(t, keys(props), keys(fields), "properties")
			for prop, raw := range props {
				f, ok := fields[prop]
				if !ok {
					continue
				}
				p, _ := raw.(map[string]any)
				assert.Equal(t, required[prop], !f.omitempty, "%s: required in the schema = not omitempty in Go", prop)
				types := schemaTypes(p)
				if len(types) == 0 {
					continue // a $ref or oneOf: the referenced schema is checked on its own
				}
				nullable := slices.Contains(types, "null")
				assert.Equal(t, nullable, f.typ.Kind() == reflect.Pointer, "%s: nullable in the schema = pointer in Go", prop)
				assert.Contains(t, types, jsonType(f.typ), "%s: JSON type", prop)
			}
		})
	}
}

// schemaTypes returns the schema's "type" as a list.
func schemaTypes(p map[string]any) []string {
	switch v := p["type"].(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// jsonType is the JSON type encoding/json writes for t.
func jsonType(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[time.Time]() {
		return "string"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "integer"
	case reflect.Slice:
		return "array"
	case reflect.Struct:
		return "object"
	}
	return t.Kind().String()
}

// TestEnumsMatchConstants: every property whose Go type is one of this
// package's named string types allows exactly that type's constants
// (and null where the field is a pointer). A property that is a const
// (the id of a check's item schema) holds one of them, and the consts of
// one type together are all of them.
func TestEnumsMatchConstants(t *testing.T) {
	consts := constantsByType(t)
	seen := map[string]bool{}
	constValues := map[string][]string{}
	branches := checkBranches(t)
	for name, sch := range schemas(t) {
		gt, ok := goTypes[name]
		if _, branch := branches[name]; branch {
			gt, ok = reflect.TypeFor[CheckSummary](), true
		}
		if !ok || name == "CheckSummary" {
			continue // the union has no properties of its own
		}
		props, _ := sch["properties"].(map[string]any)
		for prop, f := range jsonFields(gt) {
			et := f.typ
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			values, named := consts[et.Name()]
			if et.PkgPath() != reflect.TypeFor[Status]().PkgPath() || !named {
				continue
			}
			seen[et.Name()] = true
			p, _ := props[prop].(map[string]any)
			if c, isConst := p["const"].(string); isConst {
				constValues[et.Name()] = append(constValues[et.Name()], c)
				continue
			}
			var enum []string
			for _, v := range asList(p["enum"]) {
				if s, ok := v.(string); ok {
					enum = append(enum, s)
				}
			}
			assert.ElementsMatch(t, values, enum, "%s.%s: enum against the constants of %s", name, prop, et.Name())
		}
	}
	for typ, got := range constValues {
		assert.ElementsMatch(t, consts[typ], got, "the consts of %s against its constants", typ)
	}
	for typ := range consts {
		if typ != "Determination" {
			assert.True(t, seen[typ], "the constants of %s are on no property", typ)
		}
	}
}

// constantsByType parses this package's sources and returns the string
// values of the typed constants, by type name.
func constantsByType(t *testing.T) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "report.go", nil, 0)
	require.NoError(t, err)
	out := map[string][]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			id, ok := vs.Type.(*ast.Ident)
			if !ok || len(vs.Values) != 1 {
				continue
			}
			lit, ok := vs.Values[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			v, err := strconv.Unquote(lit.Value)
			require.NoError(t, err)
			out[id.Name] = append(out[id.Name], v)
		}
	}
	require.NotEmpty(t, out["CheckID"])
	return out
}

// TestBoundsMatchConstants: every integer bound and array length the
// document states equals the constant the code enforces it with. A
// bound without a row here fails, so a new bound is tied to its source.
func TestBoundsMatchConstants(t *testing.T) {
	checks := len(constantsByType(t)["CheckID"])
	want := map[string][2]int{ // "Schema.property" → minimum, maximum (-1 = none)
		"ScanSummary.durationMs":                    {0, -1},
		"ScanSummary.score":                         {0, 100},
		"ScanSummary.checks":                        {checks, checks}, // minItems, maxItems
		"StatusCounts.pass":                         {0, checks},
		"StatusCounts.warn":                         {0, checks},
		"StatusCounts.fail":                         {0, checks},
		"StatusCounts.info":                         {0, checks},
		"PtrCheckSummary.durationMs":                {0, -1},
		"SpfDiagnostics.spfRecordCount":             {0, -1},
		"SpfDiagnostics.dnsLookupCount":             {0, -1},
		"DkimDiagnostics.recordCount":               {0, -1},
		"DmarcDiagnostics.directRecordCount":        {0, -1},
		"DmarcDiagnostics.treeWalkQueries":          {1, dmarc.MaxTreeWalk},
		"MtaStsDiagnostics.announcementRecordCount": {0, -1},
		"MtaStsDiagnostics.maxAge":                  {0, mtasts.MaxMaxAge},
		"MtaStsDiagnostics.mxPatternCount":          {0, -1},
		"TlsRptDiagnostics.recordCount":             {0, -1},
		"TlsRptDiagnostics.destinationCount":        {0, -1},
		"TlsRptDiagnostics.mailtoDestinationCount":  {0, -1},
		"TlsRptDiagnostics.httpsDestinationCount":   {0, -1},
		"PtrDiagnostics.ptrRecordCount":             {0, -1},
		"PtrDiagnostics.forwardQueryCount":          {0, ptr.MaxForward},
		"PtrDiagnostics.forwardQueriesCompleted":    {0, ptr.MaxForward},
		"PtrDiagnostics.forwardAddressCount":        {0, -1},
	}
	got := map[string][2]int{}
	for name, sch := range schemas(t) {
		if _, ok := goTypes[name]; !ok {
			continue
		}
		props, _ := sch["properties"].(map[string]any)
		for prop, raw := range props {
			p, _ := raw.(map[string]any)
			lo, hasLo := number(p, "minimum", "minItems")
			hi, hasHi := number(p, "maximum", "maxItems")
			if hasLo || hasHi {
				if !hasHi {
					hi = -1
				}
				got[name+"."+prop] = [2]int{lo, hi}
			}
		}
	}
	assert.Equal(t, want, got)

	// Constants the document states as const.
	spfLimit := schemas(t)["SpfDiagnostics"]["properties"].(map[string]any)["dnsLookupLimit"].(map[string]any)["const"]
	assert.EqualValues(t, spf.MaxLookups, spfLimit, "SpfDiagnostics.dnsLookupLimit")
}

// number returns the first of the keys present in p as an int.
func number(p map[string]any, keys ...string) (int, bool) {
	for _, k := range keys {
		if v, ok := p[k].(float64); ok {
			return int(v), true
		}
	}
	return 0, false
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func stringSet(v any) map[string]bool {
	out := map[string]bool{}
	for _, x := range asList(v) {
		if s, ok := x.(string); ok {
			out[s] = true
		}
	}
	return out
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
