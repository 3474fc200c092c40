package tlsrpt_test

import (
	"context"
	"fmt"

	"github.com/mailauth/mailauth/resolver/dnstest"
	"github.com/mailauth/mailauth/tlsrpt"
)

func ExampleParse() {
	rec, err := tlsrpt.Parse("v=TLSRPTv1;rua=mailto:tls@example.com, https://reports.example.com/tls")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rec)
	fmt.Println(len(rec.RUA), "destinations in", rec.RUAFieldCount(), "rua field")
	// Output:
	// v=TLSRPTv1; rua=mailto:tls@example.com,https://reports.example.com/tls
	// 2 destinations in 1 rua field
}

func ExampleCheck() {
	z, err := dnstest.Parse(`$ORIGIN example.test.
_smtp._tls  TXT  "v=TLSRPTv1; rua=mailto:tls@example.test,https://example.test/tlsrpt"
`, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	r := dnstest.NewResolver(z)
	res := tlsrpt.Check(context.Background(), r, "example.test")
	fmt.Println("records:", *res.RecordCount, "configured:", *res.Configured)
	fmt.Println("destinations:", *res.DestinationCount, "mailto:", *res.MailtoDestinationCount, "https:", *res.HTTPSDestinationCount)

	res = tlsrpt.Check(context.Background(), r, "other.example.test")
	fmt.Println("records:", *res.RecordCount, "configured:", *res.Configured, "outcome:", res.Outcome)
	// Output:
	// records: 1 configured: true
	// destinations: 2 mailto: 1 https: 1
	// records: 0 configured: false outcome: nxdomain
}
