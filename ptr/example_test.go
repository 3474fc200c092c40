package ptr_test

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/mailauth/mailauth/ptr"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

func ExampleCheck() {
	z, err := dnstest.Parse(`$ORIGIN 100.51.198.in-addr.arpa.
7    PTR mail.example.test.
$ORIGIN example.test.
mail A 198.51.100.7
`, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	res := ptr.Check(context.Background(), dnstest.NewResolver(z), netip.MustParseAddr("::ffff:198.51.100.7"))
	fmt.Println(res.IPVersion, *res.NameCount, res.ForwardType, res.ForwardQueries, res.ForwardCompleted, res.Confirmed)
	// Output: 4 1 A 1 1 confirmed
}
