// Package examples holds small runnable programs that use the mailauth
// library. Each is its own main package:
//
//	go run ./examples/scan example.com          scan a domain and print the summary
//	go run ./examples/checkip 192.0.2.25        check one sending IP
//	go run ./examples/mount                     serve the API and page in your own mux
//	go run ./examples/resolver example.com      scan through your own Resolver
//
// Every program takes -dns (resolvers, IP or IP:port) so it can be pointed
// at any recursive resolver; the test in this directory builds each one
// and runs it against a loopback DNS server and MTA-STS policy server.
package examples
