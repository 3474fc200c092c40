package mx_test

import (
	"context"
	"fmt"

	"github.com/mailauth/mailauth/mx"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

func ExampleCheck() {
	z, err := dnstest.Parse(`$ORIGIN example.test.
@    MX 10 mx1
@    MX 20 mx2
mx1  A 11.0.0.1
mx2  CNAME mx1
`, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	res := mx.Check(context.Background(), dnstest.NewResolver(z), "example.test")
	fmt.Println(res.Kind, res.Counts.Distinct, res.Counts.Usable, res.Findings)
	// Output: explicit 2 2 [exchange_alias]
}
