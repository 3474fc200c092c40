package main

import (
	"encoding/csv"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/testlab"
)

// TestScanFitsWidths: at -width 60, 80 and 120, in both languages, with
// -v, no line of a scan of several domains is wider than the width,
// unless it is one token longer than the width; the check lines and
// the disclaimer wrap with a hanging indent; the run ends with an
// overview of one line per domain.
func TestScanFitsWidths(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{scanZoneFile}, nil)
	domains := []string{"good.example.com", "weak.example.com", "bare.example.com"}
	for _, lang := range []string{"en", "zh"} {
		for _, width := range []int{60, 80, 120} {
			args := append([]string{"scan", "-v", "-lang", lang, "-width", fmt.Sprint(width), "-dns", lab.DNS.Addr()}, domains...)
			code, out, errOut := runCLI(t, nil, args...)
			require.Equal(t, exitFail, code, "stderr %q", errOut)
			lines := strings.Split(out, "\n")
			for _, l := range lines {
				if columns(l) > width {
					assert.Len(t, strings.Fields(l), 1, "%s at %d: a line of %d columns: %q", lang, width, columns(l), l)
				}
			}
			head := "Overview (3 domains)"
			if lang == "zh" {
				head = "总览（3 个域名）"
			}
			at := -1
			for i, l := range lines {
				if l == head {
					at = i
				}
			}
			require.GreaterOrEqual(t, at, 0, "%s at %d: no overview:\n%s", lang, width, out)
			var starts []string
			for _, l := range lines[at+1:] {
				if strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "    ") {
					starts = append(starts, strings.Fields(l)[0])
				}
			}
			assert.Equal(t, domains, starts, "%s at %d: one overview line per domain:\n%s", lang, width, strings.Join(lines[at:], "\n"))
			if width >= 80 {
				assert.Contains(t, lines[at+1], "/100", "%s at %d: the grade on the domain's line", lang, width)
			}
		}
	}
}

// TestCheckLineHangingIndent: a check line longer than the width goes on
// under its title, not under the status word, and no word is cut.
func TestCheckLineHangingIndent(t *testing.T) {
	s := sampleScan()
	s.Checks[0].Summary = lt("很长的结论", "a summary long enough to need a second line at sixty columns, with words")
	s.Disclaimer = lt("免责声明", strings.Repeat("A disclaimer that is long. ", 6))
	var b strings.Builder
	renderScan(&b, s, renderOptions{lang: "en", width: 60})
	lines := strings.Split(b.String(), "\n")
	i := 0
	for ; i < len(lines) && !strings.HasPrefix(lines[i], "  PASS  "); i++ {
	}
	require.Less(t, i, len(lines)-1, b.String())
	assert.True(t, strings.HasPrefix(lines[i+1], "        ") && lines[i+1][8] != ' ', "continuation under the title: %q", lines[i+1])
	words := strings.Fields(strings.Join(lines[i:i+2], " "))
	assert.Contains(t, words, "second", "a word was cut: %q", lines[i:i+2])
	for _, l := range lines {
		assert.LessOrEqual(t, columns(l), 60, "%q", l)
	}
}

// TestScanCSVDomains: -format csv-domains writes one row per domain:
// domain, exists, grade, score, the counts and the worst finding; a name
// that does not exist says so in "exists".
func TestScanCSVDomains(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{scanZoneFile}, nil)
	code, out, errOut := runCLI(t, nil, "scan", "-format", "csv-domains", "-dns", lab.DNS.Addr(), "good.example.com", "weak.example.com", "nothere.example.com")
	require.GreaterOrEqual(t, code, exitFail, "stderr %q", errOut)
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 4, out)
	assert.Equal(t, domainCSVHeader, rows[0])
	assert.Equal(t, []string{"good.example.com", "yes"}, rows[1][:2])
	assert.Contains(t, []string{"A", "B", "C", "D", "F"}, rows[1][2])
	assert.Equal(t, []string{"weak.example.com", "yes"}, rows[2][:2])
	assert.NotEmpty(t, rows[2][8], "the weak domain's worst finding")
	assert.Contains(t, []string{"fail", "warn"}, rows[2][9])
	assert.NotEmpty(t, rows[2][11])
	assert.Equal(t, []string{"nothere.example.com", "no", "nonexistent", ""}, rows[3][:4])
	for _, r := range rows[1:] {
		n := 0
		for _, c := range r[4:8] {
			var v int
			_, err := fmt.Sscan(c, &v)
			require.NoError(t, err, "count %q", c)
			n += v
		}
		assert.Equal(t, len(mailauth.CheckOrder()), n, "%s: the counts cover every check", r[0])
	}

	code, _, errOut = runCLI(t, nil, "ptr", "-format", "csv-domains", "8.8.8.8")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "csv-domains is for scan")
}

