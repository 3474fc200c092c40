package mailauth

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestDNSSECTextsNeedValidation: through a resolver found not to
// validate, no verdict speaks of DNSSEC: an AD bit passed on proves
// nothing (the MX details say nothing of it), and a DNSSEC failure it
// reports anyway leaves the check undetermined; the same scan through a
// validating one says both.
func TestDNSSECTextsNeedValidation(t *testing.T) {
	for _, validating := range []bool{true, false} {
		mem := dnstest.NewResolver(dnstest.MustLoad(t, scanZone))
		mem.SetProperties(resolver.Properties{Recursive: true, Validating: validating})
		mem.SetFault("_dmarc.good.example.com", resolver.TypeTXT, dnstest.Bogus)
		r := &adResolver{Resolver: mem}
		got, err := New(Config{Resolver: r}).Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
		require.NoError(t, err)
		mx, dmarc := checkOf(t, got, CheckMX), checkOf(t, got, CheckDMARC)
		assert.Equal(t, validating, contains(mx.Details.EN, txtDNSSECValidated.en), "validating %v: %q", validating, mx.Details.EN)
		assert.Equal(t, validating, contains(mx.Details.ZH, txtDNSSECValidated.zh), "validating %v", validating)
		if validating {
			assert.Equal(t, faultRules[faultDNSSEC][0].say.format(), dmarc.Summary)
			assert.Equal(t, DNSFaultDNSSEC, dmarc.DNSFault)
			continue
		}
		assert.True(t, dmarc.Undetermined(), "%+v", dmarc)
		assert.Equal(t, NoDNSFault, dmarc.DNSFault)
		for _, c := range got.Checks {
			assert.NotContains(t, c.Summary.EN+c.Details.EN, "DNSSEC", "%s speaks of DNSSEC", c.ID)
		}
	}
}

// adResolver is a Prober (its Resolver's) whose found answers carry the
// AD bit.
type adResolver struct{ *dnstest.Resolver }

func (r *adResolver) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	a := r.Resolver.Lookup(ctx, name, qtype)
	a.Authentic = a.Outcome == resolver.Found
	return a
}

// TestNotRecursiveRefused: a resolver found not to recurse (an
// authoritative-only server) fails every scan and IP check with
// ErrResolverNotRecursive, which is an ErrResolverUnavailable, before
// any check runs.
func TestNotRecursiveRefused(t *testing.T) {
	mem := dnstest.NewResolver(dnstest.MustLoad(t, scanZone))
	mem.SetProperties(resolver.Properties{})
	s := New(Config{Resolver: mem})
	_, err := s.Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
	require.ErrorIs(t, err, ErrResolverNotRecursive)
	assert.ErrorIs(t, err, ErrResolverUnavailable)
	assert.Empty(t, mem.Queries(), "no check ran")
	_, err = s.CheckIP(context.Background(), mustAddr(t, "8.8.8.8"))
	assert.ErrorIs(t, err, ErrResolverNotRecursive)
}

// countingProber counts its probes and answers them as told.
type countingProber struct {
	resolver.Resolver
	probes atomic.Int32
	fail   atomic.Bool
}

func (p *countingProber) Probe(ctx context.Context, _ ...string) (resolver.Properties, error) {
	p.probes.Add(1)
	if p.fail.Load() {
		return resolver.Properties{}, errors.New("no reply")
	}
	return resolver.Properties{Recursive: true, Validating: true}, nil
}

// TestResolverPropertiesCached: the properties are asked once and kept
// for the scans that follow; a failed probe is not asked again at once,
// and leaves them unknown (DNSSEC not spoken of).
func TestResolverPropertiesCached(t *testing.T) {
	mem := dnstest.NewResolver(dnstest.MustLoad(t, scanZone))
	p := &countingProber{Resolver: mem}
	s := New(Config{Resolver: p})
	for range 3 {
		_, err := s.Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
		require.NoError(t, err)
	}
	assert.Equal(t, int32(1), p.probes.Load())
	got, known := s.ResolverProperties(context.Background())
	assert.True(t, known)
	assert.Equal(t, resolver.Properties{Recursive: true, Validating: true}, got)

	failing := &countingProber{Resolver: mem}
	failing.fail.Store(true)
	s = New(Config{Resolver: failing})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for range 3 {
		_, known := s.ResolverProperties(ctx)
		assert.False(t, known)
	}
	assert.Equal(t, int32(1), failing.probes.Load(), "a failed probe is not asked again within propsRetry")
}
