package resolver_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// flagsHandler answers every question NOERROR (an SOA at the root, no
// data elsewhere) with the RA and AD bits given, and counts the names
// asked.
func flagsHandler(ra, ad bool, asked chan<- string) dns.HandlerFunc {
	return func(w dns.ResponseWriter, r *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(r)
		m.RecursionAvailable, m.AuthenticatedData = ra, ad
		if asked != nil {
			asked <- r.Question[0].Name
		}
		_ = w.WriteMsg(m)
	}
}

// TestProbe: the RA bit of the replies says whether a server recurses,
// the AD bit whether it validates; every server must; a server that
// does not reply is left out, and none replying is ErrNoReply. The root
// and the names given are asked.
func TestProbe(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	asked := make(chan string, 16)
	validating := startHandler(t, flagsHandler(true, true, asked), false)
	plain := startHandler(t, flagsHandler(true, false, nil), false)
	authoritative := startHandler(t, flagsHandler(false, false, nil), false)
	dead := deadUDP(t)
	for _, tc := range []struct {
		name    string
		servers []string
		want    resolver.Properties
	}{
		{"validating", []string{validating}, resolver.Properties{Recursive: true, Validating: true}},
		{"not validating", []string{plain}, resolver.Properties{Recursive: true}},
		{"authoritative only", []string{authoritative}, resolver.Properties{}},
		{"one of two does not validate", []string{validating, plain}, resolver.Properties{Recursive: true}},
		{"a dead one is left out", []string{dead, validating}, resolver.Properties{Recursive: true, Validating: true}},
	} {
		c := &resolver.Client{Servers: tc.servers, Timeout: time.Second}
		got, err := c.Probe(ctx, "Example.COM.")
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, got, tc.name)
	}
	names := map[string]bool{}
	for len(asked) > 0 {
		names[<-asked] = true
	}
	assert.Equal(t, map[string]bool{".": true, "example.com.": true}, names)

	_, err := (&resolver.Client{Servers: []string{dead}}).Probe(ctx)
	assert.ErrorIs(t, err, resolver.ErrNoReply)
}

// TestProbeLab: the dnstest server plays a validating recursive resolver
// (the signed root's SOA comes with the AD bit), over UDP and over DNS
// over TLS, and one that does not validate when told so; the in-memory
// resolver a validating one unless told otherwise.
func TestProbeLab(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, dot := startDoT(t, "127.0.0.1")
	for name, c := range map[string]*resolver.Client{"udp": srv.Client(time.Second), "tls": dot} {
		got, err := c.Probe(ctx)
		require.NoError(t, err, name)
		assert.Equal(t, resolver.Properties{Recursive: true, Validating: true}, got, name)
	}
	srv.SetValidating(false)
	for name, c := range map[string]*resolver.Client{"udp": srv.Client(time.Second), "tls": dot} {
		got, err := c.Probe(ctx)
		require.NoError(t, err, name)
		assert.Equal(t, resolver.Properties{Recursive: true}, got, name)
	}
	mem := dnstest.NewResolver(zones(t))
	got, err := mem.Probe(ctx)
	require.NoError(t, err)
	assert.Equal(t, resolver.Properties{Recursive: true, Validating: true}, got)
	mem.SetProperties(resolver.Properties{Recursive: true})
	got, _ = mem.Probe(ctx)
	assert.False(t, got.Validating)
}

// deadUDP returns a loopback UDP address where nothing listens (the
// kernel answers ICMP port unreachable).
func deadUDP(t *testing.T) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := pc.LocalAddr().String()
	require.NoError(t, pc.Close())
	return addr
}
