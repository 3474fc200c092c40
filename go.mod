// Module mailauth: email authentication and transport-security diagnostics.
//
// Pins: every version below resolved through the module proxy on 2026-11-21.
module github.com/mailauth/mailauth

go 1.26.0

require (
	github.com/miekg/dns v1.1.73
	github.com/redis/go-redis/v9 v9.23.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	golang.org/x/net v0.62.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)
