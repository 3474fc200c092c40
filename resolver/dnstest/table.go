package dnstest

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/mailauth/mailauth/resolver"
)

// FaultAt is a fault as written in a test table row: Fault applies to
// questions about Name of type Type (AnyType for all types). The field
// order is fixed; outside this package write keyed literals
// ({Name: …, Type: …, Fault: …}), as go vet's composites check wants.
type FaultAt struct {
	Name  string
	Type  resolver.Type
	Fault Fault
}

// Apply injects each fault as SetFault would, in order (a later fault for
// the same name and type replaces an earlier one).
func (r *Resolver) Apply(faults ...FaultAt) {
	for _, f := range faults {
		r.SetFault(f.Name, f.Type, f.Fault)
	}
}

// Apply injects each fault as SetFault would, in order (a later fault for
// the same name and type replaces an earlier one).
func (s *Server) Apply(faults ...FaultAt) {
	for _, f := range faults {
		s.SetFault(f.Name, f.Type, f.Fault)
	}
}

// Diff describes how got differs from want, for a test failure message. It
// returns "" exactly when reflect.DeepEqual(got, want).
//
// For two structs of the same type it writes one line per differing
// exported field, "  Field: got …, want …" (values in %+v form); a
// differing field that is itself a struct with exported fields is
// described field by field ("  Outer.Inner: …"). Otherwise, or when only
// unexported fields differ, it writes a single "  got …, want …" line,
// naming both types when they differ. Where the %+v forms of two values
// read the same (a nil and an empty slice), both are shown in %#v form.
func Diff(got, want any) string {
	if reflect.DeepEqual(got, want) {
		return ""
	}
	gt, wt := reflect.TypeOf(got), reflect.TypeOf(want)
	if gt != wt {
		g, w := show(got, want)
		return fmt.Sprintf("  got %T %s, want %T %s\n", got, g, want, w)
	}
	var b strings.Builder
	if gt.Kind() == reflect.Struct {
		diffFields(&b, "", reflect.ValueOf(got), reflect.ValueOf(want))
	}
	if b.Len() == 0 {
		g, w := show(got, want)
		fmt.Fprintf(&b, "  got %s, want %s\n", g, w)
	}
	return b.String()
}

// diffFields writes a line for every exported field of the structs g and w
// (of one type) that differs, prefixing field names with prefix.
func diffFields(b *strings.Builder, prefix string, g, w reflect.Value) {
	for i := range g.NumField() {
		field := g.Type().Field(i)
		if !field.IsExported() {
			continue
		}
		gf, wf := g.Field(i).Interface(), w.Field(i).Interface()
		if reflect.DeepEqual(gf, wf) {
			continue
		}
		name := prefix + field.Name
		if field.Type.Kind() == reflect.Struct {
			n := b.Len()
			diffFields(b, name+".", g.Field(i), w.Field(i))
			if b.Len() > n {
				continue
			}
		}
		gs, ws := show(gf, wf)
		fmt.Fprintf(b, "  %s: got %s, want %s\n", name, gs, ws)
	}
}

// show formats two values that differ in %+v form, or in %#v form when
// the %+v forms read the same.
func show(got, want any) (string, string) {
	g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want)
	if g == w {
		g, w = fmt.Sprintf("%#v", got), fmt.Sprintf("%#v", want)
	}
	return g, w
}
