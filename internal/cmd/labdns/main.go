// Command labdns serves zone files on a loopback port with resolver/dnstest,
// optionally delaying every answer, for load tests and manual lab runs:
//
//	go run ./internal/cmd/labdns -delay 20ms testdata/zones/scan.zone
//
// It prints the "127.0.0.1:port" address to point `mailauth serve -dns` at,
// and serves until interrupted. It only ever listens on 127.0.0.1.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mailauth/mailauth/resolver/dnstest"
)

func main() {
	delay := flag.Duration("delay", 0, "delay added to every answer")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: labdns [-delay D] ZONEFILE...")
		os.Exit(2)
	}
	z, err := dnstest.Load(flag.Args()...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv, err := dnstest.Listen(z)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer srv.Close()
	if *delay > 0 {
		for _, n := range z.Names() {
			srv.SetFault(n, dnstest.AnyType, dnstest.Delay(*delay))
		}
	}
	fmt.Println(srv.Addr())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
}
