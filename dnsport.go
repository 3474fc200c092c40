package mailauth

import (
	"net"
	"strings"

	"github.com/mailauth/mailauth/resolver"
)

// defaultDNSPort is the port of a Config.DNSServers entry that names none.
const defaultDNSPort = "53"

// withDNSPort returns servers with port 53 added to every entry that has
// no port: "9.9.9.9" and "[2620:fe::fe]" and "2620:fe::fe" become
// "9.9.9.9:53" and "[2620:fe::fe]:53"; "127.0.0.1:5353" stays. A
// DNS-over-TLS entry ("tls://host") gets port 853 instead.
func withDNSPort(servers []string) []string {
	if len(servers) == 0 {
		return servers
	}
	out := make([]string, 0, len(servers))
	for _, s := range servers {
		s = strings.TrimSpace(s)
		if rest, ok := strings.CutPrefix(s, resolver.TLSPrefix); ok {
			out = append(out, resolver.TLSPrefix+withPort(rest, resolver.DefaultTLSPort))
			continue
		}
		out = append(out, hostPort(s))
	}
	return out
}

// hostPort adds port 53 to a server address without a port.
func hostPort(s string) string { return withPort(s, defaultDNSPort) }

// withPort adds port to an address without one.
func withPort(s, port string) string {
	if _, _, err := net.SplitHostPort(s); err == nil {
		return s
	}
	host := strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	return net.JoinHostPort(host, port)
}
