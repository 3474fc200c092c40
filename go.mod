// Module mailauth: email authentication and transport-security diagnostics.
//
// Pins: every version below resolved through the module proxy on 2026-11-21;
// chromedp v0.23.0 (and its cdproto) on 2026-11-24, for the browser tests.
module github.com/mailauth/mailauth

go 1.26.0

require (
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
	github.com/miekg/dns v1.1.73
	github.com/redis/go-redis/v9 v9.23.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	golang.org/x/net v0.62.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)
