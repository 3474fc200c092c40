package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
	"github.com/mailauth/mailauth/spf"
)

const (
	scanZoneFile    = "../../testdata/zones/scan.zone"
	recordsZoneFile = "../../testdata/zones/records.zone"
)

// runCLIWith is runCLI with standard input.
func runCLIWith(t *testing.T, in string, e map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut strings.Builder
	code := run(t.Context(), args, mapEnv(e), stdio{out: &out, err: &errOut, in: strings.NewReader(in)})
	return code, out.String(), errOut.String()
}

// TestScanRecordsLab: -records against the loopback lab prints the raw
// records, marked as coming from the user's own resolver, with the
// include tree's costs equal to the SPF check's (spf.Result.Includes),
// and never the DKIM key.
func TestScanRecordsLab(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{recordsZoneFile}, map[string]string{
		"mta-sts.tree.example.org": "version: STSv1\nmode: enforce\nmx: mx1.tree.example.org\nmx: mx2.tree.example.org\nmax_age: 86400\n",
	})
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(caFile, lab.CAPEM, 0o600))
	code, out, errOut := runCLI(t, nil, "scan", "-records", "-dns", lab.DNS.Addr(), "-https-port", fmt.Sprint(lab.HTTPSPort),
		"-ca-file", caFile, "-allow-loopback-targets", "-selector", "k1", "-ip", "8.8.4.4", "https://www.tree.example.org/")
	require.LessOrEqual(t, code, exitFail, "stderr %q\n%s", errOut, out)
	assert.Contains(t, errOut, "scanning tree.example.org: the leading www. of the web address is dropped")

	section := out[strings.Index(out, "Your records"):]
	assert.Contains(t, section, "Your records, as your own resolver returns them: tree.example.org")
	assert.Contains(t, section, "the mailauth service never returns records")
	assert.Contains(t, section, "v=spf1 ip4:127.0.0.1 include:a.spf.tree.example.org include:b.spf.tree.example.org mx -all")

	dns := lab.DNS.PatientClient() // a bound on a hang, not on speed
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res := spf.Check(ctx, dns, "tree.example.org")
	require.Len(t, res.Includes, 2)
	require.NotNil(t, res.LookupCount)
	assert.Contains(t, section, fmt.Sprintf("DNS lookups: %d of at most %d", *res.LookupCount, spf.MaxLookups))
	for i, target := range []string{"a.spf.tree.example.org", "b.spf.tree.example.org"} {
		unit := "lookups"
		if res.Includes[i].Lookups == 1 {
			unit = "lookup"
		}
		assert.Contains(t, section, fmt.Sprintf("      %d. include:%s — %d %s\n", i+1, target, res.Includes[i].Lookups, unit))
	}
	sub := spf.Check(ctx, dns, "a.spf.tree.example.org")
	require.Len(t, sub.Includes, 2)
	assert.Contains(t, section, fmt.Sprintf("         1. include:c.spf.tree.example.org — %d lookups\n", sub.Includes[0].Lookups))
	assert.Contains(t, section, fmt.Sprintf("         2. include:d.spf.tree.example.org — %d lookup\n", sub.Includes[1].Lookups))

	assert.Contains(t, section, "DMARC (found at _dmarc.example.org)\n    v=DMARC1; p=quarantine; rua=mailto:d@example.org\n")
	assert.Contains(t, section, "v=STSv1; id=20261125\n    Policy: version STSv1, mode enforce, max_age 86400\n    Policy mx: mx1.tree.example.org, mx2.tree.example.org\n")
	assert.Contains(t, section, "TLS-RPT (TXT at _smtp._tls.tree.example.org)\n    v=TLSRPTv1; rua=mailto:tls@example.org\n")
	assert.Contains(t, section, "DKIM (TXT at k1._domainkey.tree.example.org; the key p= is elided)\n    v=DKIM1; k=rsa; p=(392 characters elided)\n")
	assert.NotContains(t, out, "MIIB")
	assert.Contains(t, section, "MX\n    10 mx1.tree.example.org\n    20 mx2.tree.example.org\n")
	assert.Contains(t, section, "DANE TLSA (_25._tcp.<mail server>; the association data is elided)\n"+
		"    _25._tcp.mx1.tree.example.org TLSA 3 1 1 (32 octets elided) — DANE-EE SPKI SHA2-256, not DNSSEC-validated\n"+
		"    _25._tcp.mx1.tree.example.org TLSA 2 0 2 (64 octets elided) — DANE-TA Cert SHA2-512, not DNSSEC-validated\n")
	assert.NotContains(t, out, "8cb0fc6c", "no association data")
	assert.Contains(t, section, "PTR of 8.8.4.4\n    mx1.tree.example.org\n")
	assert.Contains(t, section, "CAA (found at example.org)\n    0 issue \"letsencrypt.org\"\n    0 iodef \"mailto:caa@example.org\"\n")

	code, zh, _ := runCLI(t, map[string]string{"LANG": "zh_CN.UTF-8"}, "scan", "-records", "-dns", lab.DNS.Addr(), "tree.example.org")
	assert.LessOrEqual(t, code, exitFail)
	assert.Contains(t, zh, "你的记录（来自你自己的解析器）")
	assert.Contains(t, zh, "_25._tcp.mx1.tree.example.org TLSA 3 1 1 （已省略 32 字节） — DANE-EE SPKI SHA2-256，未经 DNSSEC 验证")
	assert.Contains(t, zh, fmt.Sprintf("1. include:a.spf.tree.example.org — %d 次查询", res.Includes[0].Lookups))
}

