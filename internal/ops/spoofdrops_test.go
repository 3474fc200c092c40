package ops

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth/resolver"
)

// TestSpoofDropsMetric: mailauth_dns_spoof_drops_total carries every kind
// the resolver counts, zero or not, read at scrape time.
func TestSpoofDropsMetric(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		drops func() map[string]uint64
		icmp  string
	}{
		{"client", func() map[string]uint64 { return map[string]uint64{"icmp": 3, "wrong_case": 1} }, "3"},
		{"no-client", nil, "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMetrics("v1")
			m.SpoofDrops(tc.drops)
			srv := httptest.NewServer(AdminHandler(NewReadiness(), m))
			defer srv.Close()
			text := get(t, srv.URL+"/metrics")
			assert.Contains(t, text, "# TYPE mailauth_dns_spoof_drops_total counter")
			for _, kind := range resolver.SpoofDropKinds() {
				assert.Contains(t, text, `mailauth_dns_spoof_drops_total{kind="`+kind+`"} `, kind)
			}
			assert.Contains(t, text, `mailauth_dns_spoof_drops_total{kind="icmp"} `+tc.icmp+"\n")
		})
	}
}
