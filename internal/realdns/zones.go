package realdns

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The scenario domains. Every one is a subdomain of example.com so that
// it passes the scanner's input normalization; each is a zone of its own
// (or a name in the cname zone) with a stub zone in the resolver.
const (
	// Signed is fully configured (MX, SPF, DMARC, MTA-STS, TLS-RPT, CAA)
	// and DNSSEC-signed, with a trust anchor in the resolver.
	Signed = "signed.example.com"
	// DANEOnly is DNSSEC-signed like Signed, with a DANE-EE TLSA record
	// for its mail server and no MTA-STS (Signed publishes both).
	DANEOnly = "dane.example.com"
	// Bogus is configured like Signed, but its signatures expired in
	// 2020: a validating resolver answers SERVFAIL.
	Bogus = "bogus.example.com"
	// Lame is delegated to a port where nothing listens.
	Lame = "lame.example.com"
	// Refused is delegated to NSD, which does not serve it and answers
	// REFUSED.
	Refused = "refused.example.com"
	// Blackhole is delegated to a server that never answers.
	Blackhole = "blackhole.example.com"
	// Slow1 is configured like Signed (unsigned) behind a proxy that
	// delays every answer by 1 s.
	Slow1 = "slow1.example.com"
	// Slow3 is the same behind a 3 s delay.
	Slow3 = "slow3.example.com"
	// Loop is a CNAME to a CNAME back to it.
	Loop = "loop.cname.example.com"
	// Chain is the first of 11 CNAMEs in a row (12 names): Unbound 1.17
	// follows it. The last target holds MX, SPF and CAA; Chain's own
	// subdomains hold DMARC, MTA-STS and TLS-RPT.
	Chain = "chain.cname.example.com"
	// ChainLinks is the number of CNAME records from Chain to the data.
	ChainLinks = 11
	// LongChain is set up like Chain with 12 CNAMEs in a row: one more
	// than Unbound 1.17 follows (it answers SERVFAIL from a cold cache).
	LongChain = "longchain.cname.example.com"
	// LongChainLinks is the number of CNAME records from LongChain.
	LongChainLinks = 12
	// MXAddress is the address of every mail exchange: the MX check
	// requires a public one. The scanner only resolves it, never connects.
	MXAddress = "8.8.8.8"
)

// reverseZone holds the reverse name of MXAddress, served by Knot
// (unsigned), so that a scan with MXAddress as its sending IP finds a
// PTR record whose name resolves back to it (mx1 of every configured
// domain; Signed's is named).
const reverseZone = "8.8.8.in-addr.arpa"

// reverseRecords returns the reverse zone: MXAddress's PTR.
func reverseRecords() string {
	return soa + "8 PTR mx1." + Signed + ".\n"
}

// cnameZone is the zone of Loop and Chain, served by NSD.
const cnameZone = "cname.example.com"

// soa is the head of every zone: SOA, NS and the name server's address.
const soa = `$TTL 300
@ SOA ns hostmaster 1 3600 600 86400 300
@ NS ns
ns A 127.0.0.1
`

// configured returns the records of a fully configured mail domain at
// the zone apex (owner "@").
func configured(domain string) string {
	return soa + `@ MX 10 mx1
mx1 A ` + MXAddress + `
@ TXT "v=spf1 mx -all"
_dmarc TXT "v=DMARC1; p=reject; rua=mailto:dmarc-reports@` + domain + `"
_mta-sts TXT "v=STSv1; id=20261125T000000"
mta-sts A 127.0.0.1
_smtp._tls TXT "v=TLSRPTv1; rua=mailto:tls-reports@` + domain + `"
@ CAA 0 issue "letsencrypt.org"
`
}

// tlsaRecord is the DANE-EE TLSA record of a signed domain's mail server
// (the SHA-256 of a public key no server here has: the scanner never
// connects to a mail server).
const tlsaRecord = "_25._tcp.mx1 TLSA 3 1 1 8cb0fc6c527506a053f4f14c8464bebbd6dede2738d11468dd953d7d6a3021f1\n"

// daneOnly returns the records of DANEOnly: configured's without the
// MTA-STS announcement, with the TLSA record.
func daneOnly(domain string) string {
	var keep []string
	for _, line := range strings.SplitAfter(configured(domain), "\n") {
		if !strings.HasPrefix(line, "_mta-sts ") && !strings.HasPrefix(line, "mta-sts ") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "") + tlsaRecord
}

// policy returns the MTA-STS policy of a configured domain.
func policy(domain string) string {
	return "version: STSv1\nmode: enforce\nmx: mx1." + domain + "\nmax_age: 604800\n"
}

