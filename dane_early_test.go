package mailauth

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestMXDANEEarlyAtOnce: the MX check's DANE lookups add no round trip:
// the exchange's TLSA question is asked while its address questions are
// still unanswered, and both checks' results are those of the zone.
func TestMXDANEEarlyAtOnce(t *testing.T) {
	zone := dnstest.MustLoad(t, scanZone)
	synctest.Test(t, func(t *testing.T) {
		mem := dnstest.NewResolver(zone)
		release := make(chan struct{})
		var mu sync.Mutex
		asked := map[string]bool{}
		r := resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
			key := resolver.CanonicalName(name) + "/" + qtype.String()
			switch key {
			case "mx1.good.example.com/A", "mx1.good.example.com/AAAA", "_25._tcp.mx1.good.example.com/TLSA":
				mu.Lock()
				asked[key] = true
				mu.Unlock()
				<-release
			}
			return mem.Lookup(ctx, name, qtype)
		})
		type scanned struct {
			sum ScanSummary
			err error
		}
		got := make(chan scanned, 1)
		go func() {
			sum, err := New(Config{Resolver: r}).Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
			got <- scanned{sum, err}
		}()
		synctest.Wait()
		mu.Lock()
		assert.True(t, asked["_25._tcp.mx1.good.example.com/TLSA"], "TLSA asked before the exchange's addresses were answered: %v", asked)
		assert.True(t, asked["mx1.good.example.com/A"], "A: %v", asked)
		assert.True(t, asked["mx1.good.example.com/AAAA"], "AAAA: %v", asked)
		mu.Unlock()
		close(release)
		s := <-got
		require.NoError(t, s.err)
		c := checkOf(t, s.sum, CheckMX)
		assert.Equal(t, StatusPass, c.Status, "%+v", c)
		assert.NotContains(t, c.Details.EN, "DANE", "no TLSA records: nothing said of DANE")
	})
}

// TestDANEAsksNoTLSAForAnIPLiteral: an exchange written as an IP address
// is no mail server a sender connects to: its TLSA name is never asked,
// and the DANE facts count only the exchange that is a host name.
func TestDANEAsksNoTLSAForAnIPLiteral(t *testing.T) {
	zone := dnstest.MustParse(t, `$ORIGIN lit.example.com.
@ MX 10 192.0.2.1.
@ MX 20 mx
mx A 127.0.0.1
_25._tcp.mx TLSA 3 1 1 8cb0fc6c527506a053f4f14c8464bebbd6dede2738d11468dd953d7d6a3021f1
`)
	r := dnstest.NewResolver(zone)
	sum, err := New(Config{Resolver: r}).Scan(context.Background(), ScanRequest{Domain: "lit.example.com"})
	require.NoError(t, err)
	assert.Zero(t, r.Count("_25._tcp.192.0.2.1", resolver.TypeTLSA), "TLSA asked for the IP literal")
	assert.Equal(t, 1, r.Count("_25._tcp.mx.lit.example.com", resolver.TypeTLSA), "TLSA of the host name")
	c := checkOf(t, sum, CheckMX)
	assert.Contains(t, c.Details.EN, mxFactDANE.format(0, 1).EN, "the DANE facts count the host name alone (its TLSA is not usable: the MX answer is not validated)")
}
