package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"maps"
	"math/big"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/httpapi"
)

func mapEnv(m map[string]string) env { return func(k string) string { return m[k] } }

func TestServeDefaults(t *testing.T) {
	t.Parallel()
	c, err := parseServe(nil, mapEnv(map[string]string{"HOME": "/home/u"}), &strings.Builder{})
	require.NoError(t, err)
	assert.Equal(t, "sqlite:/home/u/.local/state/mailauth/analytics.db", c.storage, "analytics defaults: %+v", c)
	assert.Equal(t, 30, int(c.analytics.retention), "analytics defaults: %+v", c)
	assert.Equal(t, "web,cli,api,docs,github,newsletter", strings.Join(c.analytics.labels, ","), "analytics defaults: %+v", c)
	xdg, _ := parseServe(nil, mapEnv(map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "/st"}), &strings.Builder{})
	assert.Equal(t, "sqlite:/st/mailauth/analytics.db", xdg.storage, "XDG_STATE_HOME: storage")
	sd, _ := parseServe(nil, mapEnv(map[string]string{"HOME": "/home/u", "STATE_DIRECTORY": "/var/lib/mailauth:/var/lib/other"}), &strings.Builder{})
	assert.Equal(t, "sqlite:/var/lib/mailauth/analytics.db", sd.storage, "STATE_DIRECTORY: storage")
	assert.Equal(t, "127.0.0.1:8080", c.listen, "defaults: %+v", c)
	assert.Equal(t, "memory", c.rateLimit, "defaults: %+v", c)
	assert.Equal(t, 30, c.rateLimitMax, "defaults: %+v", c)
	assert.Equal(t, httpapi.DefaultMaxInFlight, c.maxInFlight, "defaults: %+v", c)
	assert.Equal(t, 512, c.maxInFlight, "the default the docs' arithmetic is made for")
	assert.Equal(t, 443, c.scanner.httpsPort, "defaults: %+v", c)
	assert.Equal(t, 443, c.scan.HTTPSPort, "defaults: %+v", c)
	assert.False(t, c.scanner.allowLoopback, "defaults: %+v", c)
	assert.Empty(t, c.proxies, "defaults: %+v", c)
	assert.Nil(t, c.scan.DNSServers, "defaults: %+v", c)
	assert.Nil(t, c.scan.RootCAs, "defaults: %+v", c)
}

func TestServeEnvAndFlags(t *testing.T) {
	t.Parallel()
	e := mapEnv(map[string]string{
		"MAILAUTH_LISTEN":                 "127.0.0.1:9000",
		"MAILAUTH_DNS":                    "1.1.1.1, [2606:4700:4700::1111]:5353,9.9.9.9:53",
		"MAILAUTH_RATELIMIT":              "redis://127.0.0.1:6379/2",
		"MAILAUTH_RATE_LIMIT_MAX":         "12",
		"MAILAUTH_TRUSTED_PROXIES":        "10.0.0.0/8, 192.0.2.1,::ffff:198.51.100.1",
		"MAILAUTH_ANALYTICS_SECRET":       "s3cret-s3cret-s3cret",
		"MAILAUTH_HTTPS_PORT":             "8443",
		"MAILAUTH_ALLOW_LOOPBACK_TARGETS": "true",
		"MAILAUTH_MAX_INFLIGHT":           "8",
		"MAILAUTH_STORAGE":                "none",
	})
	c, err := parseServe([]string{"-rate-limit-max", "7", "-listen=127.0.0.1:9100"}, e, &strings.Builder{})
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:9100", c.listen, "flags must win over env: listen")
	assert.Equal(t, 7, c.rateLimitMax, "flags must win over env: max")
	wantDNS := []string{"1.1.1.1:53", "[2606:4700:4700::1111]:5353", "9.9.9.9:53"}
	assert.Equal(t, wantDNS, c.scan.DNSServers, "dns")
	wantProxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.1/32"), netip.MustParsePrefix("198.51.100.1/32")}
	assert.Equal(t, wantProxies, c.proxies, "proxies")
	assert.Equal(t, "redis://127.0.0.1:6379/2", c.rateLimit, "env not applied: %+v", c)
	assert.Equal(t, "s3cret-s3cret-s3cret", c.analyticsSecret, "env not applied: %+v", c)
	assert.Equal(t, 8443, c.scan.HTTPSPort, "env not applied: %+v", c)
	assert.True(t, c.scan.AllowLoopbackTargets, "env not applied: %+v", c)
	assert.Equal(t, 8, c.maxInFlight, "env not applied: %+v", c)
}

