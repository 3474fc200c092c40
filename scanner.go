package mailauth

import (
	"context"
	"crypto/x509"
	"errors"
	"net/netip"
	"time"

	"github.com/mailauth/mailauth/resolver"
)

// DefaultScanTimeout bounds one scan (issue #6).
const DefaultScanTimeout = 15 * time.Second

// Config configures a Scanner. The zero value is usable: it resolves
// through the servers of /etc/resolv.conf and fetches MTA-STS policies on
// port 443 with the system roots.
type Config struct {
	// Resolver answers DNS questions. nil means a resolver.Client over
	// DNSServers.
	Resolver resolver.Resolver
	// DNSServers are "host:port" recursive resolvers for the default
	// Resolver; empty means /etc/resolv.conf.
	DNSServers []string
	// HTTPSPort is the port of the MTA-STS policy fetch (lab use); 0 = 443.
	HTTPSPort int
	// RootCAs are the roots trusted by the MTA-STS fetch; nil = system roots.
	RootCAs *x509.CertPool
	// AllowLoopbackTargets lets the MTA-STS fetch reach 127.0.0.0/8 and ::1
	// (lab and test use only). No setting admits any other non-public range.
	AllowLoopbackTargets bool
	// ScanTimeout bounds a whole scan; 0 = DefaultScanTimeout.
	ScanTimeout time.Duration
	// QueryBudget bounds the distinct DNS questions of one scan;
	// 0 = resolver.DefaultBudget.
	QueryBudget int
	// Now is the clock; nil = time.Now.
	Now func() time.Time
}

// Scanner runs scans. It is safe for concurrent use.
type Scanner struct {
	cfg Config
}

// New returns a Scanner for cfg.
func New(cfg Config) *Scanner {
	if cfg.Resolver == nil {
		cfg.Resolver = &resolver.Client{Servers: cfg.DNSServers}
	}
	if cfg.ScanTimeout <= 0 {
		cfg.ScanTimeout = DefaultScanTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Scanner{cfg: cfg}
}

var errNotImplemented = errors.New("mailauth: scanner not implemented yet")

// Scan runs the eight checks for req. The error is an *InputError for an
// invalid request or ErrResolverUnavailable when no DNS server answered.
func (s *Scanner) Scan(ctx context.Context, req ScanRequest) (ScanSummary, error) {
	return ScanSummary{}, errNotImplemented
}

// CheckIP checks the PTR records of one public sending IP and their
// forward confirmation. The error is an *InputError for a non-public
// address or ErrResolverUnavailable when no DNS server answered.
func (s *Scanner) CheckIP(ctx context.Context, ip netip.Addr) (PtrCheckSummary, error) {
	return PtrCheckSummary{}, errNotImplemented
}
