package mailauth

import (
	"net/netip"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/caa"
	"github.com/mailauth/mailauth/dkim"
	"github.com/mailauth/mailauth/dmarc"
	"github.com/mailauth/mailauth/mtasts"
	"github.com/mailauth/mailauth/mx"
	"github.com/mailauth/mailauth/ptr"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/spf"
	"github.com/mailauth/mailauth/tlsrpt"
)

// verdictRow is one pinned row of a judgement table: the verdict the
// judge must reach on some facts. Status and severity are written out
// here, never read from the production tables, so a changed rule fails
// until its row changes too. Expected texts are rendered with format, so
// they do not count as reached (text_reach_test.go).
type verdictRow struct {
	name     string
	v        verdict
	status   Status
	severity Severity
	summary  text
	args     []int  // of summary
	details  []text // sentences the details must contain (without arguments)
}

func (row verdictRow) check(t *testing.T) {
	t.Helper()
	v := row.v
	assert.Equal(t, row.status, v.status, "%s: verdict %s/%s, want %s/%s (%q)", row.name, v.status, v.severity, row.status, row.severity, v.summary.EN)
	assert.Equal(t, row.severity, v.severity, "%s: verdict %s/%s, want %s/%s (%q)", row.name, v.status, v.severity, row.status, row.severity, v.summary.EN)
	want := row.summary.format(row.args...)
	assert.Equal(t, want, v.summary, "%s: summary %q, want %q", row.name, v.summary.EN, want.EN)
	assert.NotEmpty(t, v.details, "%s: no details: the card would say only %q", row.name, txtNoDetails.en)
	d := joinTexts(v.details)
	for _, x := range row.details {
		assert.Regexp(t, sentencePattern(x.en), d.EN, "%s: details %q lack %q", row.name, d.EN, x.en)
		assert.Regexp(t, sentencePattern(x.zh), d.ZH, "%s: details %q lack %q", row.name, d.EN, x.en)
	}
}

// sentencePattern matches a catalogue sentence with any integers in
// place of its parameters.
func sentencePattern(s string) *regexp.Regexp {
	parts := verb.Split(s, -1)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(strings.Join(parts, `\d+`))
}

// pin is the status and severity a judgement rule is pinned to.
type pin struct {
	status   Status
	severity Severity
}

// pinnedRows returns one row per rule of a check: judge, given a finding,
// returns the verdict on facts with that finding and the parameters of
// its sentence; the verdict must be the pin and the rule's sentence. A
// rule without a pin, or a pin without a rule, fails t.
func pinnedRows[C ~string](t *testing.T, rules map[C]rule, pins map[C]pin, judge func(C) (verdict, []int)) []verdictRow {
	t.Helper()
	var rows []verdictRow
	for code, p := range pins {
		r, ok := rules[code]
		if !assert.True(t, ok, "%s is pinned but has no rule", code) {
			continue
		}
		v, args := judge(code)
		rows = append(rows, verdictRow{name: string(code), v: v, status: p.status, severity: p.severity, summary: r.say, args: args})
	}
	for code := range rules {
		assert.Contains(t, pins, code, "the rule for %s is not pinned", code)
	}
	return rows
}

func runRows(t *testing.T, rows []verdictRow) {
	t.Helper()
	for _, row := range rows {
		row.check(t)
	}
}

// --- DKIM ---

func dkimKey(codes ...dkim.Code) dkim.Result {
	return dkim.Result{Outcome: resolver.Found, RecordCount: new(1), KeyType: dkim.KeyTypeRSA, KeyBits: 2048,
		PublicKeyPresent: new(true), Revoked: new(false), TestMode: new(false), StrictIdentity: new(false),
		EmailServiceAllowed: new(true), SHA256Allowed: new(true), Usable: new(true), Findings: codes}
}

