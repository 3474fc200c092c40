package mailauth

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth/dane"
	"github.com/mailauth/mailauth/mtasts"
	"github.com/mailauth/mailauth/resolver"
)

// daneMX is the MX facts of two exchanges with the DANE facts res, as
// seen through a validating resolver or not.
func daneMX(res dane.Result, validating bool) mxFacts {
	return mxFacts{known: true, hosts: []string{"mx1.example.com", "mx2.example.com"},
		dane: daneFacts{checked: true, validating: validating, res: res}}
}

var (
	daneUsable   = dane.Result{MXValidated: true, Hosts: 2, Counts: dane.Counts{Published: 2, Validated: 2, Usable: 2}}
	danePKIX     = dane.Result{MXValidated: true, Hosts: 2, Counts: dane.Counts{Published: 2, Validated: 2}, Findings: []dane.Code{dane.CodePKIXOnly}}
	daneUnsigned = dane.Result{MXValidated: false, Hosts: 2, Counts: dane.Counts{Published: 2}, Findings: []dane.Code{dane.CodeMXUnsigned, dane.CodeUnsigned}}
	danePartial  = dane.Result{MXValidated: true, Hosts: 2, Counts: dane.Counts{Published: 1, Validated: 1, Usable: 1, Absent: 1}, Findings: []dane.Code{dane.CodePartial}}
	daneBroken   = dane.Result{MXValidated: true, Hosts: 2, Counts: dane.Counts{Published: 2, Validated: 2}, Findings: []dane.Code{dane.CodeParameters}}
	daneBogus    = dane.Result{MXValidated: true, Hosts: 2, Counts: dane.Counts{Published: 1, Validated: 1, Usable: 1, Inconclusive: 1}, Findings: []dane.Code{dane.CodeBogus}}
	daneMXOnly   = dane.Result{MXValidated: false, Hosts: 2, Counts: dane.Counts{Published: 2, Validated: 2, Usable: 2}, Findings: []dane.Code{dane.CodeMXUnsigned}}
	daneNone     = dane.Result{MXValidated: true, Hosts: 2, Counts: dane.Counts{Absent: 2}}
)

// TestJudgeDANE: how DANE weighs on the MTA-STS verdict, with and without
// MTA-STS. Statuses and severities are literals (doc/scoring.md, DANE).
func TestJudgeDANE(t *testing.T) {
	t.Parallel()
	absent := mtasts.Result{Outcome: resolver.NoData, AnnouncementRecordCount: new(0), FetchState: mtasts.NotAnnounced}
	enforce := stsFetched(mtasts.ModeEnforce)
	enforce.Policy.MX = []string{"*.example.com"}
	testing_ := stsFetched(mtasts.ModeTesting)
	testing_.Policy.MX = []string{"*.example.com"}
	for _, tc := range []struct {
		name     string
		sts      mtasts.Result
		mx       mxFacts
		status   Status
		severity Severity
		summary  text
		details  []text // each must be in the details
		absent   []text // none of these may be
	}{
		{name: "usable DANE, no MTA-STS", sts: absent, mx: daneMX(daneUsable, true),
			status: StatusPass, severity: SeverityInfo, summary: stsDANEOnly.say, details: []text{stsFactNoRecord}, absent: []text{stsMissing.say}},
		{name: "usable DANE, MTA-STS enforce", sts: enforce, mx: daneMX(daneUsable, true),
			status: StatusPass, severity: SeverityInfo, summary: stsEnforce.say, details: []text{daneFactBoth}},
		{name: "usable DANE, MTA-STS testing", sts: testing_, mx: daneMX(daneUsable, true),
			status: StatusPass, severity: SeverityInfo, summary: stsDANETesting.say, details: []text{stsTesting.say}},
		{name: "PKIX only, no MTA-STS", sts: absent, mx: daneMX(danePKIX, true),
			status: StatusFail, severity: SeverityLow, summary: stsMissing.say, details: []text{daneRules[dane.CodePKIXOnly].say}},
		{name: "PKIX only, MTA-STS enforce", sts: enforce, mx: daneMX(danePKIX, true),
			status: StatusWarn, severity: SeverityLow, summary: daneRules[dane.CodePKIXOnly].say, details: []text{stsEnforce.say}, absent: []text{daneFactBoth}},
		{name: "unsigned zone, no MTA-STS", sts: absent, mx: daneMX(daneUnsigned, true),
			status: StatusFail, severity: SeverityLow, summary: stsMissing.say, details: []text{daneRules[dane.CodeUnsigned].say, daneRules[dane.CodeMXUnsigned].say}},
		{name: "unsigned zone, MTA-STS enforce", sts: enforce, mx: daneMX(daneUnsigned, true),
			status: StatusWarn, severity: SeverityLow, details: []text{stsEnforce.say}},
		{name: "MX set not validated", sts: absent, mx: daneMX(daneMXOnly, true),
			status: StatusFail, severity: SeverityLow, summary: stsMissing.say, details: []text{daneRules[dane.CodeMXUnsigned].say}, absent: []text{stsDANEOnly.say}},
		{name: "some MX hosts without TLSA", sts: absent, mx: daneMX(danePartial, true),
			status: StatusFail, severity: SeverityLow, summary: stsMissing.say, absent: []text{stsDANEOnly.say}},
		{name: "broken parameters", sts: absent, mx: daneMX(daneBroken, true),
			status: StatusFail, severity: SeverityLow, summary: stsMissing.say, details: []text{daneRules[dane.CodeParameters].say}},
		{name: "bogus TLSA, MTA-STS enforce", sts: enforce, mx: daneMX(daneBogus, true),
			status: StatusFail, severity: SeverityHigh, summary: daneRules[dane.CodeBogus].say, details: []text{daneFactInconclusive}},
		{name: "no TLSA anywhere", sts: absent, mx: daneMX(daneNone, true),
			status: StatusFail, severity: SeverityLow, summary: stsMissing.say, absent: []text{daneFactUnverifiable, stsDANEOnly.say}},
		{name: "resolver does not validate", sts: absent, mx: daneMX(daneUnsigned, false),
			status: StatusFail, severity: SeverityLow, summary: stsMissing.say, details: []text{daneFactUnverifiable},
			absent: []text{daneRules[dane.CodeUnsigned].say, daneRules[dane.CodeMXUnsigned].say}},
		{name: "resolver does not validate, usable-looking", sts: absent, mx: daneMX(daneUsable, false),
			status: StatusFail, severity: SeverityLow, summary: stsMissing.say, details: []text{daneFactUnverifiable}, absent: []text{stsDANEOnly.say}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judgeMTASTS(tc.sts, tc.mx)
			assert.Equal(t, tc.status, v.status, "status")
			assert.Equal(t, tc.severity, v.severity, "severity")
			if tc.summary.en != "" {
				assert.Equal(t, tc.summary.format(), v.summary, "summary")
			}
			details := joinTexts(v.details).EN
			for _, d := range tc.details {
				assert.Contains(t, details, stem(d), "details")
			}
			for _, d := range tc.absent {
				assert.NotContains(t, details+" "+v.summary.EN, stem(d))
			}
			assert.Equal(t, Determined, v.determination)
		})
	}
}

