package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Hostile domains of the lab, served beside testdata/zones/scan.zone
// (whose good.example.com is the well-behaved client's domain). Every
// address in them is in 127.0.0.0/8.
const (
	slowDomain   = "slow-h.example.com"   // every answer held back past the scan deadline (item 1)
	fanoutDomain = "fanout-h.example.com" // policy host with fanoutAddrs loopback addresses (item 2)
	leakDomain   = "leak-h.example.com"   // TXT tokens that coincide with the service's own output (item 5)
	bigDomain    = "big-h.example.com"    // SPF includes of 50 KB TXT records and a wide MX set (item 8)
	goodDomain   = "good.example.com"
)

// fanoutAddrs is the number of A records of the fan-out policy host: as
// many as fit a DNS message (64 KiB, 16 bytes each) and the per-scan
// memory bound (resolver.MaxScanBytes) with room to spare.
const fanoutAddrs = 2500

// slowNames are the names a scan of slowDomain asks that the lab delays.
var slowNames = []string{
	slowDomain, "_dmarc." + slowDomain, "_mta-sts." + slowDomain, "_smtp._tls." + slowDomain, "mta-sts." + slowDomain,
}

// writeHostileZone writes the hostile zones to a file in dir and returns
// its path. Leak tokens are made for the current and next hour so that
// they occur in the scans' timestamps.
func writeHostileZone(dir string, now time.Time) (string, error) {
	var b strings.Builder
	b.WriteString("$ORIGIN example.com.\n")
	fmt.Fprintf(&b, "slow-h TXT \"v=spf1 -all\"\n")
	fmt.Fprintf(&b, "_mta-sts.fanout-h TXT \"v=STSv1; id=1\"\n")
	for i := range fanoutAddrs {
		fmt.Fprintf(&b, "mta-sts.fanout-h A 127.2.%d.%d\n", i/250, i%250+1)
	}
	fmt.Fprintf(&b, "leak-h MX 10 mx.leak-h\nmx.leak-h A 127.0.0.9\n_dmarc.leak-h TXT \"v=DMARC1; p=reject\"\n")
	for _, t := range []time.Time{now.UTC(), now.UTC().Add(time.Hour)} {
		fmt.Fprintf(&b, "leak-h TXT \"%dT%02d\"\nleak-h TXT \"%02dT%02d:\"\n", t.Day()%10, t.Hour(), t.Day(), t.Hour())
	}
	for n := 0; n <= 8; n++ {
		for m := n; m <= 8; m++ {
			fmt.Fprintf(&b, "leak-h TXT \"%d of %d\"\n", n, m)
		}
	}
	writeBig(&b)
	writeSpoofZone(&b)
	path := filepath.Join(dir, "hostile.zone")
	return path, os.WriteFile(path, []byte(b.String()), 0o600)
}

// writeBig adds bigDomain: an SPF record with 10 valid includes, and at
// the domain, at each include target and at the _dmarc, _mta-sts and
// _smtp._tls names a second TXT record of 200 strings of about 250 bytes
// of host-name tokens (TCP-only answers of about 50 KB, every token of
// which the leak guard records), plus 10 MX hosts with 50 addresses each.
func writeBig(b *strings.Builder) {
	b.WriteString("big-h TXT \"v=spf1")
	for i := range 10 {
		fmt.Fprintf(b, " include:i%d.big-h.example.com", i)
	}
	b.WriteString(" -all\"\n")
	names := []string{"big-h", "_dmarc.big-h", "_mta-sts.big-h", "_smtp._tls.big-h"}
	for i := range 10 {
		fmt.Fprintf(b, "i%d.big-h TXT \"v=spf1 ip4:127.0.%d.0/24 -all\"\n", i, i)
		names = append(names, fmt.Sprintf("i%d.big-h", i))
		fmt.Fprintf(b, "big-h MX 10 mx%d.big-h\n", i)
		for j := range 50 {
			fmt.Fprintf(b, "mx%d.big-h A 127.3.%d.%d\n", i, i, j+1)
		}
	}
	b.WriteString("_dmarc.big-h TXT \"v=DMARC1; p=reject\"\n")
	for n, name := range names {
		fmt.Fprintf(b, "%s TXT", name)
		for j := range 200 {
			b.WriteString(" \"")
			for k := range 10 {
				fmt.Fprintf(b, "t%d-%03d-%d.big-h.example.net ", n, j, k)
			}
			b.WriteString("\"")
		}
		b.WriteString("\n")
	}
}