func TestJudgeDKIMTable(t *testing.T) {
	fail, warn := StatusFail, StatusWarn
	pins := map[dkim.Code]pin{
		dkim.CodeNoRecord:             {fail, SeverityHigh},
		dkim.CodeDanglingCNAME:        {fail, SeverityHigh},
		dkim.CodeMultipleRecords:      {warn, SeverityMedium},
		dkim.CodeNotDKIMRecord:        {fail, SeverityHigh},
		dkim.CodeInvalidVersion:       {fail, SeverityHigh},
		dkim.CodeVersionNotFirst:      {fail, SeverityHigh},
		dkim.CodeDuplicateTag:         {fail, SeverityHigh},
		dkim.CodeKeyMissing:           {fail, SeverityHigh},
		dkim.CodeKeyRevoked:           {fail, SeverityMedium},
		dkim.CodeInvalidBase64:        {fail, SeverityHigh},
		dkim.CodeInvalidKey:           {fail, SeverityHigh},
		dkim.CodeInvalidEd25519Length: {fail, SeverityHigh},
		dkim.CodeUnknownKeyType:       {fail, SeverityHigh},
		dkim.CodeKeyTooShort:          {fail, SeverityHigh},
		dkim.CodeSHA256NotAllowed:     {fail, SeverityHigh},
		dkim.CodeServiceNotEmail:      {fail, SeverityHigh},
		dkim.CodeWeakKey:              {warn, SeverityMedium},
		dkim.CodeTestMode:             {warn, SeverityLow},
		dkim.CodePKCS1Key:             {warn, SeverityLow},
		dkim.CodeLargeKey:             {warn, SeverityLow},
	}
	rows := pinnedRows(t, dkimRules, pins, func(c dkim.Code) (verdict, []int) {
		res := dkimKey(c)
		if c == dkim.CodeMultipleRecords {
			res.RecordCount = new(2)
			return judgeDKIM(res), []int{2}
		}
		return judgeDKIM(res), nil
	})
	ed := dkimKey()
	ed.KeyType, ed.KeyBits, ed.StrictIdentity, ed.Aliased = dkim.KeyTypeEd25519, 0, new(true), true
	rows = append(rows,
		verdictRow{name: "rsa pass", v: judgeDKIM(dkimKey()), status: StatusPass, severity: SeverityInfo, summary: dkimPass.say, details: []text{dkimFactRSA}},
		verdictRow{name: "ed25519 strict alias", v: judgeDKIM(ed), status: StatusPass, severity: SeverityInfo, summary: dkimPass.say,
			details: []text{dkimFactEd25519, dkimFactStrict, dkimFactAlias}},
		verdictRow{name: "inconclusive", v: judgeDKIM(dkim.Result{Outcome: resolver.Inconclusive}), status: StatusWarn, severity: SeverityMedium, summary: txtInconclusive},
	)
	runRows(t, rows)
	d := joinTexts(judgeDKIM(dkimKey()).details)
	assert.Contains(t, d.EN, "2048 bits", "RSA fact %q lacks the key length", d.EN)
}

// --- MX ---

func mxExplicit(c mx.Counts, codes ...mx.Code) mx.Result {
	return mx.Result{Outcome: resolver.Found, Kind: mx.KindExplicit, RecordCount: c.Distinct, Counts: c, Findings: codes}
}

