package dmarc_test

import (
	"context"
	"fmt"

	"github.com/mailauth/mailauth/dmarc"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

func ExampleParse() {
	rec, err := dmarc.Parse("v=DMARC1;p=quarantine; sp=reject ;adkim=s; rua=mailto:dmarc@example.com")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rec)
	fmt.Println("p:", rec.P, "sp:", rec.SP, "adkim:", rec.ADKIM, "valid rua:", rec.HasValidRUA())

	_, err = dmarc.Parse("v=spf1 -all")
	fmt.Println(err != nil)
	// Output:
	// v=DMARC1; p=quarantine; sp=reject; adkim=s; rua=mailto:dmarc@example.com
	// p: quarantine sp: reject adkim: strict valid rua: true
	// true
}

// Policy discovery with the RFC 9989 tree walk: a subdomain without a
// record of its own inherits its organizational domain's sp policy.
func ExampleCheck() {
	z, err := dnstest.Parse(`$ORIGIN example.test.
@        A    127.0.0.1
_dmarc   TXT  "v=DMARC1; p=reject; sp=quarantine; rua=mailto:reports@example.test"
shop     A    127.0.0.1
`, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	res := dmarc.Check(context.Background(), dnstest.NewResolver(z), "shop.example.test")
	fmt.Println("discovery:", res.Discovery)
	fmt.Println("policy domain:", res.PolicyDomain, "inherited:", res.Inherited)
	fmt.Println("tag:", res.PolicyTag, "policy:", res.Policy)
	fmt.Println("queries:", res.TreeWalkQueries, "existence:", res.DomainExistence)
	fmt.Println("aggregate reports:", res.AggregateReporting)
	// Output:
	// discovery: found
	// policy domain: example.test inherited: true
	// tag: sp policy: quarantine
	// queries: 3 existence: exists
	// aggregate reports: true
}
