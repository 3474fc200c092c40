package spf_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/mailauth/mailauth/resolver/dnstest"
	"github.com/mailauth/mailauth/spf"
)

func ExampleParse() {
	rec, err := spf.Parse("v=spf1 +MX a:mail.example.com/24 include:_spf.example.net ~all")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rec)
	q, _ := rec.All()
	fmt.Println("all qualifier:", q)

	_, err = spf.Parse("v=spf1 ip4:192.0.2.0/33 -all")
	var se *spf.SyntaxError
	if errors.As(err, &se) {
		fmt.Println(se.Index, se.Code)
	}
	// Output:
	// v=spf1 mx a:mail.example.com/24 include:_spf.example.net ~all
	// all qualifier: ~
	// 1 syntax_bad_cidr
}

func ExampleCheck() {
	z, err := dnstest.Parse(`$ORIGIN example.test.
@      TXT "v=spf1 mx include:_spf.example.test -all"
@      MX  10 mail
mail   A   127.0.0.1
_spf   TXT "v=spf1 a:gone.example.test include:_spf.provider.test ~all"
$ORIGIN provider.test.
_spf   TXT "v=spf1 ip4:127.0.0.0/8 ?all"
`, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	res := spf.Check(context.Background(), dnstest.NewResolver(z), "example.test")
	fmt.Println("records:", *res.RecordCount)
	fmt.Printf("lookups: %d of %d, complete: %v\n", *res.LookupCount, res.LookupLimit, res.LookupComplete)
	fmt.Println("void lookups:", res.VoidLookups)
	fmt.Println("all:", res.All, "error:", res.Error == spf.ClassNone)
	fmt.Println("findings:", res.Findings)
	// Output:
	// records: 1
	// lookups: 4 of 10, complete: true
	// void lookups: 1
	// all: - error: true
	// findings: [void_lookup]
}
