package main

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"runtime"
	"runtime/debug"

	"github.com/mailauth/mailauth/resolver"
)

// What a new user needs to see in the first minutes: the version, where
// to open the page, which DNS servers answer, and what to try when none
// does.

// dnsHint ends the error of a scan whose resolver was unavailable.
const dnsHint = "check the network, or name a reachable recursive resolver with -dns (for example -dns 9.9.9.9 or -dns 1.1.1.1,8.8.8.8)"

// versionText is the output of `mailauth -version`: the module version
// (or "devel"), the VCS revision when the build recorded one, and the Go
// version.
func versionText() string {
	v, rev := "devel", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				rev = " " + s.Value[:12]
			}
		}
	}
	return fmt.Sprintf("mailauth %s%s %s\n", v, rev, runtime.Version())
}

// printVersion writes versionText to w.
func printVersion(w io.Writer) int {
	fmt.Fprint(w, versionText())
	return exitOK
}

// pageURL is the address to open in a browser for a listener bound to
// addr: an unspecified host (0.0.0.0, ::) becomes the loopback address.
func pageURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr + "/"
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip.Is6() {
			host = "::1"
		}
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}

// dnsServersInUse are the resolvers a scanner configured with servers
// asks: servers itself, else the nameservers of /etc/resolv.conf.
func dnsServersInUse(servers []string) (list []string, source string) {
	if len(servers) > 0 {
		return servers, "-dns"
	}
	return resolver.SystemServers(), "/etc/resolv.conf"
}

// logDNSServers logs which resolvers the service uses, and warns when
// there are none.
func logDNSServers(servers []string, logger *slog.Logger) {
	list, source := dnsServersInUse(servers)
	if len(list) == 0 {
		logger.Warn("no DNS servers configured: every scan will fail; " + dnsHint)
		return
	}
	logger.Info("DNS servers", slog.Any("servers", list), slog.String("from", source))
}
