package mtasts

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver/dnstest"
)

// BenchmarkCheckFetch measures a whole MTA-STS check of a passing domain:
// the TXT lookup, the host's addresses (in-memory resolver), a TCP
// connection, the TLS handshake (client and loopback server, both in this
// process) and the GET. "resumed" shares a session cache across checks,
// as a Scanner does, so that repeated checks of one host resume TLS.
func BenchmarkCheckFetch(b *testing.B) {
	z := dnstest.MustLoad(b, "testdata/mtasts.zone")
	var hosts []string
	for _, n := range z.Names() {
		if strings.HasPrefix(n, "mta-sts.") {
			hosts = append(hosts, n)
		}
	}
	srv := startPolicyServer(b, hosts)
	r := dnstest.NewResolver(z)
	for _, bc := range []struct {
		name     string
		sessions bool
	}{{"fresh", false}, {"resumed", true}} {
		b.Run(bc.name, func(b *testing.B) {
			opts := Options{Port: srv.Port, RootCAs: srv.CA.pool, AllowLoopback: true, Timeout: 5 * time.Second}
			if bc.sessions {
				opts.Sessions = NewSessionCache(16)
			}
			b.ReportAllocs()
			for b.Loop() {
				// Checked before testify is called: boxing the state would add allocations to the timed loop.
				if res := Check(context.Background(), r, "pass"+zoneSuffix, opts); res.FetchState != Fetched {
					require.Equal(b, Fetched, res.FetchState, "fetch state")
				}
			}
		})
	}
}