func TestJudgeMXTable(t *testing.T) {
	ok := mx.Counts{Distinct: 2, Checked: 2, Usable: 2}
	pins := map[mx.Code]pin{
		mx.CodeExchangeAlias:        {StatusWarn, SeverityLow},
		mx.CodeExchangeIPLiteral:    {StatusWarn, SeverityMedium},
		mx.CodeExchangeNotHostname:  {StatusWarn, SeverityLow},
		mx.CodeExchangeIPv6Only:     {StatusWarn, SeverityLow},
		mx.CodeExchangeDuplicated:   {StatusWarn, SeverityLow},
		mx.CodeExchangeInconclusive: {StatusWarn, SeverityMedium},
		mx.CodeTooManyExchanges:     {StatusWarn, SeverityLow},
		mx.CodeNullMXMixed:          {StatusFail, SeverityHigh},
		mx.CodeNullMXInvalid:        {StatusWarn, SeverityMedium},
	}
	rows := pinnedRows(t, mxRules, pins, func(c mx.Code) (verdict, []int) {
		switch c {
		case mx.CodeNullMXMixed, mx.CodeNullMXInvalid:
			return judgeMX(mx.Result{Outcome: resolver.Found, Kind: mx.KindNull, RecordCount: 2, Findings: []mx.Code{c}}), nil
		case mx.CodeExchangeInconclusive:
			n := ok
			n.Inconclusive = 1
			return judgeMX(mxExplicit(n, c)), []int{1}
		}
		return judgeMX(mxExplicit(ok, c)), nil
	})
	null := mx.Result{Outcome: resolver.Found, Kind: mx.KindNull, RecordCount: 1}
	implicitNone := mx.Result{Outcome: resolver.NoData, Kind: mx.KindImplicit, Counts: mx.Counts{Distinct: 1, Checked: 1, NotPublic: 1},
		Findings: []mx.Code{mx.CodeExchangeNotPublic, mx.CodeNoUsableExchange}}
	implicitOK := mx.Result{Outcome: resolver.NoData, Kind: mx.KindImplicit, Counts: mx.Counts{Distinct: 1, Checked: 1, Usable: 1}}
	rows = append(rows,
		verdictRow{name: "pass", v: judgeMX(mxExplicit(ok)), status: StatusPass, severity: SeverityInfo, summary: mxPass.say, details: []text{mxFactCount}},
		verdictRow{name: "null", v: judgeMX(null), status: StatusInfo, severity: SeverityInfo, summary: mxNull.say, details: []text{mxFactNull}},
		verdictRow{name: "implicit", v: judgeMX(implicitOK), status: StatusWarn, severity: SeverityMedium, summary: mxImplicit.say, details: []text{mxFactImplicit}},
		verdictRow{name: "implicit unusable", v: judgeMX(implicitNone), status: StatusFail, severity: SeverityCritical, summary: mxNoneUsable.say, details: []text{mxImplicit.say}},
		verdictRow{name: "none", v: judgeMX(mx.Result{Outcome: resolver.NoData, Kind: mx.KindNone}), status: StatusFail, severity: SeverityCritical, summary: mxNone.say},
		verdictRow{name: "nxdomain", v: judgeMX(mx.Result{Outcome: resolver.NXDomain, Kind: mx.KindNXDomain}), status: StatusFail, severity: SeverityCritical, summary: mxNXDomain.say},
		verdictRow{name: "inconclusive", v: judgeMX(mx.Result{Outcome: resolver.Inconclusive, Kind: mx.KindInconclusive}), status: StatusWarn, severity: SeverityMedium, summary: txtInconclusive},
		verdictRow{name: "none usable", v: judgeMX(mxExplicit(mx.Counts{Distinct: 2, Checked: 2, NXDomain: 1, NoAddress: 1},
			mx.CodeExchangeNXDomain, mx.CodeExchangeNoAddress, mx.CodeNoUsableExchange)), status: StatusFail, severity: SeverityCritical, summary: mxNoneUsable.say},
		verdictRow{name: "some unusable", v: judgeMX(mxExplicit(mx.Counts{Distinct: 3, Checked: 3, Usable: 2, NotPublic: 1}, mx.CodeExchangeNotPublic)),
			status: StatusWarn, severity: SeverityMedium, summary: mxSomeUnusable.say, args: []int{3, 1}},
	)
	runRows(t, rows)
}

// --- MTA-STS ---

func stsFetched(mode mtasts.Mode, codes ...mtasts.Code) mtasts.Result {
	return mtasts.Result{Outcome: resolver.Found, AnnouncementRecordCount: new(1), AnnouncementValid: new(true), FetchState: mtasts.Fetched,
		HTTPStatus: 200, PolicyValid: new(true), PolicyMode: mode, MaxAge: new(int64(86400)), MXPatternCount: new(1),
		Policy: mtasts.Policy{Mode: mode, MaxAge: new(int64(86400)), MX: []string{"mx.example.com"}}, Findings: codes}
}

