// Command checkip checks one sending IP with the mailauth library: its
// reverse DNS (PTR) names and whether one of them resolves back to it.
//
//	go run ./examples/checkip 192.0.2.25
//	go run ./examples/checkip -dns 9.9.9.9 2001:db8::25
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"

	"github.com/mailauth/mailauth"
)

func main() {
	dns := flag.String("dns", "", "comma-separated recursive resolvers, IP or IP:port; empty means /etc/resolv.conf")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: checkip [-dns SERVERS] IP")
		os.Exit(2)
	}
	ip, err := netip.ParseAddr(flag.Arg(0))
	if err != nil {
		fail(err)
	}
	var servers []string
	for _, s := range strings.Split(*dns, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(s); err != nil {
			s = net.JoinHostPort(s, "53")
		}
		servers = append(servers, s)
	}
	s := mailauth.New(mailauth.Config{DNSServers: servers})
	sum, err := s.CheckIP(context.Background(), ip)
	if err != nil {
		fail(err) // a non-public address, or the resolver failed (ErrResolverUnavailable)
	}
	c := sum.Check
	fmt.Printf("%s: %s (%s)\n%s\n", sum.SendingIP, c.Status, c.Severity, c.Summary.EN)
	if d, ok := c.Diagnostics.(*mailauth.PTRDiagnostics); ok {
		fmt.Printf("PTR names: %s, forward lookups: %d of %d, forward-confirmed: %s\n",
			count(d.PTRRecordCount), d.ForwardQueriesCompleted, d.ForwardQueryCount, yesNo(d.ForwardConfirmed))
	}
}

// count prints a count that may be unknown (nil).
func count(n *int) string {
	if n == nil {
		return "unknown"
	}
	return fmt.Sprint(*n)
}

// yesNo prints a fact that may be unknown (nil).
func yesNo(b *bool) string {
	switch {
	case b == nil:
		return "unknown"
	case *b:
		return "yes"
	}
	return "no"
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "checkip:", err)
	os.Exit(1)
}
