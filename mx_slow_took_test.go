package mailauth

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestMXSlowSaysHowLong: an MX question that times out after 4 s is
// judged slow, and the MX check says the lookup waited over 4 s (time is
// the bubble's, not the machine's).
func TestMXSlowSaysHowLong(t *testing.T) {
	zone := dnstest.MustLoad(t, scanZone)
	synctest.Test(t, func(t *testing.T) {
		mem := dnstest.NewResolver(zone)
		r := resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
			if qtype == resolver.TypeMX && resolver.CanonicalName(name) == "good.example.com" {
				time.Sleep(4 * time.Second)
				return resolver.Fail(resolver.ReasonTimeout)
			}
			return mem.Lookup(ctx, name, qtype)
		})
		got, err := New(Config{Resolver: r}).Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
		require.NoError(t, err)
		c := checkOf(t, got, CheckMX)
		assert.Equal(t, UndeterminedSlow, c.Determination, "%+v", c)
		assert.Contains(t, c.Details.EN, "The lookup waited over 4 s")
	})
}