func TestJudgeMTASTSTable(t *testing.T) {
	covered := mxFacts{known: true, hosts: []string{"mx.example.com"}}
	pins := map[mtasts.Code]pin{
		mtasts.CodePolicyMediaType: {StatusWarn, SeverityLow}, mtasts.CodePolicyMaxAgeZero: {StatusWarn, SeverityLow},
		mtasts.CodePolicyDuplicateField: {StatusWarn, SeverityLow}, mtasts.CodeAnnouncementDuplicateField: {StatusWarn, SeverityLow},
	}
	rows := pinnedRows(t, stsRules, pins, func(c mtasts.Code) (verdict, []int) {
		return judgeMTASTS(stsFetched(mtasts.ModeEnforce, c), covered), nil
	})
	notFetched := func(state mtasts.FetchState, code mtasts.Code) mtasts.Result {
		return mtasts.Result{Outcome: resolver.Found, AnnouncementRecordCount: new(1), AnnouncementValid: new(false), FetchState: state, Findings: []mtasts.Code{code}}
	}
	// Every note, under the state it belongs to.
	for code, note := range stsNotes {
		// The expected status and severity are literals, not read from
		// the production rules, so a changed rule fails here.
		var res mtasts.Result
		var main rule
		var want pin
		switch {
		case strings.HasPrefix(string(code), "announcement_"):
			res, main, want = notFetched(mtasts.NotAttempted, code), stsBadAnnounce, pin{StatusFail, SeverityMedium}
		case code == mtasts.CodePolicyHostDNSInconclusive || code == mtasts.CodePolicyFetchTimeout:
			res, main, want = notFetched(mtasts.Inconclusive, code), stsFetchUnknown, pin{StatusWarn, SeverityMedium}
		case code == mtasts.CodePolicyHostNotFound || code == mtasts.CodePolicyHostNonPublic || code == mtasts.CodePolicyConnectFailed ||
			strings.HasPrefix(string(code), "policy_cert") || code == mtasts.CodePolicyTLSFailed || code == mtasts.CodePolicyHTTPFailed ||
			code == mtasts.CodePolicyRedirect || strings.HasPrefix(string(code), "policy_status") || code == mtasts.CodePolicyTooLarge:
			res, main, want = notFetched(mtasts.Unreachable, code), stsUnreachable, pin{StatusFail, SeverityMedium}
		default:
			res = stsFetched(mtasts.ModeEnforce, code)
			res.PolicyValid, main, want = new(false), stsInvalid, pin{StatusFail, SeverityMedium}
		}
		rows = append(rows, verdictRow{name: "note " + string(code), v: judgeMTASTS(res, covered), status: want.status, severity: want.severity,
			summary: main.say, details: []text{note}})
	}
	uncovered := mxFacts{known: true, hosts: []string{"mx.example.com", "other.example.net"}}
	rows = append(rows,
		verdictRow{name: "enforce", v: judgeMTASTS(stsFetched(mtasts.ModeEnforce), covered), status: StatusPass, severity: SeverityInfo,
			summary: stsEnforce.say, details: []text{stsFactCovered, stsFactMaxAge}},
		verdictRow{name: "testing", v: judgeMTASTS(stsFetched(mtasts.ModeTesting), covered), status: StatusWarn, severity: SeverityLow, summary: stsTesting.say},
		verdictRow{name: "mode none", v: judgeMTASTS(stsFetched(mtasts.ModeNone), covered), status: StatusFail, severity: SeverityLow, summary: stsModeNone.say},
		verdictRow{name: "enforce uncovered", v: judgeMTASTS(stsFetched(mtasts.ModeEnforce), uncovered), status: StatusFail, severity: SeverityHigh,
			summary: stsUncovered.say, args: []int{1}},
		verdictRow{name: "testing uncovered", v: judgeMTASTS(stsFetched(mtasts.ModeTesting), uncovered), status: StatusWarn, severity: SeverityLow,
			summary: stsTesting.say, details: []text{stsUncoveredTry.say}},
		verdictRow{name: "mx unknown", v: judgeMTASTS(stsFetched(mtasts.ModeEnforce), mxFacts{}), status: StatusWarn, severity: SeverityMedium, summary: stsMXUnknown.say},
		verdictRow{name: "not announced", v: judgeMTASTS(mtasts.Result{Outcome: resolver.NXDomain, AnnouncementRecordCount: new(0), AnnouncementValid: new(false), FetchState: mtasts.NotAnnounced}, covered),
			status: StatusFail, severity: SeverityLow, summary: stsMissing.say, details: []text{stsFactNoRecord}},
		verdictRow{name: "not announced, mx unknown", v: judgeMTASTS(mtasts.Result{Outcome: resolver.NXDomain, AnnouncementRecordCount: new(0), AnnouncementValid: new(false), FetchState: mtasts.NotAnnounced}, mxFacts{}),
			status: StatusFail, severity: SeverityLow, summary: stsMissing.say, details: []text{stsFactMXMaybe}},
		verdictRow{name: "null mx", v: judgeMTASTS(mtasts.Result{Outcome: resolver.NXDomain, AnnouncementRecordCount: new(0), AnnouncementValid: new(false), FetchState: mtasts.NotAnnounced}, mxFacts{known: true, nullMX: true}),
			status: StatusInfo, severity: SeverityInfo, summary: stsNoMail.say},
		verdictRow{name: "txt inconclusive", v: judgeMTASTS(mtasts.Result{Outcome: resolver.Inconclusive, FetchState: mtasts.Inconclusive}, covered),
			status: StatusWarn, severity: SeverityMedium, summary: txtInconclusive},
	)
	runRows(t, rows)
}

