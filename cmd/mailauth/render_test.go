package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
)

func lt(zh, en string) mailauth.LocalizedText { return mailauth.LocalizedText{ZH: zh, EN: en} }

// sampleScan is a fixed ScanSummary for the rendering tests.
func sampleScan() mailauth.ScanSummary {
	sel, ip := "s1", "8.8.8.8"
	c := func(id mailauth.CheckID, title string, st mailauth.Status, sum, det string) mailauth.CheckSummary {
		return mailauth.CheckSummary{ID: id, Title: lt(title+"（中）", title), Status: st, Severity: mailauth.SeverityInfo,
			Summary: lt(sum+"（中）", sum), Details: lt(det+"（中）", det)}
	}
	return mailauth.ScanSummary{
		Domain: "xn--fiqs8s.example", UnicodeDomain: "中国.example", DKIMSelector: &sel, SendingIP: &ip,
		ScannedAt: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC), DurationMs: 321,
		Score: 72, Grade: mailauth.GradeC, Counts: mailauth.StatusCounts{Pass: 4, Warn: 2, Fail: 1, Info: 1},
		Summary: lt("需要改进。", "Needs work."),
		Checks: []mailauth.CheckSummary{
			c("mx", "MX", mailauth.StatusPass, "2 mail exchangers", "All exchangers resolve."),
			c("spf", "SPF", mailauth.StatusWarn, "Soft fail", "The record ends in ~all.\nSecond line."),
			c("dmarc", "DMARC", mailauth.StatusFail, "No policy", "No DMARC record."),
			c("dkim", "DKIM", mailauth.StatusPass, "Key found", "Ed25519 key."),
			c("mta-sts", "MTA-STS", mailauth.StatusPass, "Enforced", "Policy fetched."),
			c("tls-rpt", "TLS-RPT", mailauth.StatusPass, "Configured", "One destination."),
			c("ptr", "PTR", mailauth.StatusWarn, "Not confirmed", "No forward match."),
			c("caa", "CAA", mailauth.StatusInfo, "No CAA", "Any CA may issue."),
		},
		Disclaimer: lt("仅供参考。", "For information only."),
	}
}

func TestRenderScanEnglish(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	renderScan(&b, sampleScan(), renderOptions{lang: "en"})
	want := `Mail authentication report for 中国.example (xn--fiqs8s.example)
DKIM selector: s1
Sending IP: 8.8.8.8
Grade C, score 72/100
4 pass, 2 warn, 1 fail, 1 info
Needs work.

  PASS  MX: 2 mail exchangers
  WARN  SPF: Soft fail
  FAIL  DMARC: No policy
  PASS  DKIM: Key found
  PASS  MTA-STS: Enforced
  PASS  TLS-RPT: Configured
  WARN  PTR: Not confirmed
  INFO  CAA: No CAA

For information only.
`
	assert.Equal(t, want, b.String())
}

func TestRenderScanChineseVerbose(t *testing.T) {
	t.Parallel()
	s := sampleScan()
	s.DKIMSelector, s.SendingIP = nil, nil
	s.Checks = s.Checks[:2]
	var b strings.Builder
	renderScan(&b, s, renderOptions{lang: "zh", verbose: true})
	want := `邮件认证检查报告：中国.example (xn--fiqs8s.example)
等级 C，得分 72/100
通过 4，警告 2，失败 1，信息 1
需要改进。

  通过  MX（中）：2 mail exchangers（中）
        All exchangers resolve.（中）
  警告  SPF（中）：Soft fail（中）
        The record ends in ~all.
        Second line.（中）

仅供参考。
`
	assert.Equal(t, want, b.String())
}

func TestRenderColor(t *testing.T) {
	t.Parallel()
	var plain, colored strings.Builder
	renderScan(&plain, sampleScan(), renderOptions{lang: "en"})
	renderScan(&colored, sampleScan(), renderOptions{lang: "en", color: true})
	assert.NotContains(t, plain.String(), "\x1b[", "escape codes without colour")
	for _, want := range []string{ansiGreen + "PASS" + ansiReset, ansiYellow + "WARN" + ansiReset, ansiRed + "FAIL" + ansiReset,
		ansiCyan + "INFO" + ansiReset, ansiBold + ansiYellow + "C" + ansiReset} {
		assert.Contains(t, colored.String(), want, "coloured output lacks %q", want)
	}
	stripped := strings.NewReplacer(ansiReset, "", ansiBold, "", ansiDim, "", ansiRed, "", ansiGreen, "", ansiYellow, "", ansiCyan, "").Replace(colored.String())
	assert.Equal(t, plain.String(), stripped, "colour changes the text")
}

func TestRenderPtr(t *testing.T) {
	t.Parallel()
	s := mailauth.PTRCheckSummary{SendingIP: "2001:4860:4860::8888", Check: sampleScan().Checks[6], Disclaimer: lt("仅供参考。", "For information only.")}
	var b strings.Builder
	renderPtr(&b, s, renderOptions{lang: "en", verbose: true})
	want := `Sending IP check for 2001:4860:4860::8888

  WARN  PTR: Not confirmed
        No forward match.

For information only.
`
	assert.Equal(t, want, b.String())
}

func TestUseColor(t *testing.T) {
	t.Parallel()
	cases := []struct {
		tty  bool
		env  map[string]string
		want bool
	}{
		{true, nil, true},
		{false, nil, false},
		{true, map[string]string{"NO_COLOR": "1"}, false},
		{true, map[string]string{"TERM": "dumb"}, false},
		{true, map[string]string{"NO_COLOR": ""}, true},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, useColor(c.tty, mapEnv(c.env)), "tty=%v env=%v", c.tty, c.env)
	}
}

// TestRenderUndetermined: a score that leaves undetermined checks out
// says how many it covers; an incomplete result shows no grade at all,
// in both languages, and neither does its CSV.
func TestRenderUndetermined(t *testing.T) {
	t.Parallel()
	some := sampleScan()
	some.Checks[1].Determination = mailauth.UndeterminedLookup
	var b strings.Builder
	renderScan(&b, some, renderOptions{lang: "en"})
	assert.Contains(t, b.String(), "Grade C, score 72/100\nThe score covers 6 of the 7 evaluated checks")

	most := sampleScan()
	for i := range 4 {
		most.Checks[i].Determination = mailauth.UndeterminedLookup
	}
	require.True(t, most.Incomplete())
	b.Reset()
	renderScan(&b, most, renderOptions{lang: "en"})
	assert.NotContains(t, b.String(), "Grade")
	assert.Contains(t, b.String(), "No grade: 4 of the 7 evaluated checks could not be determined")
	b.Reset()
	renderScan(&b, most, renderOptions{lang: "zh"})
	assert.NotContains(t, b.String(), "等级")
	assert.Contains(t, b.String(), "无法评级：参与评估的 7 项检查中，有 4 项无法确定")
	for _, row := range scanCSVRows(most, "en") {
		assert.Equal(t, []string{"", ""}, row[1:3], "grade and score of an incomplete result")
	}
}
