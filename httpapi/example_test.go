package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// Mounting the service in a program of your own: the handler serves the
// three endpoints and /openapi.json; here it answers a scan of a domain
// whose DNS comes from an in-memory zone.
func ExampleNew() {
	zones, err := dnstest.Parse("$ORIGIN example.com.\nshop TXT \"v=spf1 -all\"\n", "")
	if err != nil {
		panic(err)
	}
	scanner := mailauth.New(mailauth.Config{Resolver: dnstest.NewResolver(zones)})
	srv := httptest.NewServer(httpapi.New(scanner, httpapi.Options{}))
	defer srv.Close()

	resp, err := http.Post(srv.URL+"/api/scan", "application/json", strings.NewReader(`{"domain":"shop.example.com"}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, resp.Header.Get("X-RateLimit-Remaining"), resp.Header.Get("Link"))
	fmt.Println(strings.Contains(string(body), `"grade":"F"`))
	// Output:
	// 200 29 </openapi.json>; rel="service-desc"
	// true
}