// --- TLS-RPT ---

func TestJudgeTLSRPTTable(t *testing.T) {
	noMX := func() mxFacts { return mxFacts{known: true, hosts: []string{"mx.example.com"}} }
	good := tlsrpt.Result{Outcome: resolver.Found, RecordCount: new(1), RecordValid: new(true), Configured: new(true), DestinationCount: new(2), MailtoDestinationCount: new(1), HTTPSDestinationCount: new(1)}
	with := func(r tlsrpt.Result, configured bool, codes ...tlsrpt.Code) tlsrpt.Result {
		r.Configured, r.Findings = new(configured), codes
		return r
	}
	pins := map[tlsrpt.Code]pin{
		tlsrpt.CodeMultipleRecords: {StatusFail, SeverityLow}, tlsrpt.CodeSomeInvalidDestinations: {StatusWarn, SeverityLow},
		tlsrpt.CodeDuplicateRUA: {StatusWarn, SeverityLow},
	}
	rows := pinnedRows(t, rptRules, pins, func(c tlsrpt.Code) (verdict, []int) {
		if c == tlsrpt.CodeMultipleRecords {
			r := with(good, false, c)
			r.RecordCount = new(2)
			return judgeTLSRPT(r, noMX), []int{2}
		}
		return judgeTLSRPT(with(good, true, c), noMX), nil
	})
	for code, note := range rptNotes {
		rows = append(rows, verdictRow{name: "note " + string(code), v: judgeTLSRPT(with(good, false, code), noMX), status: StatusFail, severity: SeverityLow,
			summary: rptInvalid.say, details: []text{note}})
	}
	rows = append(rows,
		verdictRow{name: "pass", v: judgeTLSRPT(good, noMX), status: StatusPass, severity: SeverityInfo, summary: rptPass.say, details: []text{rptFactDest}},
		verdictRow{name: "missing", v: judgeTLSRPT(tlsrpt.Result{Outcome: resolver.NXDomain, RecordCount: new(0)}, noMX), status: StatusFail, severity: SeverityLow,
			summary: rptMissing.say, details: []text{rptFactNoRecord}},
		verdictRow{name: "null mx", v: judgeTLSRPT(tlsrpt.Result{Outcome: resolver.NXDomain, RecordCount: new(0)}, func() mxFacts { return mxFacts{known: true, nullMX: true} }),
			status: StatusInfo, severity: SeverityInfo, summary: rptNoMail.say},
		verdictRow{name: "inconclusive", v: judgeTLSRPT(tlsrpt.Result{Outcome: resolver.Inconclusive}, noMX), status: StatusWarn, severity: SeverityMedium,
			summary: txtInconclusive},
	)
	runRows(t, rows)
}

// --- PTR ---