// cnameRecords returns the cname zone: the loop and the two chains.
func cnameRecords() string {
	return soa + "loop CNAME loop2\nloop2 CNAME loop\n" +
		chainRecords("chain", ChainLinks) + chainRecords("longchain", LongChainLinks)
}

// chainRecords returns links CNAMEs in a row from label to label-end,
// which holds MX, SPF and CAA; label's own subdomains hold DMARC, MTA-STS
// and TLS-RPT (cname zone-relative names).
func chainRecords(label string, links int) string {
	var b strings.Builder
	prev := label
	for i := 1; i < links; i++ {
		next := fmt.Sprintf("%s-link%d", label, i)
		fmt.Fprintf(&b, "%s CNAME %s\n", prev, next)
		prev = next
	}
	domain := label + "." + cnameZone
	end := label + "-end"
	fmt.Fprintf(&b, "%s CNAME %s\n", prev, end)
	fmt.Fprintf(&b, "%s MX 10 mx1.%s\nmx1.%s A %s\n", end, label, label, MXAddress)
	fmt.Fprintf(&b, "%s TXT \"v=spf1 mx -all\"\n%s CAA 0 issue \"letsencrypt.org\"\n", end, end)
	fmt.Fprintf(&b, "_dmarc.%s TXT \"v=DMARC1; p=reject; rua=mailto:dmarc-reports@%s\"\n", label, domain)
	fmt.Fprintf(&b, "_mta-sts.%s TXT \"v=STSv1; id=20261125T000000\"\nmta-sts.%s A 127.0.0.1\n", label, label)
	fmt.Fprintf(&b, "_smtp._tls.%s TXT \"v=TLSRPTv1; rua=mailto:tls-reports@%s\"\n", label, domain)
	return b.String()
}

// zoneFile writes a zone file named after origin into dir and returns its
// path.
func zoneFile(tb testing.TB, dir, origin, records string) string {
	tb.Helper()
	path := filepath.Join(dir, strings.TrimSuffix(origin, ".")+".zone")
	if origin == "." {
		path = filepath.Join(dir, "root.zone")
	}
	writeFile(tb, path, "$ORIGIN "+fqdn(origin)+"\n"+records)
	return path
}

// fqdn adds the trailing dot.
func fqdn(name string) string {
	if strings.HasSuffix(name, ".") {
		return name
	}
	return name + "."
}

// signed is a zone signed at test time.
type signed struct {
	file   string // the signed zone file
	anchor string // a trust-anchor file with the key-signing key's DNSKEY
}

// sign makes a key-signing and a zone-signing ECDSA P-256 key with
// ldns-keygen and signs the zone file with ldns-signzone. When expired is
// set the signatures are valid only in January 2020: a validating
// resolver finds them expired (bogus).
func sign(tb testing.TB, dir, origin, unsignedFile string, expired bool) signed {
	tb.Helper()
	kdir := filepath.Join(dir, "keys-"+origin)
	if err := os.MkdirAll(kdir, 0o700); err != nil {
		tb.Fatal(err)
	}
	ksk := strings.TrimSpace(run(tb, kdir, "ldns-keygen", "-a", "ECDSAP256SHA256", "-k", origin))
	zsk := strings.TrimSpace(run(tb, kdir, "ldns-keygen", "-a", "ECDSAP256SHA256", origin))
	out := unsignedFile + ".signed"
	args := []string{"-f", out, "-o", fqdn(origin)}
	if expired {
		args = append(args, "-i", "20200101", "-e", "20200201")
	}
	args = append(args, unsignedFile, filepath.Join(kdir, zsk), filepath.Join(kdir, ksk))
	run(tb, kdir, "ldns-signzone", args...)
	key, err := os.ReadFile(filepath.Join(kdir, ksk+".key"))
	if err != nil {
		tb.Fatal(err)
	}
	anchor := filepath.Join(dir, origin+".anchor")
	writeFile(tb, anchor, string(key))
	return signed{file: out, anchor: anchor}
}

// wrongRootAnchor writes a trust-anchor file for the root with a key the
// root zone never had, so that a resolver using it finds everything bogus.
func wrongRootAnchor(tb testing.TB, dir string) string {
	tb.Helper()
	kdir := filepath.Join(dir, "keys-root")
	if err := os.MkdirAll(kdir, 0o700); err != nil {
		tb.Fatal(err)
	}
	ksk := strings.TrimSpace(run(tb, kdir, "ldns-keygen", "-a", "ECDSAP256SHA256", "-k", "."))
	key, err := os.ReadFile(filepath.Join(kdir, ksk+".key"))
	if err != nil {
		tb.Fatal(err)
	}
	anchor := filepath.Join(dir, "root.wrong.anchor")
	writeFile(tb, anchor, string(key))
	return anchor
}