// TestRemoteVerboseCacheNote: with -v, a report from a service says its
// answers may be up to 5 minutes old; a local one does not.
func TestRemoteVerboseCacheNote(t *testing.T) {
	for _, remote := range []bool{false, true} {
		for _, lang := range []string{"en", "zh"} {
			var b strings.Builder
			renderScan(&b, sampleScan(), renderOptions{lang: lang, verbose: true, remote: remote, width: 200})
			assert.Equal(t, remote, strings.Contains(b.String(), labels[lang]["cached"]), "remote %v, %s:\n%s", remote, lang, b.String())
		}
	}
}

// TestHelpGroupsFlags: ptr -h lists no MTA-STS fetch flag; scan -h and
// serve -h list the lab flags after the everyday ones, under their own
// heading.
func TestHelpGroupsFlags(t *testing.T) {
	t.Parallel()
	_, out, _ := runCLI(t, nil, "ptr", "-h")
	for _, f := range []string{"-https-port", "-ca-file", "-allow-loopback-targets", "Lab and test flags"} {
		assert.NotContains(t, out, f, "ptr -h")
	}
	assert.Contains(t, out, "-server")
	for _, cmd := range []string{"scan", "serve"} {
		_, out, _ := runCLI(t, nil, cmd, "-h")
		lab := strings.Index(out, "Lab and test flags")
		require.Greater(t, lab, 0, "%s -h:\n%s", cmd, out)
		for _, f := range []string{"  -https-port", "  -ca-file", "  -allow-loopback-targets"} {
			assert.Greater(t, strings.Index(out, f), lab, "%s -h: %s not in the lab group", cmd, f)
		}
		assert.Less(t, strings.Index(out, "  -dns"), lab, "%s -h: -dns is an everyday flag", cmd)
	}
}

// TestRecordsNoBidiControl: -records prints no bidirectional formatting
// character from a record (a U+202E would show a record reversed), nor
// any other control.
func TestRecordsNoBidiControl(t *testing.T) {
	bidi := "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
	r := rawRecords{
		Domain: "example.com",
		SPF:    []string{"v=spf1 \u202eall- include:a.example.com"},
		DMARC:  []string{"v=DMARC1; p=\u2067none\u2069"}, DMARCAt: "_dmarc.example.com",
		TLSRPT: []string{"v=TLSRPTv1; rua=mailto:\u200ftls@example.com\x1b[2J"},
	}
	var b strings.Builder
	renderRecords(&b, r, renderOptions{lang: "en", width: 80})
	out := b.String()
	require.Contains(t, out, "include:a.example.com", "the records are printed:\n%s", out)
	assert.False(t, strings.ContainsAny(out, bidi), "a bidi control reached the terminal: %q", out)
	assert.NotContains(t, out, "\x1b")
}

// TestScanLookalikeWarning: a name that mixes Cyrillic and Latin letters
// is scanned, and standard error names both forms and the Latin name it
// is not, in the report's language.
func TestScanLookalikeWarning(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{scanZoneFile}, nil)
	for lang, want := range map[string]string{
		"en": "mailauth: аcme-gw.com (xn--cme-gw-2nf.com): This name mixes Cyrillic and Latin letters; it is not acme-gw.com.",
		"zh": "mailauth: аcme-gw.com (xn--cme-gw-2nf.com): 该名称混用了西里尔字母和拉丁字母，它不是 acme-gw.com。",
	} {
		_, out, errOut := runCLI(t, nil, "scan", "-lang", lang, "-dns", lab.DNS.Addr(), "аcme-gw.com")
		assert.Contains(t, errOut, want, lang)
		assert.NotEmpty(t, out, "%s: the scan still runs", lang)
	}
	_, _, errOut := runCLI(t, nil, "scan", "-dns", lab.DNS.Addr(), "good.example.com")
	assert.NotContains(t, errOut, "letters", "a Latin name gets no warning")
}

// TestScanTimeoutIsTheUsers: a scan cut short by -timeout says the
// time-out was the one the user set, and does not blame DNS.
func TestScanTimeoutIsTheUsers(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{scanZoneFile}, nil)
	code, _, errOut := runCLI(t, nil, "scan", "-timeout", "1ns", "-dns", lab.DNS.Addr(), "good.example.com")
	assert.Equal(t, exitUnavailable, code)
	assert.Contains(t, errOut, "-timeout 1ns you set")
	assert.NotContains(t, errOut, "DNS unavailable")
}

// TestRateLimitedOnce: the CLI's 429 text says when to retry once.
func TestRateLimitedOnce(t *testing.T) {
	e := &serverError{status: 429, msg: "rate limit exceeded for this source address; retry after the number of seconds in Retry-After", retryAfter: "42"}
	assert.Equal(t, "service answered 429: rate limit exceeded for this source address; retry after 42 s", e.Error())
	assert.Equal(t, 1, strings.Count(e.Error(), "retry"))
	e = &serverError{status: 429, msg: "something else", retryAfter: "7"}
	assert.Equal(t, "service answered 429: something else (retry after 7 s)", e.Error())
}
