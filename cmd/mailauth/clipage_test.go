package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/httpapi"
)

// TestCLIPageNamesEveryServeFlag: /developers/cli/ names every flag of
// `mailauth serve`, so a new flag cannot ship undocumented.
func TestCLIPageNamesEveryServeFlag(t *testing.T) {
	srv := httptest.NewServer(httpapi.New(&fakeService{}, httpapi.Options{}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/developers/cli/")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err, "GET /developers/cli/")
	require.Equal(t, http.StatusOK, resp.StatusCode, "GET /developers/cli/")
	for _, name := range serveFlagNames {
		assert.Contains(t, string(body), "<code>-"+name+"</code>", "/developers/cli/ does not name the serve flag -%s", name)
	}
}