func TestServeInvalid(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"-storage", "mysql://x"}, nil, "must be none, sqlite:PATH or postgres://"},
		{[]string{"-storage", "sqlite:"}, nil, "no state directory"},
		{nil, map[string]string{"HOME": ""}, "no state directory"}, // no HOME, no XDG_STATE_HOME
		{[]string{"-storage", "none", "-source-labels", "web,Bad"}, nil, "-source-labels"},
		{[]string{"-storage", "none", "-retention", "0d"}, nil, "-retention"},
		{[]string{"-storage", "none", "-retention", "soon"}, nil, "-retention"},
		{[]string{"-ratelimit", "memcached"}, nil, "-ratelimit"},
		{[]string{"-rate-limit-max", "0"}, nil, "-rate-limit-max"},
		{[]string{"-max-inflight", "-1"}, nil, "-max-inflight"},
		{[]string{"-listen", "8080"}, nil, "-listen"},
		{[]string{"-trusted-proxies", "proxy.example"}, nil, "-trusted-proxies"},
		{[]string{"-dns", "dns.google"}, nil, "-dns"},
		{[]string{"-dns", "1.1.1.1:0"}, nil, "-dns"},
		{[]string{"-https-port", "70000"}, nil, "-https-port"},
		{[]string{"-ca-file", "/nonexistent/ca.pem"}, nil, "-ca-file"},
		{nil, map[string]string{"MAILAUTH_RATE_LIMIT_MAX": "many"}, "MAILAUTH_RATE_LIMIT_MAX"},
		{nil, map[string]string{"MAILAUTH_STORAGE": "sqlite"}, "must be none, sqlite:PATH"},
		{[]string{"-analytics-secret", "short"}, nil, "at least 16 bytes"},
		{[]string{"-storage", "none", "-ratelimit", "redis://127.0.0.1:6379"}, nil, "needs -analytics-secret"},
		{[]string{"extra"}, nil, "no arguments"},
	}
	for _, tc := range cases {
		e := map[string]string{"HOME": "/home/u"}
		maps.Copy(e, tc.env)
		_, err := parseServe(tc.args, mapEnv(e), &strings.Builder{})
		if assert.Error(t, err, "%v %v: want an error containing %q", tc.args, tc.env, tc.want) {
			assert.Contains(t, err.Error(), tc.want, "%v %v", tc.args, tc.env)
		}
	}
	_, err := parseServe([]string{"-nope"}, mapEnv(nil), &strings.Builder{})
	assert.ErrorIs(t, err, errUsage, "unknown flag")
}

// TestHelpDocumentsFlagsAndEnv: -h exits 0 and lists every flag with its
// environment variable.
func TestHelpDocumentsFlagsAndEnv(t *testing.T) {
	t.Parallel()
	for cmd, flags := range map[string][]string{
		"serve": serveFlagNames,
		"scan":  append([]string{"json", "v", "selector", "ip"}, clientEnvNames...),
		"ptr":   append([]string{"json", "v"}, clientEnvNames...),
	} {
		var out, errOut strings.Builder
		code := run(t.Context(), []string{cmd, "-h"}, mapEnv(nil), stdio{out: &out, err: &errOut})
		help := out.String() // asked-for help goes to standard output
		assert.Zero(t, errOut.Len(), "%s -h wrote to stderr: %q", cmd, errOut.String())
		assert.Equal(t, exitOK, code, "%s -h: exit", cmd)
		for _, f := range flags {
			if hiddenFlags[cmd][f] { // accepted, does nothing for cmd
				continue
			}
			assert.Contains(t, help, "-"+f, "%s -h lacks -%s", cmd, f)
		}
		envs := clientEnvNames
		if cmd == "serve" {
			envs = serveFlagNames
		}
		for _, f := range envs {
			if hiddenFlags[cmd][f] {
				continue
			}
			assert.Contains(t, help, envName(f), "%s -h lacks %s", cmd, envName(f))
		}
		if cmd == "serve" {
			assert.Contains(t, help, "~/.local/state", "serve -h must say where the default SQLite file lives")
		}
	}
}

