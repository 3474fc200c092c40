// Command resolver scans a domain through a Resolver of your own: here a
// wrapper that counts the questions the scan asks, by record type, around
// the library's DNS client. Any type with the one method Lookup can stand
// in: a cache, a DNS-over-HTTPS client, a fixed zone for tests.
//
//	go run ./examples/resolver example.com
//	go run ./examples/resolver -dns 9.9.9.9:53 example.com
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/resolver"
)

// counting is a resolver.Resolver that counts questions by type and
// passes them on.
type counting struct {
	next resolver.Resolver
	mu   sync.Mutex
	n    map[resolver.Type]int
}

// Lookup implements resolver.Resolver. The scanner calls it from several
// goroutines at once.
func (c *counting) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	c.mu.Lock()
	c.n[qtype]++
	c.mu.Unlock()
	return c.next.Lookup(ctx, name, qtype)
}

func main() {
	dns := flag.String("dns", "", "comma-separated recursive resolvers, IP:port; empty means /etc/resolv.conf")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: resolver [-dns SERVERS] DOMAIN")
		os.Exit(2)
	}
	// The default schedule (800 ms for the first attempt, retries until
	// the scan's deadline) suits a recursive resolver; see resolver's
	// package doc, "Retries".
	client := &resolver.Client{}
	if *dns != "" {
		client.Servers = strings.Split(*dns, ",")
	}
	r := &counting{next: client, n: map[resolver.Type]int{}}
	sum, err := mailauth.New(mailauth.Config{Resolver: r}).Scan(context.Background(), mailauth.ScanRequest{Domain: flag.Arg(0)})
	if err != nil {
		fmt.Fprintln(os.Stderr, "resolver:", err)
		os.Exit(1)
	}
	if sum.Incomplete() {
		fmt.Printf("%s: no grade, most checks could not be determined\n", sum.Domain)
	} else {
		fmt.Printf("%s: grade %s, score %d\n", sum.Domain, sum.Grade, sum.Score)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	types := make([]resolver.Type, 0, len(r.n))
	for t := range r.n {
		types = append(types, t)
	}
	slices.Sort(types)
	for _, t := range types {
		fmt.Printf("%-5s %d questions\n", t, r.n[t])
	}
}