// TestScanRecordsRefusedWithServer: -records is local only.
func TestScanRecordsRefusedWithServer(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, nil, "scan", "-records", "-server", "http://127.0.0.1:9", "example.com")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "-records shows raw records from your own resolver and works only for local scans")
}

// TestScanSeveralDomains: several arguments and -f (file and standard
// input, with comments) scan each domain once; the exit code is the
// highest; text reports are separated; JSON is an array of the API's
// objects; CSV has one header and a row per check.
func TestScanSeveralDomains(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{scanZoneFile}, nil)
	list := filepath.Join(t.TempDir(), "domains.txt")
	require.NoError(t, os.WriteFile(list, []byte("# my domains\n\nweak.example.com   # the weak one\n  bare.example.com\n"), 0o600))

	code, out, errOut := runCLI(t, nil, "scan", "-format", "csv", "-dns", lab.DNS.Addr(), "good.example.com", "-f", list)
	require.Equal(t, exitFail, code, "stderr %q", errOut)
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	checks := len(mailauth.CheckOrder())
	require.Len(t, rows, 1+3*checks)
	assert.Equal(t, scanCSVHeader, rows[0])
	for i, d := range []string{"good.example.com", "weak.example.com", "bare.example.com"} {
		for j := range checks {
			row := rows[1+checks*i+j]
			assert.Equal(t, d, row[0])
			assert.Equal(t, string(mailauth.CheckOrder()[j]), row[3])
			assert.NotEmpty(t, row[6])
			assert.NotEmpty(t, row[7])
		}
	}
	assert.Contains(t, []string{"A", "B", "C", "D", "F"}, rows[1][1])
	_, err = strconv.Atoi(rows[1][2])
	assert.NoError(t, err, "score %q", rows[1][2])

	code, out, _ = runCLIWith(t, "good.example.com\n# done\n", nil, "scan", "-json", "-dns", lab.DNS.Addr(), "-f", "-", "weak.example.com")
	assert.Equal(t, exitFail, code)
	var elems []json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(out), &elems), out)
	require.Len(t, elems, 2)
	for i, d := range []string{"weak.example.com", "good.example.com"} {
		sum, err := decodeScanSummary(elems[i])
		require.NoError(t, err)
		assert.Equal(t, d, sum.Domain)
		assert.Len(t, sum.Checks, checks)
	}

	code, out, _ = runCLI(t, nil, "scan", "-dns", lab.DNS.Addr(), "good.example.com", "bare.example.com")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, out, "security or compliance audit.\n\nMail authentication report for bare.example.com\n")
	assert.Equal(t, 2, strings.Count(out, "Mail authentication report for "))

	code, out, errOut = runCLI(t, nil, "scan", "-format", "csv", "-dns", lab.DNS.Addr(), "good.example.com", "localhost")
	assert.Equal(t, exitUsage, code, "an invalid domain among several is a usage error, the others are scanned")
	assert.Contains(t, errOut, "mailauth: localhost:\n  mailauth: invalid input: domain:")
	assert.Equal(t, 1+len(mailauth.CheckOrder()), strings.Count(out, "\n"))

	code, _, errOut = runCLI(t, nil, "scan", "-f", filepath.Join(t.TempDir(), "missing.txt"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "-f:")
}

