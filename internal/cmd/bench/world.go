package main

import (
	"fmt"
	"strings"
)

// The bench's world: N distinct domains under example.org that share a
// few mail providers (big SPF include trees, MX hosts, DMARC and TLS-RPT
// report receivers), the way real domains share Google's or Microsoft's.
// Only the policy hosts (mta-sts.*) are ever connected to; they point at
// 127.0.0.1. The other addresses are data the checks read, never dialed.

// provider is a shared mail provider.
type provider struct {
	name    string   // apex, e.g. provider-a.example.net
	spf     string   // the name domains include
	mx      []string // MX hosts, preference order
	records []string // zone lines ($ORIGIN-free, absolute names)
}

// dkimKey is the base64 RSA-2048 public key every domain publishes (the
// same key as testdata/zones/scan.zone).
const dkimKey = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA4SJ0VpWbf9nn4fh+69yBjqcfyxve8ArB7CxPi4QqKyYTlK23yglZLyK0OztXBGJQecWvQ8p2ipMonO0Bvjh0tx0VODTsNl3oskM6FreExzONJvQfB/C28dQBxLHnGzZyZlfPuRaHYcQkuFvJmRMJYJd1k03uB/5OoivJ4kvZ6s7Uv6NDj2SluDSNRA0zXu6eYjNsdfC8AZx+BwvQOXAxhqBd9EzBVGzSGwuAefPIumMRNzB0TurPLBdJiCaSzAxRx2Fvcpr19mUgUGv0ertTsX4yr95Dq+YJPe2Mfm0RjPSzqbnqTJDwvirulowDn33kF0zLIWqeJJ8fo1oHJ9ZJSwIDAQAB"

// reportHost receives the DMARC and TLS-RPT reports of every domain; it
// authorizes them with a wildcard-free record per domain (RFC 9989 §4.6).
const reportHost = "reports.provider-c.example.net"

// txt formats a TXT record's text as quoted character-strings of at most
// 250 octets.
func txt(s string) string {
	var parts []string
	for len(s) > 250 {
		parts = append(parts, fmt.Sprintf("%q", s[:250]))
		s = s[250:]
	}
	parts = append(parts, fmt.Sprintf("%q", s))
	return strings.Join(parts, " ")
}

// ip4Terms returns n ip4 terms in a public block, numbered from base.
func ip4Terms(first, second, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, " ip4:%d.%d.%d.0/24", first, second, i)
	}
	return b.String()
}