func TestScanArgs(t *testing.T) {
	t.Parallel()
	c, err := parseScan([]string{"example.com", "-json", "-selector", "s1", "-ip=8.8.8.8", "-v"}, mapEnv(nil), &strings.Builder{})
	require.NoError(t, err)
	assert.Equal(t, []string{"example.com"}, c.domains, "%+v", c)
	assert.True(t, c.json, "%+v", c)
	assert.Equal(t, formatJSON, c.format, "%+v", c)
	assert.Equal(t, "s1", c.selector, "%+v", c)
	assert.Equal(t, "8.8.8.8", c.ip, "%+v", c)
	assert.True(t, c.verbose, "%+v", c)
	assert.Equal(t, "en", c.lang, "%+v", c)
	c, err = parseScan([]string{"-server", "http://127.0.0.1:8080/", "--", "-weird.example"}, mapEnv(nil), &strings.Builder{})
	if assert.NoError(t, err, "after --") {
		assert.Equal(t, []string{"-weird.example"}, c.domains, "after --: %+v", c)
		assert.Equal(t, "http://127.0.0.1:8080/", c.server, "after --: %+v", c)
	}
	for _, args := range [][]string{nil, {"-lang", "fr", "a.example"}, {"-format", "xml", "a.example"}, {"-json", "-format", "csv", "a.example"},
		{"-records", "-server", "http://127.0.0.1:8080", "a.example"}, {"-records", "-format", "json", "a.example"}, {"-timeout", "-1s", "a.example"},
		{"-server", "ftp://x", "a.example"}, {"-server", "http://u:p@x", "a.example"}, {"-server", "http://x?q", "a.example"}} {
		_, err := parseScan(args, mapEnv(nil), &strings.Builder{})
		assert.Error(t, err, "%q accepted", args)
	}
	p, err := parsePtr([]string{"-json", "8.8.8.8"}, mapEnv(map[string]string{"MAILAUTH_SERVER": "https://mailauth.example"}), &strings.Builder{})
	if assert.NoError(t, err, "ptr") {
		assert.Equal(t, "8.8.8.8", p.ip, "ptr: %+v", p)
		assert.Equal(t, "https://mailauth.example", p.server, "ptr: %+v", p)
		assert.True(t, p.json, "ptr: %+v", p)
	}
}

func TestLang(t *testing.T) {
	t.Parallel()
	cases := []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, nil, "en"},
		{map[string]string{"LANG": "zh_CN.UTF-8"}, nil, "zh"},
		{map[string]string{"LANG": "zh_TW"}, nil, "zh"},
		{map[string]string{"LANG": "de_DE.UTF-8"}, nil, "en"},
		{map[string]string{"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, nil, "en"},
		{map[string]string{"LC_MESSAGES": "zh_CN", "LANG": "en_US"}, nil, "zh"},
		{map[string]string{"LANG": "en_US", "MAILAUTH_LANG": "zh"}, nil, "zh"},
		{map[string]string{"LANG": "zh_CN", "MAILAUTH_LANG": "zh"}, []string{"-lang", "en"}, "en"},
	}
	for _, tc := range cases {
		c, err := parseScan(append(tc.args, "example.com"), mapEnv(tc.env), &strings.Builder{})
		if assert.NoError(t, err, "%v %v", tc.env, tc.args) {
			assert.Equal(t, tc.want, c.lang, "%v %v", tc.env, tc.args)
		}
	}
}

// TestCAFile: a PEM file adds roots; a file without certificates fails.
func TestCAFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	good := filepath.Join(dir, "ca.pem")
	bad := filepath.Join(dir, "bad.pem")
	_ = os.WriteFile(good, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	_ = os.WriteFile(bad, []byte("not pem"), 0o600)
	f := scannerFlags{httpsPort: 443, caFile: good}
	cfg, err := f.config()
	require.NoError(t, err, "good CA")
	require.NotNil(t, cfg.RootCAs, "good CA")
	cert, _ := x509.ParseCertificate(der)
	_, err = cert.Verify(x509.VerifyOptions{Roots: cfg.RootCAs})
	assert.NoError(t, err, "the CA is not trusted by the pool")
	f.caFile = bad
	_, err = f.config()
	assert.Error(t, err, "file without certificates accepted")
}

func TestEnvName(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "MAILAUTH_ALLOW_LOOPBACK_TARGETS", envName("allow-loopback-targets"))
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	_, _, err := bindEnv(fs, nil, mapEnv(nil), "missing")
	assert.Error(t, err, "binding an undefined flag succeeded")
}

// FuzzRetention: the -retention parser never panics, and accepts only
// whole days of at least 1 that print back as they parse.
func FuzzRetention(f *testing.F) {
	for _, s := range []string{"30d", "30", "720h", "0d", "-1d", "1.5d", "9999999999999999999d", "36501d", "1h", "d", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var d days
		if err := d.Set(s); err != nil {
			return
		}
		assert.GreaterOrEqual(t, d, days(1), "%q", s)
		assert.LessOrEqual(t, d, days(maxRetentionDays), "%q", s)
		var again days
		if assert.NoError(t, again.Set(d.String()), "%q: %d (%s)", s, d, d.String()) {
			assert.Equal(t, d, again, "%q: %d (%s) read back", s, d, d.String())
		}
	})
}
