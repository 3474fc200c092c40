package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestServeDNSCacheFlag: -dns-cache-mb sizes the shared DNS cache, with
// MAILAUTH_DNS_CACHE_MB as fallback and 0 to turn it off; out-of-range
// values are refused.
func TestServeDNSCacheFlag(t *testing.T) {
	tests := []struct {
		args    []string
		env     map[string]string
		want    int
		wantErr string
	}{
		{nil, nil, defaultDNSCacheMB << 20, ""},
		{[]string{"-dns-cache-mb", "0"}, nil, 0, ""},
		{nil, map[string]string{"MAILAUTH_DNS_CACHE_MB": "8"}, 8 << 20, ""},
		{[]string{"-dns-cache-mb", "1"}, map[string]string{"MAILAUTH_DNS_CACHE_MB": "8"}, 1 << 20, ""},
		{[]string{"-dns-cache-mb", "-1"}, nil, 0, "-dns-cache-mb"},
		{[]string{"-dns-cache-mb", "999999"}, nil, 0, "-dns-cache-mb"},
	}
	for _, tc := range tests {
		env := map[string]string{"HOME": "/home/u"} // the default -storage needs a state directory
		for k, v := range tc.env {
			env[k] = v
		}
		c, err := parseServe(tc.args, mapEnv(env), &strings.Builder{})
		if tc.wantErr != "" {
			if assert.Error(t, err, "%v %v: want one naming %s", tc.args, tc.env, tc.wantErr) {
				assert.Contains(t, err.Error(), tc.wantErr, "%v %v: error %v, want one naming %s", tc.args, tc.env, err, tc.wantErr)
			}
			continue
		}
		if !assert.NoError(t, err, "%v %v", tc.args, tc.env) {
			continue
		}
		assert.Equal(t, tc.want, c.scan.DNSCacheBytes, "%v %v: DNSCacheBytes", tc.args, tc.env)
	}
}
