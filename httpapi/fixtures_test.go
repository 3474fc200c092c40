package httpapi

import (
	"time"

	"github.com/mailauth/mailauth"
)

func ptr[T any](v T) *T { return &v }

func lt(zh, en string) mailauth.LocalizedText { return mailauth.LocalizedText{ZH: zh, EN: en} }

// SampleScanSummary is a complete, contract-valid ScanSummary with every
// kind of diagnostics, nulls and texts that need no HTML escaping
// ("<", ">", "&" must reach the wire as they are).
func SampleScanSummary() mailauth.ScanSummary {
	return mailauth.ScanSummary{
		Domain:        "xn--fiqs8s.example.com",
		UnicodeDomain: "中国.example.com",
		DKIMSelector:  ptr("s1"),
		SendingIP:     ptr("8.8.8.8"),
		ScannedAt:     time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC),
		DurationMs:    1234,
		Score:         88,
		Grade:         mailauth.GradeB,
		Counts:        countsOf(sampleChecks()),
		Summary:       lt("大部分配置正确。", "Mostly configured <well> & aligned."),
		Checks:        sampleChecks(),
		Disclaimer:    lt("结果仅反映扫描时的公开配置。", "Results describe public configuration at scan time."),
	}
}

func check(id mailauth.CheckID, st mailauth.Status, sev mailauth.Severity, d mailauth.Diagnostics) mailauth.CheckSummary {
	return mailauth.CheckSummary{
		ID: id, Title: lt(string(id)+" 标题", string(id)+" title"),
		Status: st, Severity: sev,
		Summary: lt("摘要", string(id)+" summary"), Details: lt("详情", string(id)+" details\nsecond line"),
		Diagnostics: d,
	}
}

// sampleChecks has one check of each id of mailauth.CheckOrder, in
// order: the samples below where there is one, an info check otherwise.
func sampleChecks() []mailauth.CheckSummary {
	samples := map[mailauth.CheckID]mailauth.CheckSummary{}
	for _, c := range []mailauth.CheckSummary{
		check(mailauth.CheckMX, mailauth.StatusPass, mailauth.SeverityInfo, nil),
		check(mailauth.CheckSPF, mailauth.StatusPass, mailauth.SeverityInfo, &mailauth.SPFDiagnostics{
			SPFRecordCount: 1, DNSLookupCount: ptr(3), DNSLookupLimit: 10, LookupComplete: true}),
		check(mailauth.CheckDMARC, mailauth.StatusWarn, mailauth.SeverityMedium, &mailauth.DMARCDiagnostics{
			DirectRecordCount: ptr(0), PolicyFound: ptr(true), PolicyDomain: ptr("example.com"),
			Inherited: ptr(true), PolicyTag: ptr(mailauth.DMARCTagSP), Policy: ptr(mailauth.DMARCPolicyNone), UsesNoneFallback: ptr(false),
			TestMode: ptr(false), DKIMAlignment: ptr(mailauth.DMARCAlignmentRelaxed), SPFAlignment: ptr(mailauth.DMARCAlignmentStrict),
			AggregateReporting: ptr(true), TreeWalkQueries: 2, ConflictingRecords: false,
			DomainExistence: ptr(mailauth.DomainExists), LegacyPctPresent: nil}),
		check(mailauth.CheckDKIM, mailauth.StatusPass, mailauth.SeverityInfo, &mailauth.DKIMDiagnostics{
			RecordCount: ptr(1), KeyType: ptr(mailauth.DKIMKeyEd25519), PublicKeyPresent: ptr(true), Revoked: ptr(false),
			TestMode: ptr(false), StrictIdentity: ptr(false), EmailServiceAllowed: ptr(true), SHA256Allowed: ptr(true)}),
		check(mailauth.CheckMTASTS, mailauth.StatusPass, mailauth.SeverityInfo, &mailauth.MTASTSDiagnostics{
			AnnouncementRecordCount: ptr(1), AnnouncementValid: ptr(true), PolicyFetchState: "fetched",
			PolicyValid: ptr(true), PolicyMode: ptr(mailauth.MTASTSEnforce), MaxAge: ptr(int64(31557600)), MXPatternCount: ptr(2)}),
		check(mailauth.CheckTLSRPT, mailauth.StatusFail, mailauth.SeverityLow, &mailauth.TLSRPTDiagnostics{
			RecordCount: ptr(0), Configured: ptr(false), DestinationCount: nil,
			MailtoDestinationCount: nil, HTTPSDestinationCount: nil}),
		check(mailauth.CheckPTR, mailauth.StatusPass, mailauth.SeverityInfo, samplePtrDiagnostics()),
		check(mailauth.CheckCAA, mailauth.StatusInfo, mailauth.SeverityInfo, nil),
	} {
		samples[c.ID] = c
	}
	var out []mailauth.CheckSummary
	for _, id := range mailauth.CheckOrder() {
		c, ok := samples[id]
		if !ok {
			c = check(id, mailauth.StatusInfo, mailauth.SeverityInfo, nil)
		}
		out = append(out, c)
	}
	return out
}

// countsOf counts checks by status.
func countsOf(checks []mailauth.CheckSummary) mailauth.StatusCounts {
	var n mailauth.StatusCounts
	for _, c := range checks {
		switch c.Status {
		case mailauth.StatusPass:
			n.Pass++
		case mailauth.StatusWarn:
			n.Warn++
		case mailauth.StatusFail:
			n.Fail++
		default:
			n.Info++
		}
	}
	return n
}

func samplePtrDiagnostics() *mailauth.PTRDiagnostics {
	return &mailauth.PTRDiagnostics{
		IPVersion: 4, PTRRecordCount: ptr(1), ForwardRecordType: "A", ForwardQueryCount: 1,
		ForwardQueriesCompleted: 1, ForwardAddressCount: ptr(1), ForwardConfirmed: ptr(true),
	}
}

// SamplePtrCheckSummary is a complete, contract-valid PtrCheckSummary.
func SamplePtrCheckSummary() mailauth.PTRCheckSummary {
	return mailauth.PTRCheckSummary{
		SendingIP:  "8.8.8.8",
		CheckedAt:  time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC),
		DurationMs: 42,
		Check:      check(mailauth.CheckPTR, mailauth.StatusPass, mailauth.SeverityInfo, samplePtrDiagnostics()),
		Disclaimer: lt("结果仅反映检查时的公开配置。", "Results describe public configuration at check time."),
	}
}
