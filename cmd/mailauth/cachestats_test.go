package main

import (
	"strings"
	"testing"
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
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v %v: error %v, want one naming %s", tc.args, tc.env, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v %v: %v", tc.args, tc.env, err)
			continue
		}
		if c.scan.DNSCacheBytes != tc.want {
			t.Errorf("%v %v: DNSCacheBytes %d, want %d", tc.args, tc.env, c.scan.DNSCacheBytes, tc.want)
		}
	}
}
