package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// discardWriter is a ResponseWriter that keeps nothing but its header
// map, which it clears on each WriteHeader.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header { return d.h }

func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }

func (d *discardWriter) WriteHeader(int) { clear(d.h) }

// TestRefusalsNotEncodedPerRequest: an error of the catalogue (a 429, a
// 500 busy: what an attacker draws by the thousand) is written from its
// body encoded once, allocating no more than writing those bytes does,
// and the body is the one encoding it gives.
func TestRefusalsNotEncodedPerRequest(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/api/scan", nil)
	for _, e := range []apiError{errRateLimited, errSourceBudget, errNetworkLimited, errBusy, errTooLarge, errMediaType} {
		rec := httptest.NewRecorder()
		writeError(rec, r, e)
		want, err := Encode(errorBody{Error: e.msg})
		require.NoError(t, err)
		assert.Equal(t, e.status, rec.Code, e.msg)
		assert.Equal(t, string(want), rec.Body.String(), e.msg)
		assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	}
	w := &discardWriter{h: http.Header{}}
	body := catalogueBodies[errBusy.msg]
	require.NotNil(t, body)
	plain := testing.AllocsPerRun(100, func() { writeBytes(w, errBusy.status, body) })
	refusal := testing.AllocsPerRun(100, func() { writeError(w, r, errBusy) })
	assert.LessOrEqual(t, refusal, plain, "a refusal allocates more than writing its bytes: it is encoded per request")
}