// stem is the English text of t up to its first verb.
func stem(t text) string {
	s, _, _ := strings.Cut(t.en, "%")
	return s
}

// TestMXDANEFacts: the MX details state DANE as a fact, and only when TLSA
// records are published.
func TestMXDANEFacts(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []LocalizedText{mxFactDANE.format(2, 2)}, mxDANEFacts(daneFacts{checked: true, validating: true, res: daneUsable}))
	assert.Equal(t, []LocalizedText{mxFactDANE.format(1, 2)}, mxDANEFacts(daneFacts{checked: true, validating: true, res: danePartial}))
	assert.Equal(t, []LocalizedText{mxFactDANEUnverified.format(2, 2)}, mxDANEFacts(daneFacts{checked: true, validating: false, res: daneUsable}))
	assert.Empty(t, mxDANEFacts(daneFacts{checked: true, validating: true, res: daneNone}))
	assert.Empty(t, mxDANEFacts(daneFacts{}))
	assert.Equal(t, "DANE: 1 of 2 mail servers publish DNSSEC-validated TLSA records that senders can use.", mxFactDANE.format(1, 2).EN)
	assert.Equal(t, "DANE：2 台收件服务器中有 1 台发布了经 DNSSEC 验证、发件方可以使用的 TLSA 记录。", mxFactDANE.format(1, 2).ZH)
}

// TestDANECodesJudged: every DANE finding has a rule or a documented
// reason to have none.
func TestDANECodesJudged(t *testing.T) {
	t.Parallel()
	for _, c := range dane.Codes() {
		_, ruled := daneRules[c]
		_, ignored := daneIgnored[c]
		assert.True(t, ruled != ignored, "%s: exactly one of a rule or a reason", c)
	}
	assert.Equal(t, "Mail servers without TLSA records: 1 of 2; mail delivered to them is not protected by DANE.",
		daneRules[dane.CodePartial].say.format(1, 2).EN)
	assert.Equal(t, "在 2 台收件服务器中，有 1 台没有 TLSA 记录，投递到这些服务器的邮件不受 DANE 保护。",
		daneRules[dane.CodePartial].say.format(1, 2).ZH)
}
