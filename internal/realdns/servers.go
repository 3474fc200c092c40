package realdns

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// itoa is strconv.Itoa, short.
func itoa(n int) string { return strconv.Itoa(n) }

// zoneConf is one zone an authoritative server loads.
type zoneConf struct {
	origin string
	file   string
}

// startKnot runs knotd in the foreground on 127.0.0.1 with the zones and
// returns its address once it answers.
func startKnot(tb testing.TB, dir string, zones []zoneConf) string {
	tb.Helper()
	kdir := filepath.Join(dir, "knot")
	if err := os.MkdirAll(kdir, 0o700); err != nil {
		tb.Fatal(err)
	}
	port := freePort(tb)
	var b strings.Builder
	fmt.Fprintf(&b, "server:\n    rundir: %q\n    listen: 127.0.0.1@%d\n", kdir, port)
	fmt.Fprintf(&b, "database:\n    storage: %q\n", kdir)
	b.WriteString("log:\n  - target: stderr\n    any: notice\n")
	fmt.Fprintf(&b, "template:\n  - id: default\n    storage: %q\n    zonefile-sync: -1\n    journal-content: none\n", dir)
	b.WriteString("zone:\n")
	for _, z := range zones {
		fmt.Fprintf(&b, "  - domain: %q\n    file: %q\n", fqdn(z.origin), z.file)
	}
	conf := filepath.Join(kdir, "knot.conf")
	writeFile(tb, conf, b.String())
	daemon(tb, "knotd", "-c", conf)
	addr := net.JoinHostPort("127.0.0.1", itoa(port))
	waitAnswer(tb, addr, zones[0].origin)
	return addr
}

// startNSD runs nsd in the foreground on 127.0.0.1 with the zones and
// returns its address once it answers. NSD answers REFUSED for any zone
// it does not serve.
func startNSD(tb testing.TB, dir string, zones []zoneConf) string {
	tb.Helper()
	ndir := filepath.Join(dir, "nsd")
	if err := os.MkdirAll(ndir, 0o700); err != nil {
		tb.Fatal(err)
	}
	port := freePort(tb)
	var b strings.Builder
	fmt.Fprintf(&b, "server:\n    ip-address: 127.0.0.1@%d\n", port)
	b.WriteString("    username: \"\"\n    chroot: \"\"\n    database: \"\"\n    server-count: 1\n    verbosity: 1\n    hide-version: yes\n")
	fmt.Fprintf(&b, "    zonesdir: %q\n    pidfile: %q\n    xfrdfile: %q\n    zonelistfile: %q\n    xfrdir: %q\n",
		dir, filepath.Join(ndir, "nsd.pid"), filepath.Join(ndir, "xfrd.state"), filepath.Join(ndir, "zone.list"), ndir)
	b.WriteString("remote-control:\n    control-enable: no\n")
	for _, z := range zones {
		fmt.Fprintf(&b, "zone:\n    name: %q\n    zonefile: %q\n", fqdn(z.origin), z.file)
	}
	conf := filepath.Join(ndir, "nsd.conf")
	writeFile(tb, conf, b.String())
	daemon(tb, "nsd", "-d", "-c", conf)
	addr := net.JoinHostPort("127.0.0.1", itoa(port))
	waitAnswer(tb, addr, zones[0].origin)
	return addr
}

// stub is a stub zone of the resolver: the zone and the address of its
// name server.
type stub struct {
	zone string
	addr string
}

// unboundConf is what differs between the resolvers of a world.
type unboundConf struct {
	stubs    []stub
	anchors  []string // trust-anchor files
	insecure []string // domain-insecure zones
	// noValidation turns DNSSEC validation off (module-config
	// "iterator").
	noValidation bool
}

// startUnbound runs unbound in the foreground on 127.0.0.1 as a
// validating recursive resolver with the stub zones, and returns its
// address once it answers. Debian's defaults hold for everything not set
// here (discard-timeout 1900 ms among them).
func startUnbound(tb testing.TB, dir string, c unboundConf) string {
	tb.Helper()
	udir, err := os.MkdirTemp(dir, "unbound-")
	if err != nil {
		tb.Fatal(err)
	}
	port := freePort(tb)
	var b strings.Builder
	b.WriteString("server:\n")
	fmt.Fprintf(&b, "    interface: 127.0.0.1@%d\n    port: %d\n", port, port)
	fmt.Fprintf(&b, "    directory: %q\n", udir)
	for _, line := range []string{
		`do-daemonize: no`, `chroot: ""`, `username: ""`, `pidfile: ""`, `use-syslog: no`, `logfile: ""`,
		`verbosity: 1`, `val-log-level: 2`, `ede: yes`, `num-threads: 1`,
		`do-not-query-localhost: no`, `do-ip6: no`, `access-control: 127.0.0.0/8 allow`,
		`qname-minimisation: no`,
	} {
		b.WriteString("    " + line + "\n")
	}
	if c.noValidation {
		b.WriteString("    module-config: \"iterator\"\n")
	} else {
		b.WriteString("    module-config: \"validator iterator\"\n")
	}
	for _, a := range c.anchors {
		fmt.Fprintf(&b, "    trust-anchor-file: %q\n", a)
	}
	for _, z := range c.insecure {
		fmt.Fprintf(&b, "    domain-insecure: %q\n", fqdn(z))
	}
	b.WriteString("remote-control:\n    control-enable: no\n")
	for _, s := range c.stubs {
		host, p, err := net.SplitHostPort(s.addr)
		if err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintf(&b, "stub-zone:\n    name: %q\n    stub-addr: %s@%s\n", fqdn(s.zone), host, p)
	}
	conf := filepath.Join(udir, "unbound.conf")
	writeFile(tb, conf, b.String())
	daemon(tb, "unbound", "-d", "-c", conf)
	addr := net.JoinHostPort("127.0.0.1", itoa(port))
	waitAnswer(tb, addr, "example.com")
	return addr
}
