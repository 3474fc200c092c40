package mtasts_test

import (
	"context"
	"fmt"

	"github.com/mailauth/mailauth/mtasts"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

func ExampleParseRecord() {
	rec, err := mtasts.ParseRecord("v=STSv1;  id=20261121T120000")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rec)
	fmt.Println("id:", rec.ID)
	// Output:
	// v=STSv1; id=20261121T120000
	// id: 20261121T120000
}

func ExampleParsePolicy() {
	p, err := mtasts.ParsePolicy("version: STSv1\r\nmode: enforce\r\nmx: mail.example.com\r\nmx: *.mx.example.net\r\nmax_age: 604800\r\n")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("mode:", p.Mode, "max_age:", *p.MaxAge, "patterns:", len(p.MX))
	for _, host := range []string{"mail.example.com", "a.mx.example.net", "a.b.mx.example.net", "mx.example.net"} {
		fmt.Println(host, p.Matches(host))
	}
	// Output:
	// mode: enforce max_age: 604800 patterns: 2
	// mail.example.com true
	// a.mx.example.net true
	// a.b.mx.example.net false
	// mx.example.net false
}

// Without a _mta-sts record there is nothing to fetch: the policy host is
// never contacted.
func ExampleCheck() {
	z, err := dnstest.Parse(`$ORIGIN example.test.
@   MX  10 mail
mail A  127.0.0.1
`, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	res := mtasts.Check(context.Background(), dnstest.NewResolver(z), "example.test", mtasts.Options{})
	fmt.Println("announcements:", *res.AnnouncementRecordCount, "fetch:", res.FetchState)
	// Output:
	// announcements: 0 fetch: not_announced
}
