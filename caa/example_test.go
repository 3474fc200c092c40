package caa_test

import (
	"context"
	"fmt"

	"github.com/mailauth/mailauth/caa"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

func ExampleCheck() {
	z, err := dnstest.Parse(`$ORIGIN example.test.
@    CAA 0 issue "ca.example"
@    CAA 0 iodef "mailto:security@example.test"
`, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	res := caa.Check(context.Background(), dnstest.NewResolver(z), "example.test")
	fmt.Println(res.Domain.Outcome, res.Domain.IssuerCount, res.Domain.Restricts)
	fmt.Println(res.MTASTS.Inherited, res.MTASTS.CanIssue)
	// Output:
	// found 1 true
	// true true
}

func ExampleParse() {
	p, err := caa.Parse(`128 Issue "ca.example; accounturi=https://ca.example/acct/1"`)
	if err != nil {
		fmt.Println(err)
		return
	}
	tag, _ := p.Known()
	v, _ := caa.ParseIssuerValue(p.Value)
	fmt.Println(p.Critical(), tag, v.Domain, len(v.Params))
	// Output: true issue ca.example 1
}
