package httpapi

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/report"
)

// TestPageFieldListMatchesContract: the web page labels exactly the
// diagnostics fields of each check's contract type, in the type's order,
// so a field added to the contract without a label (or a label left for
// a field that is gone) fails here.
func TestPageFieldListMatchesContract(t *testing.T) {
	js, err := webFiles.ReadFile("web/static/app.js")
	require.NoError(t, err)
	block := regexp.MustCompile(`(?s)var FIELDS = \{(.*?)\n  \};`).FindSubmatch(js)
	require.NotNil(t, block, "app.js has no FIELDS table")
	page := map[string][]string{}
	section := regexp.MustCompile(`(?s)"?([a-z-]+)"?: \[(.*?)\n    \]`)
	entry := regexp.MustCompile(`\["([A-Za-z0-9]+)",`)
	for _, m := range section.FindAllSubmatch(block[1], -1) {
		for _, e := range entry.FindAllSubmatch(m[2], -1) {
			page[string(m[1])] = append(page[string(m[1])], string(e[1]))
		}
	}
	want := map[string][]string{}
	for _, id := range mailauth.CheckOrder() {
		d := report.NewDiagnostics(id)
		if d == nil {
			continue
		}
		want[string(id)] = jsonNames(reflect.TypeOf(d).Elem())
	}
	require.NotEmpty(t, want)
	assert.Equal(t, want, page)
}

// jsonNames lists the JSON property names of struct type t, in order.
func jsonNames(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}
