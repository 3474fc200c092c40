package httpapi

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNotFoundHTMLForBrowsers: a mistyped page answers a browser with an
// HTML 404 in both languages under the pages' security headers, and
// anything else, /api/ paths included, with the API's JSON 404.
func TestNotFoundHTMLForBrowsers(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{})
	get := func(path, accept string) (*http.Response, string) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, ts.URL+path, nil)
		require.NoError(t, err)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, string(b)
	}
	browser := "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	resp, body := get("/help/spff/", browser)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.NotEmpty(t, resp.Header.Get("Content-Security-Policy"))
	assert.Contains(t, body, "Page not found")
	assert.Contains(t, body, "页面不存在")
	assert.NotContains(t, body, "spff", "the page echoes the path")

	for _, c := range []struct{ path, accept string }{
		{"/help/spff/", ""}, {"/help/spff/", "application/json"}, {"/api/nope", browser}, {"/help/spff/", "text/html;q=0"},
	} {
		resp, body := get(c.path, c.accept)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, c)
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), c)
		assert.JSONEq(t, `{"error":"not found"}`, body, c)
	}
}
