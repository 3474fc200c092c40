package tlsrpt

import (
	"testing"

	"github.com/mailauth/mailauth/internal/codetest"
)

// TestCodesComplete: Codes() lists every declared finding code once.
func TestCodesComplete(t *testing.T) {
	t.Parallel()
	codetest.Complete(t, Codes())
}