func TestJudgePTRTable(t *testing.T) {
	ip := netip.MustParseAddr("192.0.2.1")
	base := ptr.Result{IPVersion: 4, Outcome: resolver.Found, NameCount: new(1), ForwardType: resolver.TypeA, ForwardQueries: 1, ForwardCompleted: 1, ForwardAddresses: new(1), Confirmed: ptr.Confirmed}
	with := func(c ptr.Confirmation, queries int, codes ...ptr.Code) ptr.Result {
		r := base
		r.Confirmed, r.ForwardQueries, r.Findings = c, queries, codes
		return r
	}
	pins := map[ptr.Code]pin{
		ptr.CodeLocalhostName: {StatusWarn, SeverityMedium}, ptr.CodeInvalidName: {StatusWarn, SeverityLow},
		ptr.CodeTooManyNames: {StatusWarn, SeverityLow}, ptr.CodeGenericName: {StatusWarn, SeverityLow},
	}
	rows := pinnedRows(t, ptrRules, pins, func(c ptr.Code) (verdict, []int) { return judgePTR(ip, with(ptr.Confirmed, 1, c)), nil })
	rows = append(rows,
		verdictRow{name: "confirmed", v: judgePTR(ip, base), status: StatusPass, severity: SeverityInfo, summary: ptrPass.say, details: []text{ptrFactNames}},
		verdictRow{name: "no ptr", v: judgePTR(ip, ptr.Result{IPVersion: 4, Outcome: resolver.NXDomain, NameCount: new(0), Confirmed: ptr.NotConfirmed, Findings: []ptr.Code{ptr.CodeNoPTR}}),
			status: StatusFail, severity: SeverityHigh, summary: ptrNoPTR.say},
		verdictRow{name: "mismatch", v: judgePTR(ip, with(ptr.NotConfirmed, 1)), status: StatusFail, severity: SeverityHigh, summary: ptrMismatch.say},
		verdictRow{name: "no usable name", v: judgePTR(ip, with(ptr.NotConfirmed, 0, ptr.CodeInvalidName)), status: StatusFail, severity: SeverityHigh, summary: ptrNoUsableName.say},
		verdictRow{name: "unknown", v: judgePTR(ip, with(ptr.Unknown, 1, ptr.CodeForwardInconclusive)), status: StatusWarn, severity: SeverityMedium, summary: ptrUnknown.say},
		verdictRow{name: "inconclusive", v: judgePTR(ip, ptr.Result{IPVersion: 4, Outcome: resolver.Inconclusive, Confirmed: ptr.Unknown}), status: StatusWarn, severity: SeverityMedium,
			summary: txtInconclusive},
	)
	runRows(t, rows)
}

// --- CAA ---

func caaFound(issuers int, codes ...caa.Code) caa.Set {
	return caa.Set{Outcome: resolver.Found, Lookups: 1, PropertyCount: issuers + len(codes), Restricts: issuers > 0, CanIssue: true,
		CanIssueWildcard: true, IssuerCount: issuers, Findings: codes}
}

func TestJudgeCAATable(t *testing.T) {
	none := caa.Set{Outcome: resolver.NXDomain, Lookups: 2}
	pins := map[caa.Code]pin{}
	for _, c := range []caa.Code{caa.CodeInvalidTag, caa.CodeReservedFlags, caa.CodeIssueMalformed, caa.CodeIssueWildMalformed,
		caa.CodeIssueMailMalformed, caa.CodeIssuerTrailingDot, caa.CodeIodefInvalid, caa.CodeIssuerCase} {
		pins[c] = pin{StatusWarn, SeverityLow}
	}
	pins[caa.CodeCriticalOptional] = pin{StatusWarn, SeverityMedium}
	rows := pinnedRows(t, caaRules, pins, func(c caa.Code) (verdict, []int) {
		return judgeCAA(caa.Result{Domain: caaFound(1, c), MTASTS: none}), nil
	})
	inherited := caaFound(1, caa.CodeUnknownTag)
	inherited.Inherited = true
	critical := caaFound(1, caa.CodeCriticalUnknown)
	critical.CriticalUnknown = true
	forbid := caaFound(0)
	forbid.Restricts, forbid.CanIssue = true, false
	wild := caaFound(0)
	wild.Restricts, wild.CanIssueWildcard, wild.WildcardIssuerCount = true, true, 1
	bare := caaFound(0)
	rows = append(rows,
		verdictRow{name: "pass inherited", v: judgeCAA(caa.Result{Domain: inherited, MTASTS: none}), status: StatusPass, severity: SeverityInfo,
			summary: caaPass.say, details: []text{caaNotes[caa.CodeUnknownTag], caaFactInherited}},
		verdictRow{name: "none", v: judgeCAA(caa.Result{Domain: none, MTASTS: none}), status: StatusInfo, severity: SeverityInfo, summary: caaNone.say, details: []text{caaFactNone}},
		verdictRow{name: "critical", v: judgeCAA(caa.Result{Domain: critical, MTASTS: none}), status: StatusFail, severity: SeverityHigh, summary: caaCritical.say},
		verdictRow{name: "forbid all", v: judgeCAA(caa.Result{Domain: forbid, MTASTS: none}), status: StatusWarn, severity: SeverityMedium, summary: caaForbidAll.say},
		verdictRow{name: "wildcard only", v: judgeCAA(caa.Result{Domain: wild, MTASTS: none}), status: StatusInfo, severity: SeverityInfo, summary: caaWildOnly.say},
		verdictRow{name: "no issue property", v: judgeCAA(caa.Result{Domain: bare, MTASTS: none}), status: StatusInfo, severity: SeverityInfo, summary: caaNoRestrict.say},
		verdictRow{name: "mta-sts host forbidden", v: judgeCAA(caa.Result{Domain: caaFound(1), MTASTS: forbid}), status: StatusWarn, severity: SeverityMedium, summary: caaMTASTSForbid.say},
		verdictRow{name: "mta-sts host unknown", v: judgeCAA(caa.Result{Domain: caaFound(1), MTASTS: caa.Set{Outcome: resolver.Inconclusive}}), status: StatusWarn, severity: SeverityMedium,
			summary: caaMTASTSUnknown.say},
		verdictRow{name: "inconclusive", v: judgeCAA(caa.Result{Domain: caa.Set{Outcome: resolver.Inconclusive, Findings: []caa.Code{caa.CodeClimbTruncated}}}), status: StatusWarn,
			severity: SeverityMedium, summary: txtInconclusive, details: []text{caaInconclusive}},
	)
	runRows(t, rows)
}

