package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"maps"
	"math/big"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func mapEnv(m map[string]string) env { return func(k string) string { return m[k] } }

func TestServeDefaults(t *testing.T) {
	t.Parallel()
	c, err := parseServe(nil, mapEnv(map[string]string{"HOME": "/home/u"}), &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	if c.storage != "sqlite:/home/u/.local/state/mailauth/analytics.db" || int(c.analytics.retention) != 30 ||
		strings.Join(c.analytics.labels, ",") != "web,cli,api,docs,github,newsletter" {
		t.Errorf("analytics defaults: %+v", c)
	}
	if c, _ := parseServe(nil, mapEnv(map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "/st"}), &strings.Builder{}); c.storage != "sqlite:/st/mailauth/analytics.db" {
		t.Errorf("XDG_STATE_HOME: storage %q", c.storage)
	}
	if c, _ := parseServe(nil, mapEnv(map[string]string{"HOME": "/home/u", "STATE_DIRECTORY": "/var/lib/mailauth:/var/lib/other"}), &strings.Builder{}); c.storage != "sqlite:/var/lib/mailauth/analytics.db" {
		t.Errorf("STATE_DIRECTORY: storage %q", c.storage)
	}
	if c.listen != "127.0.0.1:8080" || c.rateLimit != "memory" || c.rateLimitMax != 30 ||
		c.maxInFlight != 64 || c.scanner.httpsPort != 443 || c.scan.HTTPSPort != 443 || c.scanner.allowLoopback ||
		len(c.proxies) != 0 || c.scan.DNSServers != nil || c.scan.RootCAs != nil {
		t.Errorf("defaults: %+v", c)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	if c.listen != "127.0.0.1:9100" || c.rateLimitMax != 7 {
		t.Errorf("flags must win over env: listen %q max %d", c.listen, c.rateLimitMax)
	}
	wantDNS := []string{"1.1.1.1:53", "[2606:4700:4700::1111]:5353", "9.9.9.9:53"}
	if !reflect.DeepEqual(c.scan.DNSServers, wantDNS) {
		t.Errorf("dns %q", c.scan.DNSServers)
	}
	wantProxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.1/32"), netip.MustParsePrefix("198.51.100.1/32")}
	if !reflect.DeepEqual(c.proxies, wantProxies) {
		t.Errorf("proxies %v", c.proxies)
	}
	if c.rateLimit != "redis://127.0.0.1:6379/2" || c.analyticsSecret != "s3cret-s3cret-s3cret" || c.scan.HTTPSPort != 8443 ||
		!c.scan.AllowLoopbackTargets || c.maxInFlight != 8 {
		t.Errorf("env not applied: %+v", c)
	}
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
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: error %v, want it to contain %q", tc.args, tc.env, err, tc.want)
		}
	}
	if _, err := parseServe([]string{"-nope"}, mapEnv(nil), &strings.Builder{}); !errors.Is(err, errUsage) {
		t.Errorf("unknown flag: %v", err)
	}
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
		if errOut.Len() != 0 {
			t.Errorf("%s -h wrote to stderr: %q", cmd, errOut.String())
		}
		if code != exitOK {
			t.Errorf("%s -h: exit %d", cmd, code)
		}
		for _, f := range flags {
			if !strings.Contains(help, "-"+f) {
				t.Errorf("%s -h lacks -%s", cmd, f)
			}
		}
		envs := clientEnvNames
		if cmd == "serve" {
			envs = serveFlagNames
		}
		for _, f := range envs {
			if !strings.Contains(help, envName(f)) {
				t.Errorf("%s -h lacks %s", cmd, envName(f))
			}
		}
		if cmd == "serve" && !strings.Contains(help, "~/.local/state") {
			t.Errorf("serve -h must say where the default SQLite file lives:\n%s", help)
		}
	}
}

func TestScanArgs(t *testing.T) {
	t.Parallel()
	c, err := parseScan([]string{"example.com", "-json", "-selector", "s1", "-ip=8.8.8.8", "-v"}, mapEnv(nil), &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.domains) != 1 || c.domains[0] != "example.com" || !c.json || c.format != formatJSON || c.selector != "s1" || c.ip != "8.8.8.8" || !c.verbose || c.lang != "en" {
		t.Errorf("%+v", c)
	}
	c, err = parseScan([]string{"-server", "http://127.0.0.1:8080/", "--", "-weird.example"}, mapEnv(nil), &strings.Builder{})
	if err != nil || len(c.domains) != 1 || c.domains[0] != "-weird.example" || c.server != "http://127.0.0.1:8080/" {
		t.Errorf("after --: %+v %v", c, err)
	}
	for _, args := range [][]string{nil, {"-lang", "fr", "a.example"}, {"-format", "xml", "a.example"}, {"-json", "-format", "csv", "a.example"},
		{"-records", "-server", "http://127.0.0.1:8080", "a.example"}, {"-records", "-format", "json", "a.example"}, {"-timeout", "-1s", "a.example"},
		{"-server", "ftp://x", "a.example"}, {"-server", "http://u:p@x", "a.example"}, {"-server", "http://x?q", "a.example"}} {
		if _, err := parseScan(args, mapEnv(nil), &strings.Builder{}); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
	p, err := parsePtr([]string{"-json", "8.8.8.8"}, mapEnv(map[string]string{"MAILAUTH_SERVER": "https://mailauth.example"}), &strings.Builder{})
	if err != nil || p.ip != "8.8.8.8" || p.server != "https://mailauth.example" || !p.json {
		t.Errorf("ptr: %+v %v", p, err)
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
		if err != nil || c.lang != tc.want {
			t.Errorf("%v %v: %q %v, want %q", tc.env, tc.args, c.lang, err, tc.want)
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
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "ca.pem")
	bad := filepath.Join(dir, "bad.pem")
	_ = os.WriteFile(good, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	_ = os.WriteFile(bad, []byte("not pem"), 0o600)
	f := scannerFlags{httpsPort: 443, caFile: good}
	cfg, err := f.config()
	if err != nil || cfg.RootCAs == nil {
		t.Fatalf("good CA: %v", err)
	}
	cert, _ := x509.ParseCertificate(der)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: cfg.RootCAs}); err != nil {
		t.Errorf("the CA is not trusted by the pool: %v", err)
	}
	f.caFile = bad
	if _, err := f.config(); err == nil {
		t.Error("file without certificates accepted")
	}
}

func TestEnvName(t *testing.T) {
	t.Parallel()
	if got := envName("allow-loopback-targets"); got != "MAILAUTH_ALLOW_LOOPBACK_TARGETS" {
		t.Error(got)
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	if err := bindEnv(fs, mapEnv(nil), "missing"); err == nil {
		t.Error("binding an undefined flag succeeded")
	}
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
		var again days
		if d < 1 || d > maxRetentionDays || again.Set(d.String()) != nil || again != d {
			t.Errorf("%q: %d (%s)", s, d, d.String())
		}
	})
}
