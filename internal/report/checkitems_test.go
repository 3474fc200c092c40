package report

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// schemaRef is the $ref of the component schema name.
func schemaRef(name string) string { return "#/components/schemas/" + name }

// itemSchemaName is the name of check id's item schema: "mta-sts" →
// "MtaStsCheck".
func itemSchemaName(id CheckID) string {
	var b strings.Builder
	for part := range strings.SplitSeq(string(id), "-") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String() + "Check"
}

// checkBranches maps the name of each item schema of CheckSummary's
// discriminator to its check id.
func checkBranches(t *testing.T) map[string]CheckID {
	t.Helper()
	out := map[string]CheckID{}
	disc, _ := schemas(t)["CheckSummary"]["discriminator"].(map[string]any)
	mapping, _ := disc["mapping"].(map[string]any)
	for id, ref := range mapping {
		s, _ := ref.(string)
		out[strings.TrimPrefix(s, schemaRef(""))] = CheckID(id)
	}
	return out
}

// discriminatorErrors lists every way the document's check items fail to
// be discriminated by id for the check ids ids (in their order):
// CheckSummary is a oneOf of one item schema per check, in the checks'
// order, with a discriminator on id mapping each id to its schema; each
// item schema is a closed object whose id is a const and whose
// diagnostics is the schema of the check's Go diagnostics type
// (NewDiagnostics), or absent where the check has none; a scan's checks
// are CheckSummary items and a ptr-check's check is the ptr item.
func discriminatorErrors(s map[string]map[string]any, ids []CheckID) []string {
	var errs []string
	errorf := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	union := s["CheckSummary"]
	for _, k := range []string{"type", "properties", "additionalProperties"} {
		if _, ok := union[k]; ok {
			errorf("CheckSummary has %q: it is only the union of the check items", k)
		}
	}
	disc, _ := union["discriminator"].(map[string]any)
	if disc["propertyName"] != "id" {
		errorf("CheckSummary.discriminator.propertyName = %v, want id", disc["propertyName"])
	}
	mapping, _ := disc["mapping"].(map[string]any)
	var wantOneOf, gotOneOf []string
	for _, id := range ids {
		name := itemSchemaName(id)
		wantOneOf = append(wantOneOf, schemaRef(name))
		if mapping[string(id)] != schemaRef(name) {
			errorf("check %s has no branch: discriminator mapping[%s] = %v, want %s", id, id, mapping[string(id)], schemaRef(name))
		}
		errs = append(errs, branchErrors(s, id, name)...)
	}
	for id := range mapping {
		if !slices.Contains(ids, CheckID(id)) {
			errorf("branch %s has no check: discriminator mapping has %s, report.go has no such CheckID", id, id)
		}
	}
	for _, o := range asList(union["oneOf"]) {
		ref, _ := o.(map[string]any)["$ref"].(string)
		gotOneOf = append(gotOneOf, ref)
	}
	if !slices.Equal(wantOneOf, gotOneOf) {
		errorf("CheckSummary.oneOf = %v, want %v (one item schema per check, in the checks' order)", gotOneOf, wantOneOf)
	}
	items, _ := s["ScanSummary"]["properties"].(map[string]any)["checks"].(map[string]any)["items"].(map[string]any)
	if items["$ref"] != schemaRef("CheckSummary") {
		errorf("ScanSummary.checks.items = %v, want the CheckSummary union", items)
	}
	check, _ := s["PtrCheckSummary"]["properties"].(map[string]any)["check"].(map[string]any)
	if check["$ref"] != schemaRef(itemSchemaName(CheckPTR)) {
		errorf("PtrCheckSummary.check = %v, want the ptr item", check)
	}
	return errs
}

// branchErrors lists what is wrong with check id's item schema name.
func branchErrors(s map[string]map[string]any, id CheckID, name string) []string {
	var errs []string
	b, ok := s[name]
	if !ok {
		return []string{fmt.Sprintf("check %s has no item schema %s", id, name)}
	}
	props, _ := b["properties"].(map[string]any)
	idProp, _ := props["id"].(map[string]any)
	if idProp["const"] != string(id) || b["type"] != "object" || b["additionalProperties"] != false {
		errs = append(errs, fmt.Sprintf("%s: not a closed object whose id is the const %s", name, id))
	}
	diag, has := props["diagnostics"].(map[string]any)
	want := ""
	if d := NewDiagnostics(id); d != nil {
		want = schemaRef(diagnosticsSchema(reflect.TypeOf(d).Elem()))
	}
	switch {
	case want == "" && has:
		errs = append(errs, fmt.Sprintf("%s: diagnostics %v on a check without any", name, diag["$ref"]))
	case want != "" && diag["$ref"] != want:
		errs = append(errs, fmt.Sprintf("%s: diagnostics %v, want %s (NewDiagnostics)", name, diag["$ref"], want))
	}
	return errs
}

// diagnosticsSchema is the schema name goTypes gives the Go type t.
func diagnosticsSchema(t reflect.Type) string {
	for name, gt := range goTypes {
		if gt == t {
			return name
		}
	}
	return "(no schema for " + t.Name() + ")"
}

// checkIDs are report.go's CheckID constants, in their order.
func checkIDs(t *testing.T) []CheckID {
	var ids []CheckID
	for _, v := range constantsByType(t)["CheckID"] {
		ids = append(ids, CheckID(v))
	}
	return ids
}

// TestCheckItemsDiscriminated: a scan's checks are a oneOf of one item
// schema per check id of report.go, discriminated by id, each naming its
// own check's diagnostics; a check id with no branch, or a branch with no
// check, fails it.
func TestCheckItemsDiscriminated(t *testing.T) {
	assert.Empty(t, discriminatorErrors(schemas(t), checkIDs(t)))
}

// TestCheckItemsDiscriminatedCatchesErrors proves the test can fail: a
// check id with no branch, a branch with no check, and a branch naming
// another check's diagnostics.
func TestCheckItemsDiscriminatedCatchesErrors(t *testing.T) {
	ids := checkIDs(t)
	require.Empty(t, discriminatorErrors(schemas(t), ids))

	withUnknown := append(slices.Clone(ids), "not-a-check") // a name no real check takes (TestNinthCheck adds "ninth")
	assert.Contains(t, strings.Join(discriminatorErrors(schemas(t), withUnknown), "\n"), "check not-a-check has no branch")

	assert.Contains(t, strings.Join(discriminatorErrors(schemas(t), ids[:len(ids)-1]), "\n"), "has no check")

	s := schemas(t)
	s[itemSchemaName(CheckDMARC)]["properties"].(map[string]any)["diagnostics"] = map[string]any{"$ref": schemaRef("SpfDiagnostics")}
	assert.Contains(t, strings.Join(discriminatorErrors(s, ids), "\n"), "DmarcCheck: diagnostics #/components/schemas/SpfDiagnostics")
}