// --- DMARC states ---

func TestJudgeDMARCStates(t *testing.T) {
	noPolicy := dmarcFound("", dmarc.CodeMissingP)
	noPolicy.AggregateReporting = false
	fallback := dmarcFound(dmarc.PolicyNone, dmarc.CodeInvalidP)
	fallback.UsesNoneFallback = true
	testing_ := dmarcFound(dmarc.PolicyReject)
	testing_.TestMode = true
	own := dmarcFound(dmarc.PolicyQuarantine)
	own.DirectRecordCount, own.Inherited, own.PolicyDomain, own.PolicyTag = new(2), true, "com.example", dmarc.TagSP
	noRUA := dmarcFound(dmarc.PolicyReject)
	noRUA.AggregateReporting = false
	upperP := dmarcFound("", dmarc.CodeMissingP, dmarc.CodeTagNameCase) // v=DMARC1; P=reject
	upperP.AggregateReporting = false
	emptyMailto := dmarcFound(dmarc.PolicyNone, dmarc.CodeMissingP, dmarc.CodeURINoAddress) // v=DMARC1; rua=mailto:
	emptyMailto.UsesNoneFallback = true
	rows := []verdictRow{
		{name: "quarantine is pass", v: judgeDMARC(dmarcFound(dmarc.PolicyQuarantine)), status: StatusPass, severity: SeverityInfo, summary: dmarcPassQuarantine.say},
		{name: "reject", v: judgeDMARC(dmarcFound(dmarc.PolicyReject)), status: StatusPass, severity: SeverityInfo, summary: dmarcPassReject.say,
			details: []text{dmarcFactDirect, dmarcFactRUA}},
		{name: "quarantine, inherited, own records discarded", v: judgeDMARC(own), status: StatusWarn, severity: SeverityMedium, summary: dmarcOwnDiscarded.say,
			details: []text{dmarcPassQuarantine.say, dmarcFactInherited}},
		{name: "none", v: judgeDMARC(dmarcFound(dmarc.PolicyNone)), status: StatusWarn, severity: SeverityMedium, summary: dmarcNone.say},
		{name: "no valid policy", v: judgeDMARC(noPolicy), status: StatusFail, severity: SeverityHigh, summary: dmarcNoPolicy.say,
			details: []text{dmarcNotes[dmarc.CodeMissingP]}},
		{name: "none fallback", v: judgeDMARC(fallback), status: StatusWarn, severity: SeverityMedium, summary: dmarcFallback.say},
		{name: "P=reject is no p tag", v: judgeDMARC(upperP), status: StatusFail, severity: SeverityHigh, summary: dmarcNoPolicy.say,
			details: []text{dmarcRules[dmarc.CodeTagNameCase].say, dmarcNotes[dmarc.CodeMissingP]}},
		{name: "rua=mailto: supplies the none fallback", v: judgeDMARC(emptyMailto), status: StatusWarn, severity: SeverityMedium, summary: dmarcFallback.say,
			details: []text{dmarcNotes[dmarc.CodeURINoAddress]}},
		{name: "test mode", v: judgeDMARC(testing_), status: StatusWarn, severity: SeverityMedium, summary: dmarcTestMode.say, details: []text{dmarcPassReject.say}},
		{name: "no rua", v: judgeDMARC(noRUA), status: StatusPass, severity: SeverityInfo, summary: dmarcPassReject.say, details: []text{dmarcFactNoRUA}},
		{name: "missing", v: judgeDMARC(dmarc.Result{Domain: "example.com", Outcome: resolver.NXDomain, DirectRecordCount: new(0), Discovery: dmarc.DiscoveryNotFound, TreeWalkQueries: 2}),
			status: StatusFail, severity: SeverityHigh, summary: dmarcMissing.say, details: []text{dmarcFactWalk}},
		{name: "inconclusive", v: judgeDMARC(dmarc.Result{Domain: "example.com", Outcome: resolver.Inconclusive, Discovery: dmarc.DiscoveryInconclusive, TreeWalkQueries: 1}),
			status: StatusWarn, severity: SeverityMedium, summary: txtInconclusive},
	}
	runRows(t, rows)
}

