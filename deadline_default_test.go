package mailauth

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/testlab"
)

// TestScanDefaultDeadline: with no ScanTimeout, a scan and a sending-IP
// check give their lookups DefaultScanTimeout from when they began: each
// lookup's deadline lies between the call's start and its end, plus
// DefaultScanTimeout (bounds read from the clock around the call, so a
// loaded machine moves them, never the verdict).
func TestScanDefaultDeadline(t *testing.T) {
	t.Parallel()
	calls := map[string]func(*Scanner) error{
		"scan": func(s *Scanner) error {
			_, err := s.Scan(context.Background(), ScanRequest{Domain: "good.example.com", DKIMSelector: "s1", SendingIP: "8.8.8.8"})
			return err
		},
		"sending IP": func(s *Scanner) error {
			_, err := s.CheckIP(context.Background(), netip.MustParseAddr("8.8.8.8"))
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			requireDefaultDeadline(t, Config{}, call)
		})
	}
}

// requireDefaultDeadline runs call on a Scanner of cfg whose resolver
// notes its lookups' deadlines (cfg's own resolver replaced), and
// requires that each lies DefaultScanTimeout after a moment within the
// call.
func requireDefaultDeadline(t *testing.T, cfg Config, call func(*Scanner) error) {
	t.Helper()
	rec := &testlab.Deadlines{}
	cfg.Resolver = rec
	s := New(cfg)
	before := time.Now()
	require.NoError(t, call(s))
	rec.RequireWithin(t, before, time.Now(), DefaultScanTimeout)
}
