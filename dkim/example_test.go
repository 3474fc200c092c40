package dkim_test

import (
	"context"
	"fmt"

	"github.com/mailauth/mailauth/dkim"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

func ExampleCheck() {
	z, err := dnstest.Parse(`$ORIGIN example.com.
s1._domainkey TXT "v=DKIM1; k=ed25519; t=y; p=FpcijCf8bP1Lab4eOO8V3P/0ZJfj+8uxIH7/HB8gbsw="
`, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	r := dnstest.NewResolver(z)
	for _, selector := range []string{"s1", "s2"} {
		res := dkim.Check(context.Background(), r, selector, "example.com")
		fmt.Printf("%s: outcome=%s records=%d key=%q present=%s testMode=%s usable=%s findings=%v\n",
			selector, res.Outcome, *res.RecordCount, res.KeyType, fact(res.PublicKeyPresent), fact(res.TestMode), fact(res.Usable), res.Findings)
	}
	// Output:
	// s1: outcome=found records=1 key="ed25519" present=true testMode=true usable=true findings=[test_mode]
	// s2: outcome=nxdomain records=0 key="" present=false testMode= usable=false findings=[no_record]
}

// fact prints a fact that may be unknown: empty when it is.
func fact(b *bool) string {
	if b == nil {
		return ""
	}
	return fmt.Sprint(*b)
}

func ExampleParse() {
	rec, err := dkim.Parse("v=DKIM1; h=sha1; p=")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rec.KeyType, rec.Key, rec.SHA256Allowed(), rec.Usable(), rec.Findings)

	_, err = dkim.Parse("k=rsa; v=DKIM1; p=")
	fmt.Println(err)
	// Output:
	// rsa revoked false false [key_revoked sha256_not_allowed]
	// dkim: tag "v": v must be the first tag
}
