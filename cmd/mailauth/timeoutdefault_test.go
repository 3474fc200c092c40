package main

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/testlab"
)

// TestScanAndServeDefaultTimeout: with no -timeout, a local scan and a
// local sending-IP check give their lookups mailauth.DefaultScanTimeout,
// as serve's scans do (serve has no flag for it): each lookup's deadline
// lies DefaultScanTimeout after a moment within the call. The resolver of
// the parsed configuration is replaced by one that notes the deadlines;
// nothing else is.
func TestScanAndServeDefaultTimeout(t *testing.T) {
	t.Parallel()
	scan, err := parseScan([]string{"good.example.com"}, mapEnv(nil), &strings.Builder{})
	require.NoError(t, err)
	serve, err := parseServe(nil, mapEnv(map[string]string{"HOME": t.TempDir()}), &strings.Builder{})
	require.NoError(t, err)
	req := mailauth.ScanRequest{Domain: "good.example.com", DKIMSelector: "s1", SendingIP: "8.8.8.8"}
	calls := map[string]struct {
		cfg  mailauth.Config
		call func(context.Context, mailauth.Config) error
	}{
		"scan": {scan.cfg, func(ctx context.Context, cfg mailauth.Config) error {
			_, _, err := localScan(ctx, cfg, req)
			return err
		}},
		"scan -ip": {scan.cfg, func(ctx context.Context, cfg mailauth.Config) error {
			_, _, err := localPtr(ctx, cfg, netip.MustParseAddr("8.8.8.8"))
			return err
		}},
		"serve": {serve.scan, func(ctx context.Context, cfg mailauth.Config) error {
			_, err := mailauth.New(cfg).Scan(ctx, req)
			return err
		}},
	}
	for name, c := range calls {
		t.Run(name, func(t *testing.T) {
			rec := &testlab.Deadlines{}
			cfg := c.cfg
			cfg.Resolver = rec
			before := time.Now()
			require.NoError(t, c.call(t.Context(), cfg))
			rec.RequireWithin(t, before, time.Now(), mailauth.DefaultScanTimeout)
		})
	}
}
