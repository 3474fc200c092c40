package mtasts

import (
	"context"
	"crypto/x509"
	"net"
	"net/netip"
	"time"

	"github.com/mailauth/mailauth/internal/ipclass"
)

// Defaults of the policy fetch.
const (
	// DefaultPort is the HTTPS port of the policy host (RFC 8461 §3.3).
	DefaultPort = 443
	// DefaultTimeout bounds the whole fetch: the policy host's address
	// lookups, the connection, the TLS handshake and the HTTP exchange.
	// RFC 8461 §3.3 suggests up to a minute for senders; a diagnosis can
	// be shorter.
	DefaultTimeout = 10 * time.Second
	// DefaultConnectTimeout bounds one TCP connection attempt.
	DefaultConnectTimeout = 5 * time.Second
)

// DialFunc opens a network connection, like net.Dialer.DialContext.
type DialFunc func(ctx context.Context, network, address string) (net.Conn, error)

// Options configures the policy fetch of Check. The zero value is the
// production configuration: port 443, the system roots, public addresses
// only. Nothing here is a package global; every dependency is injected.
type Options struct {
	// Port is the TCP port of the policy host; 0 (or a value outside
	// 1..65535) means DefaultPort. Lab
	// and test use only (doc/design.md §4, -https-port).
	Port int
	// RootCAs are the roots trusted for the policy host's certificate; nil
	// means the system roots. Lab and test use only (-ca-file).
	RootCAs *x509.CertPool
	// AllowLoopback admits 127.0.0.0/8 and ::1 as fetch targets. It admits
	// nothing else: private, link-local, CGNAT and every other non-public
	// range stay refused whatever the options. Lab and test use only
	// (-allow-loopback-targets).
	AllowLoopback bool
	// Timeout bounds the whole fetch; 0 means DefaultTimeout. The caller's
	// context deadline applies too.
	Timeout time.Duration
	// Begun, when set, is when the fetch's Timeout starts: the moment a
	// caller began the policy host's A and AAAA questions ahead of Check
	// (bounded by Deadline(Begun)), so that the fetch, its address
	// lookups included, ends when it would had Check asked them itself.
	// Zero: when Check reaches the fetch.
	Begun time.Time
	// ConnectTimeout bounds one TCP connection attempt; 0 means
	// DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// Dial opens the TCP connection to an address that already passed the
	// address guard; it is always called with an IP literal and a port,
	// never a name. nil means a net.Dialer. Tests plug in a recording
	// dialer here to prove refused addresses are never dialed.
	Dial DialFunc
	// Observe, when set, is called with every sensitive value the fetch
	// sees outside the resolver: the policy host name and URL, a redirect
	// target, the policy body, each non-empty policy line and each mx
	// pattern. The redaction guard uses it to prove none of them reaches
	// the output. It must be safe for concurrent use.
	Observe func(value string)
	// Progress, when set, is called at each step of the policy fetch
	// that got something from the policy server: the TCP connection
	// established, and every read from it that returned bytes (the TLS
	// handshake's records, the response's headers and body). Whoever runs
	// the check can so tell a fetch that is moving from one whose server
	// has sent nothing for a while. It must be safe for concurrent use and
	// not block.
	Progress func()
	// Sessions, when set, keeps TLS sessions across fetches so that a
	// host fetched again resumes TLS (see SessionCache); nil means a full
	// handshake every time.
	Sessions *SessionCache
}

func (o Options) port() int {
	if o.Port > 0 && o.Port <= 65535 {
		return o.Port
	}
	return DefaultPort
}

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

// Deadline returns when a fetch with these options whose Timeout starts
// at start ends: the bound of the policy host's questions a caller
// begins at start ahead of Check (see Begun).
func (o Options) Deadline(start time.Time) time.Time { return start.Add(o.timeout()) }

func (o Options) connectTimeout() time.Duration {
	if o.ConnectTimeout > 0 {
		return o.ConnectTimeout
	}
	return DefaultConnectTimeout
}

func (o Options) dial() DialFunc {
	if o.Dial != nil {
		return o.Dial
	}
	var d net.Dialer
	return d.DialContext
}

// progress calls Progress when set.
func (o Options) progress() {
	if o.Progress != nil {
		o.Progress()
	}
}

func (o Options) observe(v string) {
	if o.Observe != nil && v != "" {
		o.Observe(v)
	}
}

// Permitted reports whether the fetch may connect to addr: a public
// address (internal/ipclass, doc/rfc-notes.md §10), or a loopback
// address when AllowLoopback is set. IPv4-mapped IPv6 addresses are judged
// as the IPv4 address they carry; zoned addresses are never permitted.
func (o Options) Permitted(addr netip.Addr) bool {
	if ipclass.IsPublic(addr) {
		return true
	}
	return o.AllowLoopback && ipclass.IsLoopback(addr)
}