// --- SPF states, facts and notes ---

func TestJudgeSPFStates(t *testing.T) {
	lower := spfValid(12, spf.QualifierFail, spf.CodeLookupLimitExceeded, spf.CodeIncludeInconclusive)
	lower.LookupComplete = false
	partial := spfValid(4, spf.QualifierFail, spf.CodeIncludeInconclusive)
	partial.LookupComplete = false
	none := spf.Result{Outcome: resolver.NoData, RecordCount: new(0), LookupLimit: spf.MaxLookups,
		Findings: []spf.Code{spf.CodeNoRecord, spf.CodeTypeSPFOnly, spf.CodeNearMiss}}
	notes := spfValid(1, spf.QualifierSoftFail, spf.CodeRedirectIgnored, spf.CodeUnknownModifier, spf.CodeVoidLookup, spf.CodeMacroUnexpandable)
	notes.VoidLookups, notes.MacroTerms, notes.HasRedirect = 1, 1, true
	rows := []verdictRow{
		{name: "pass", v: judgeSPF(spfValid(2, spf.QualifierFail)), status: StatusPass, severity: SeverityInfo, summary: spfPass.say, details: []text{spfFactCount}},
		{name: "softfail, notes and counts", v: judgeSPF(notes), status: StatusPass, severity: SeverityInfo, summary: spfPass.say,
			details: []text{spfFactSoftfail, spfFactRedirectSkip, spfNotes[spf.CodeUnknownModifier], spfFactVoid, spfFactMacro}},
		{name: "over the limit, lower bound", v: judgeSPF(lower), status: StatusFail, severity: SeverityHigh, summary: spfLimitAtLeast.say, args: []int{12}},
		{name: "partial count", v: judgeSPF(partial), status: StatusWarn, severity: SeverityMedium, summary: spfSubUnknown.say, details: []text{spfFactCountLower}},
		{name: "no record, type 99, near miss", v: judgeSPF(none), status: StatusFail, severity: SeverityHigh, summary: spfRules[spf.CodeNoRecord].say,
			details: []text{spfFactNoRecord, spfFactTypeSPF, spfFactNearMiss}},
		{name: "inconclusive", v: judgeSPF(spf.Result{Outcome: resolver.Inconclusive, LookupLimit: spf.MaxLookups, Findings: []spf.Code{spf.CodeTXTInconclusive}}),
			status: StatusWarn, severity: SeverityMedium, summary: txtInconclusive},
	}
	// Every syntax code of the domain's own record names the term.
	for code, at := range spfSyntaxAt {
		res := spf.Result{RecordCount: new(1), LookupLimit: spf.MaxLookups, Error: spf.ClassPermError,
			ErrorCause: code, Findings: []spf.Code{code}, SyntaxTerm: 4}
		rows = append(rows, verdictRow{name: "syntax " + string(code), v: judgeSPF(res), status: StatusFail, severity: SeverityHigh,
			summary: spfSyntax.say, details: []text{at, spfFactTermsNumbered}})
	}
	runRows(t, rows)
}

// TestOverallNone: a scan with no evaluated check says so.
func TestOverallNone(t *testing.T) {
	got := overallSummary(GradeF, StatusCounts{Info: 8}, 0, 0)
	require.Equal(t, txtOverallNone.format(), got, "summary %q", got.EN)
}
