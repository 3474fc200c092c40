package mailauth

import (
	"net"
	"strings"
)

// defaultDNSPort is the port of a Config.DNSServers entry that names none.
const defaultDNSPort = "53"

// withDNSPort returns servers with port 53 added to every entry that has
// no port: "9.9.9.9" and "[2620:fe::fe]" and "2620:fe::fe" become
// "9.9.9.9:53" and "[2620:fe::fe]:53"; "127.0.0.1:5353" stays.
func withDNSPort(servers []string) []string {
	if len(servers) == 0 {
		return servers
	}
	out := make([]string, 0, len(servers))
	for _, s := range servers {
		out = append(out, hostPort(strings.TrimSpace(s)))
	}
	return out
}

// hostPort adds port 53 to a server address without a port.
func hostPort(s string) string {
	if _, _, err := net.SplitHostPort(s); err == nil {
		return s
	}
	host := strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	return net.JoinHostPort(host, defaultDNSPort)
}
