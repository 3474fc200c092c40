package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mailauth/mailauth/httpapi"
)

// TestCLIPageNamesEveryServeFlag: /developers/cli/ names every flag of
// `mailauth serve`, so a new flag cannot ship undocumented.
func TestCLIPageNamesEveryServeFlag(t *testing.T) {
	srv := httptest.NewServer(httpapi.New(&fakeService{}, httpapi.Options{}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/developers/cli/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /developers/cli/: %d %v", resp.StatusCode, err)
	}
	for _, name := range serveFlagNames {
		if !strings.Contains(string(body), "<code>-"+name+"</code>") {
			t.Errorf("/developers/cli/ does not name the serve flag -%s", name)
		}
	}
}