// providers returns the shared providers: an SPF tree three levels deep
// with four netblock includes (like a large webmail provider), one two
// levels deep with ip6 ranges, one with a and mx mechanisms, and a small
// one-include sender.
func providers() []provider {
	a := provider{name: "provider-a.example.net", spf: "_spf.provider-a.example.net"}
	a.mx = []string{"aspmx.provider-a.example.net", "alt1.aspmx.provider-a.example.net", "alt2.aspmx.provider-a.example.net"}
	a.records = []string{
		"_spf.provider-a.example.net. TXT " + txt("v=spf1 include:_netblocks.provider-a.example.net include:_netblocks2.provider-a.example.net include:_netblocks3.provider-a.example.net ~all"),
		"_netblocks.provider-a.example.net. TXT " + txt("v=spf1"+ip4Terms(35, 190, 20)+" include:_netblocks4.provider-a.example.net ~all"),
		"_netblocks2.provider-a.example.net. TXT " + txt("v=spf1 ip6:2001:4860:4000::/36 ip6:2404:6800:4000::/36 ip6:2607:f8b0:4000::/36 ip6:2800:3f0:4000::/36 ~all"),
		"_netblocks3.provider-a.example.net. TXT " + txt("v=spf1"+ip4Terms(172, 217, 16)+" ~all"),
		"_netblocks4.provider-a.example.net. TXT " + txt("v=spf1"+ip4Terms(74, 125, 12)+" ~all"),
	}
	b := provider{name: "provider-b.example.net", spf: "spf.protection.provider-b.example.net"}
	b.mx = []string{"inbound.protection.provider-b.example.net"}
	b.records = []string{
		"spf.protection.provider-b.example.net. TXT " + txt("v=spf1"+ip4Terms(40, 92, 10)+" ip6:2a01:111:f400::/48 include:spfd.protection.provider-b.example.net -all"),
		"spfd.protection.provider-b.example.net. TXT " + txt("v=spf1"+ip4Terms(52, 100, 8)+" -all"),
	}
	c := provider{name: "provider-c.example.net", spf: "sendgrid.provider-c.example.net"}
	c.records = []string{
		"sendgrid.provider-c.example.net. TXT " + txt("v=spf1 ip4:167.89.0.0/17 ip4:208.117.48.0/20 a:relay.provider-c.example.net mx:provider-c.example.net ~all"),
		"relay.provider-c.example.net. A 167.89.1.1",
		"relay.provider-c.example.net. A 167.89.1.2",
		"provider-c.example.net. MX 10 mx.provider-c.example.net.",
		"mx.provider-c.example.net. A 167.89.2.1",
		"mx.provider-c.example.net. AAAA 2001:db8:c::1",
	}
	d := provider{name: "provider-d.example.net", spf: "servers.provider-d.example.net"}
	d.records = []string{
		"servers.provider-d.example.net. TXT " + txt("v=spf1"+ip4Terms(205, 201, 6)+" ~all"),
	}
	for i, h := range a.mx {
		a.records = append(a.records, fmt.Sprintf("%s. A 142.250.%d.26", h, i), fmt.Sprintf("%s. AAAA 2a00:1450:4000::%x", h, i+1))
	}
	b.records = append(b.records, b.mx[0]+". A 52.101.1.1", b.mx[0]+". A 52.101.1.2", b.mx[0]+". AAAA 2a01:111:f403::1")
	return []provider{a, b, c, d}
}

// domain is one generated domain and the request the bench sends for it.
type domain struct {
	name      string // the scanned name
	selector  string
	sendingIP string
	policy    string // MTA-STS policy text, served at mta-sts.<name>
}

// sendingIP is the public address of domain i's outbound server: data
// only (the PTR check reads DNS, it never connects).
func sendingIP(i int) (ip, reverse string) {
	a, b, c := 100+(i>>16)&0x7f, (i>>8)&0xff, i&0xff
	return fmt.Sprintf("193.%d.%d.%d", a, b, c), fmt.Sprintf("%d.%d.%d.193.in-addr.arpa", c, b, a)
}

// world returns the zone text of n domains and their requests.
func world(n int) (string, []domain) {
	var z strings.Builder
	z.WriteString("$TTL 3600\n")
	z.WriteString("example.org. 3600 SOA ns.example.org. hostmaster.example.org. 1 3600 600 86400 300\n")
	z.WriteString("example.org. 3600 CAA 0 issue \"letsencrypt.org\"\n")
	z.WriteString("example.net. 3600 SOA ns.example.net. hostmaster.example.net. 1 3600 600 86400 300\n")
	z.WriteString("193.in-addr.arpa. 3600 SOA ns.example.net. hostmaster.example.net. 1 3600 600 86400 300\n")
	provs := providers()
	for _, p := range provs {
		for _, r := range p.records {
			z.WriteString(r + "\n")
		}
	}
	writeDeepTree(&z)
	out := make([]domain, n)
	for i := range n {
		out[i] = writeDomain(&z, i, provs)
	}
	return z.String(), out
}

// deepTreeDomain is a domain whose SPF include tree has deepTreeTargets
// targets in four levels of records (its own, then 2, 8 and 40 include
// targets): four round trips when sibling subtrees are fetched together.
// It is not one of the scanned domains.
const (
	deepTreeDomain  = "deep.example.org"
	deepTreeTargets = 50
	deepTreeDepth   = 4
)

