// Command scan scans one domain with the mailauth library and prints the
// summary: grade, score, and one line per check.
//
//	go run ./examples/scan example.com
//	go run ./examples/scan -selector s1 -ip 192.0.2.25 -dns 9.9.9.9 example.com
//
// -https-port, -ca-file and -allow-loopback-targets exist for lab use
// (the example's test serves MTA-STS policies on loopback).
package main

import (
	"context"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/mailauth/mailauth"
)

func main() {
	dns := flag.String("dns", "", "comma-separated recursive resolvers, IP or IP:port; empty means /etc/resolv.conf")
	selector := flag.String("selector", "", "DKIM selector to check")
	ip := flag.String("ip", "", "public sending IP, for the PTR check")
	httpsPort := flag.Int("https-port", 0, "port of the MTA-STS policy fetch (lab use)")
	caFile := flag.String("ca-file", "", "PEM roots trusted by the MTA-STS policy fetch (lab use)")
	loopback := flag.Bool("allow-loopback-targets", false, "let the MTA-STS fetch reach loopback (lab use)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: scan [flags] DOMAIN")
		os.Exit(2)
	}
	cfg := mailauth.Config{DNSServers: servers(*dns), HTTPSPort: *httpsPort, AllowLoopbackTargets: *loopback}
	if *caFile != "" {
		pem, err := os.ReadFile(*caFile)
		if err != nil {
			fail(err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			fail(errors.New("-ca-file: no certificate"))
		}
	}
	s := mailauth.New(cfg)
	sum, err := s.Scan(context.Background(), mailauth.ScanRequest{Domain: flag.Arg(0), DKIMSelector: *selector, SendingIP: *ip})
	if err != nil {
		fail(err) // *mailauth.InputError or mailauth.ErrResolverUnavailable
	}
	fmt.Printf("%s: grade %s, score %d\n", sum.Domain, sum.Grade, sum.Score)
	fmt.Println(sum.Summary.EN)
	for _, c := range sum.Checks {
		fmt.Printf("%-8s %-4s %-8s %s\n", c.ID, c.Status, c.Severity, c.Summary.EN)
	}
}

// servers turns "ip,ip:port" into the host:port list of mailauth.Config.
func servers(list string) []string {
	var out []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(s); err != nil {
			s = net.JoinHostPort(s, "53")
		}
		out = append(out, s)
	}
	return out
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "scan:", err)
	os.Exit(1)
}