// TestScanHelpToStdout: scan -h and ptr -h print to standard output and
// exit 0, and describe the new flags.
func TestScanHelpToStdout(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"scan", "ptr", "spf-eval", "serve", "stats"} {
		code, out, errOut := runCLI(t, nil, cmd, "-h")
		assert.Equal(t, exitOK, code, cmd)
		assert.Empty(t, errOut, cmd)
		assert.Contains(t, out, "Usage: mailauth "+cmd, cmd)
	}
	_, out, _ := runCLI(t, nil, "scan", "--help")
	for _, f := range []string{"-records", "-format", "-timeout", "-width", "-f string", "-json"} {
		assert.Contains(t, out, f)
	}
}

// TestHelpFitsEightyColumns: no line of any command's -h, nor of the
// top-level usage, is wider than 80 columns.
func TestHelpFitsEightyColumns(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-h"}, {"scan", "-h"}, {"ptr", "-h"}, {"spf-eval", "-h"}, {"serve", "-h"}, {"stats", "-h"}, {"healthcheck", "-h"}} {
		_, out, errOut := runCLI(t, nil, args...)
		for _, l := range strings.Split(out+errOut, "\n") {
			assert.LessOrEqual(t, columns(l), helpWidth, "%v: %q", args, l)
		}
	}
}

// TestScanTimeoutAndFormatFlags: -timeout bounds a local scan through the
// scanner's configuration; -json is -format json.
func TestScanTimeoutAndFormatFlags(t *testing.T) {
	t.Parallel()
	c, err := parseScan([]string{"-timeout", "30s", "-format", "csv", "example.com"}, mapEnv(nil), &strings.Builder{})
	require.NoError(t, err)
	assert.Equal(t, 30*time.Second, c.cfg.ScanTimeout)
	assert.Equal(t, formatCSV, c.format)
	c, err = parseScan([]string{"example.com"}, mapEnv(map[string]string{"MAILAUTH_TIMEOUT": "2m", "MAILAUTH_FORMAT": "json"}), &strings.Builder{})
	require.NoError(t, err)
	assert.Equal(t, 2*time.Minute, c.cfg.ScanTimeout)
	assert.Equal(t, formatJSON, c.format)
}

// TestEnvErrorNamesForm: an environment variable that does not parse
// names the form its value must take.
func TestEnvErrorNamesForm(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"MAILAUTH_HTTPS_PORT":             "a whole number",
		"MAILAUTH_TIMEOUT":                "a duration such as 30s",
		"MAILAUTH_ALLOW_LOOPBACK_TARGETS": "true or false",
	}
	for name, form := range cases {
		code, _, errOut := runCLI(t, map[string]string{name: "lots"}, "scan", "example.com")
		assert.Equal(t, exitUsage, code, name)
		assert.Contains(t, errOut, name+`="lots": not `+form, name)
	}
	// String flags: the flag's own check names the form; the error names
	// the variable, not the flag.
	stringFlags := []struct{ name, value, form string }{
		{"MAILAUTH_DNS", "dns.example", "such as 9.9.9.9"},
		{"MAILAUTH_FORMAT", "xml", "must be text, json, csv or csv-domains"},
		{"MAILAUTH_LANG", "fr", "must be zh or en"},
	}
	for _, tc := range stringFlags {
		code, _, errOut := runCLI(t, map[string]string{tc.name: tc.value}, "scan", "example.com")
		assert.Equal(t, exitUsage, code, tc.name)
		assert.Contains(t, errOut, tc.name+`="`+tc.value+`": `, tc.name)
		assert.Contains(t, errOut, tc.form, tc.name)
		assert.NotContains(t, errOut, "-"+strings.ToLower(tc.name[len("MAILAUTH_"):])+":", "%s: the flag is not blamed", tc.name)
	}
	// A flag on the command line wins over the variable, and its error
	// names the flag.
	code, _, errOut := runCLI(t, map[string]string{"MAILAUTH_LANG": "zh"}, "scan", "-lang", "fr", "example.com")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "-lang: must be zh or en")
	// A secret flag's value is never shown.
	code, _, errOut = runCLI(t, map[string]string{"MAILAUTH_STORAGE": "mysql://u:hunter2@db"}, "stats")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "MAILAUTH_STORAGE (value not shown): must be none")
	assert.NotContains(t, errOut, "hunter2")
}

// TestDNSServersDefaultPort: -dns takes addresses with or without a port;
// without one, port 53.
func TestDNSServersDefaultPort(t *testing.T) {
	t.Parallel()
	got, err := parseDNSServers("9.9.9.9, [2620:fe::fe],2620:fe::9,127.0.0.1:5353,[::1]:53")
	require.NoError(t, err)
	assert.Equal(t, []string{"9.9.9.9:53", "[2620:fe::fe]:53", "[2620:fe::9]:53", "127.0.0.1:5353", "[::1]:53"}, got)
	_, err = parseDNSServers("dns.example")
	assert.ErrorContains(t, err, "such as 9.9.9.9")
}