// writeDeepTree writes the records of deepTreeDomain's tree.
func writeDeepTree(z *strings.Builder) {
	fanout := []int{2, 4, 5}
	var level func(name, children string, depth int)
	level = func(name, children string, depth int) {
		if depth == len(fanout) {
			fmt.Fprintf(z, "%s. TXT %s\n", name, txt("v=spf1 ip4:192.0.2.0/24 ~all"))
			return
		}
		var terms []string
		for i := range fanout[depth] {
			child := fmt.Sprintf("n%d.%s", i, children)
			terms = append(terms, "include:"+child)
			level(child, child, depth+1)
		}
		fmt.Fprintf(z, "%s. TXT %s\n", name, txt("v=spf1 "+strings.Join(terms, " ")+" ~all"))
	}
	level(deepTreeDomain, "deep.example.net", 0)
}

// writeDomain writes the records of domain i. Every third domain is
// scanned at a subdomain that has no DMARC record of its own, so the
// DMARC tree walk climbs; every fourth runs its own MX host; half publish
// CAA themselves (the others inherit example.org's by climbing).
func writeDomain(z *strings.Builder, i int, provs []provider) domain {
	org := fmt.Sprintf("shop%d.example.org", i)
	name := org
	if i%3 == 0 {
		name = "news." + org
	}
	line := func(format string, args ...any) { fmt.Fprintf(z, format+"\n", args...) }
	mxProv := provs[i%2] // provider-a or provider-b receives its mail
	var mxHosts []string
	if i%4 == 3 {
		line("mail.%s. A 198.51.%d.%d", name, (i>>8)&0xff, i&0xff)
		line("mail.%s. AAAA 2001:db8:%x::25", name, i)
		mxHosts = []string{"mail." + name}
	} else {
		mxHosts = mxProv.mx
	}
	for p, h := range mxHosts {
		line("%s. MX %d %s.", name, 10*(p+1), h)
	}
	includes := []string{"include:" + mxProv.spf}
	for k := 2; k < len(provs); k++ {
		if i%(k+1) == 0 {
			includes = append(includes, "include:"+provs[k].spf)
		}
	}
	line("%s. TXT %s", name, txt("v=spf1 "+strings.Join(includes, " ")+" ~all"))
	line("_dmarc.%s. TXT %s", org, txt("v=DMARC1; p=reject; sp=quarantine; adkim=s; rua=mailto:dmarc@"+reportHost))
	line("%s._report._dmarc.%s. TXT \"v=DMARC1\"", org, reportHost)
	if name != org {
		line("%s._report._dmarc.%s. TXT \"v=DMARC1\"", name, reportHost)
	}
	line("s1._domainkey.%s. TXT %s", name, txt("v=DKIM1; k=rsa; p="+dkimKey))
	line("_mta-sts.%s. TXT \"v=STSv1; id=2026112%d\"", name, i%10)
	line("mta-sts.%s. A 127.0.0.1", name)
	line("_smtp._tls.%s. TXT %s", name, txt("v=TLSRPTv1; rua=mailto:tlsrpt@"+reportHost))
	if i%2 == 0 {
		line("%s. CAA 0 issue \"letsencrypt.org\"", name)
	}
	ip, rev := sendingIP(i)
	outbound := []string{fmt.Sprintf("o%d.outbound.%s", i, mxProv.name), fmt.Sprintf("mta%d.%s", i, name)}
	for _, h := range outbound {
		line("%s. PTR %s.", rev, h)
		line("%s. A %s", h, ip)
	}
	var pol strings.Builder
	pol.WriteString("version: STSv1\r\nmode: enforce\r\nmax_age: 604800\r\n")
	for _, h := range mxHosts {
		fmt.Fprintf(&pol, "mx: %s\r\n", h)
	}
	return domain{name: name, selector: "s1", sendingIP: ip, policy: pol.String()}
}
