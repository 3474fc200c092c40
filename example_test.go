package mailauth_test

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// A scan of a parked domain: a null MX, SPF -all and DMARC reject. DNS
// comes from an in-memory zone, so the example runs offline.
func ExampleScanner_Scan() {
	zones, err := dnstest.Parse(`$ORIGIN example.com.
parked         MX 0 .
parked         TXT "v=spf1 -all"
_dmarc.parked  TXT "v=DMARC1; p=reject; rua=mailto:dmarc@example.com"
`, "")
	if err != nil {
		panic(err)
	}
	s := mailauth.New(mailauth.Config{Resolver: dnstest.NewResolver(zones)})
	sum, err := s.Scan(context.Background(), mailauth.ScanRequest{Domain: "https://Parked.Example.com/"})
	if err != nil {
		panic(err)
	}
	fmt.Println(sum.Domain, sum.Grade, sum.Score)
	for _, c := range sum.Checks {
		fmt.Printf("%-8s %s\n", c.ID, c.Status)
	}
	// Output:
	// parked.example.com A 100
	// mx       info
	// spf      pass
	// dmarc    pass
	// dkim     info
	// mta-sts  info
	// tls-rpt  info
	// ptr      info
	// caa      info
}

// Checking one sending IP for forward-confirmed reverse DNS.
func ExampleScanner_CheckIP() {
	zones, err := dnstest.Parse(`$ORIGIN example.com.
mail             A 8.8.8.8
$ORIGIN 8.8.8.in-addr.arpa.
8                PTR mail.example.com.
`, "")
	if err != nil {
		panic(err)
	}
	s := mailauth.New(mailauth.Config{Resolver: dnstest.NewResolver(zones)})
	sum, err := s.CheckIP(context.Background(), netip.MustParseAddr("8.8.8.8"))
	if err != nil {
		panic(err)
	}
	d := sum.Check.Diagnostics.(*mailauth.PTRDiagnostics)
	fmt.Println(sum.Check.Status, *d.PTRRecordCount, *d.ForwardConfirmed)
	// Output:
	// pass 1 true
}

// Invalid input is an *InputError naming the field and the rule, never
// the input.
func ExampleNormalizeDomain() {
	d, err := mailauth.NormalizeDomain("postmaster@Bücher.de")
	fmt.Println(d.ASCII, d.Unicode, err)
	_, err = mailauth.NormalizeDomain("https://user:pw@example.com/")
	fmt.Println(err)
	// Output:
	// xn--bcher-kva.de bücher.de <nil>
	// domain: credentialed URLs are not accepted
}