// TestPtrCSV: ptr -format csv prints a header and the check's row.
func TestPtrCSV(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{scanZoneFile}, nil)
	code, out, errOut := runCLI(t, map[string]string{"LANG": "zh_CN.UTF-8"}, "ptr", "-format", "csv", "-dns", lab.DNS.Addr(), "8.8.8.8")
	require.Equal(t, exitOK, code, errOut)
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.Equal(t, ptrCSVHeader, rows[0])
	assert.Equal(t, []string{"8.8.8.8", "ptr", "pass", "info"}, rows[1][:4])
	assert.Contains(t, rows[1][4], "正向确认通过", "the -lang side of the summary")
}

// TestScanRecordsRedirectLab: a redirect= an evaluation follows is the
// last node of its level in the include tree, costing itself plus the
// lookup count of its target, with the target's includes below it; the
// tree's costs add up to the SPF check's count.
func TestScanRecordsRedirectLab(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{recordsZoneFile}, nil)
	code, out, errOut := runCLI(t, nil, "scan", "-records", "-dns", lab.DNS.Addr(), "redir.example.org")
	require.LessOrEqual(t, code, exitFail, "stderr %q\n%s", errOut, out)
	section := out[strings.Index(out, "Your records"):]

	dns := lab.DNS.PatientClient() // a bound on a hang, not on speed
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	top := spf.Check(ctx, dns, "redir.example.org")
	target := spf.Check(ctx, dns, "r.spf.tree.example.org")
	require.NotNil(t, top.LookupCount)
	require.NotNil(t, target.LookupCount)
	require.Len(t, top.Includes, 1)
	redirectCost := 1 + *target.LookupCount
	assert.Equal(t, *top.LookupCount, top.Includes[0].Lookups+redirectCost, "the include and the redirect are the whole count")
	assert.Contains(t, section, fmt.Sprintf("DNS lookups: %d of at most %d", *top.LookupCount, spf.MaxLookups))
	assert.Contains(t, section, "      1. include:b.spf.tree.example.org — 1 lookup\n")
	assert.Contains(t, section, fmt.Sprintf("      2. redirect=r.spf.tree.example.org — %d lookups\n         1. include:d.spf.tree.example.org — 1 lookup\n", redirectCost))
}

// TestScanRecordsInconclusiveLab: a lookup without a conclusive answer
// says so ("lookup inconclusive"), never "(none)", and -timeout bounds
// the -records lookups as it bounds the scan: resolvers that stay silent
// cost the timeout, not a resolver timeout per lookup.
func TestScanRecordsInconclusiveLab(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{recordsZoneFile}, nil)
	for _, name := range []string{"_smtp._tls.tree.example.org", "_mta-sts.tree.example.org", "k1._domainkey.tree.example.org"} {
		lab.DNS.SetFault(name, resolver.TypeTXT, dnstest.Fault{Drop: true})
	}
	lab.DNS.SetFault("tree.example.org", resolver.TypeCAA, dnstest.Fault{Drop: true})
	lab.DNS.SetFault("tree.example.org", resolver.TypeMX, dnstest.ServFail)
	start := time.Now()
	code, out, errOut := runCLI(t, nil, "scan", "-records", "-timeout", "1s", "-selector", "k1", "-dns", lab.DNS.Addr(), "tree.example.org")
	elapsed := time.Since(start)
	require.Contains(t, out, "Your records", "exit %d, stderr %q\n%s", code, errOut, out)
	section := out[strings.Index(out, "Your records"):]
	// Unbounded, the four silent lookups would take resolver.DefaultLookupTimeout each.
	assert.Less(t, elapsed, 2*resolver.DefaultLookupTimeout, "the scan and -records, each bounded by -timeout 1s")
	unknown := "    (lookup inconclusive: no conclusive answer, so whether there is a record is unknown)\n"
	for _, heading := range []string{"MTA-STS (TXT at _mta-sts.tree.example.org)\n", "TLS-RPT (TXT at _smtp._tls.tree.example.org)\n",
		"DKIM (TXT at k1._domainkey.tree.example.org; the key p= is elided)\n", "MX\n"} {
		assert.Contains(t, section, heading+unknown, heading)
	}
	assert.Contains(t, section, "CAA (lookup inconclusive: the relevant set is unknown)\n")
	assert.NotContains(t, section, "(none)")
	assert.Contains(t, section, "v=spf1 ip4:127.0.0.1", "what did answer is still shown")
}
