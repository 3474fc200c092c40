package spf

import (
	"testing"

	"github.com/mailauth/mailauth/internal/codetest"
)

// TestCodesComplete: Codes() lists every declared finding code once.
func TestCodesComplete(t *testing.T) {
	t.Parallel()
	var listed []string
	for _, c := range Codes() {
		listed = append(listed, string(c))
	}
	codetest.Complete(t, ".", "Code", listed)
}
