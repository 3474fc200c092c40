// Package report is the wire contract of mailauth: the JSON objects the
// service answers with (ScanSummary, PTRCheckSummary, CheckSummary, the
// per-check diagnostics, LocalizedText, Health, Error), the values their
// enumerations allow, and the OpenAPI document that describes them
// (OpenAPI). Every other copy of the contract is taken from here: the
// scanner builds these types, httpapi encodes them and serves OpenAPI, the
// command line decodes them, analytics count them, and the web page's field
// list is tested against them. A test in this package fails when the Go
// types and the OpenAPI document disagree on a field's name, whether it is
// required or nullable, its bounds or its enumeration.
//
// The root package re-exports by alias every type and constant declared
// in report.go (contract.go, written by internal/cmd/genalias; a root
// test fails when it is out of date), so importers keep writing
// mailauth.ScanSummary. It leaves out two kinds of name. The service's
// own objects, Health and Error with StorageState and CommerceState, are
// answered only by httpapi, which takes them from here; a scanner never
// returns them. The functions and variables (OpenAPI, Encode,
// NewDiagnostics, TooIncomplete) are the means of the packages that build
// and serve the contract: httpapi offers OpenAPIDocument and Encode to
// its users, and the root uses the other two inside.
package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"time"
)

// OpenAPI is the contract's OpenAPI 3.1 document, served at /openapi.json.
//
//go:embed openapi.json
var OpenAPI []byte

// CheckID names one of the checks.
type CheckID string

// The checks, in the order a ScanSummary lists them (the scanner's
// checks table, mailauth.CheckOrder, and doc/scoring.md).
const (
	CheckMX     CheckID = "mx"
	CheckSPF    CheckID = "spf"
	CheckDMARC  CheckID = "dmarc"
	CheckDKIM   CheckID = "dkim"
	CheckMTASTS CheckID = "mta-sts"
	CheckTLSRPT CheckID = "tls-rpt"
	CheckPTR    CheckID = "ptr"
	CheckCAA    CheckID = "caa"
)

// Status is the verdict of one check.
type Status string

// Statuses.
const (
	StatusPass Status = "pass" // configured as it should be
	StatusWarn Status = "warn" // works, with a weakness, or could not be determined
	StatusFail Status = "fail" // missing or broken
	StatusInfo Status = "info" // not evaluated or not applicable; leaves the score
)

// Severity says how much a check's finding matters.
type Severity string

// Severities.
const (
	SeverityCritical Severity = "critical"
	SeverityHigh     Severity = "high"
	SeverityMedium   Severity = "medium"
	SeverityLow      Severity = "low"
	SeverityInfo     Severity = "info"
)

// Grade is the letter for a score (doc/scoring.md).
type Grade string

// Grades.
const (
	GradeA Grade = "A"
	GradeB Grade = "B"
	GradeC Grade = "C"
	GradeD Grade = "D"
	GradeF Grade = "F"
)

// LocalizedText is a text in Chinese and English.
type LocalizedText struct {
	ZH string `json:"zh"`
	EN string `json:"en"`
}

// StatusCounts counts the checks of a scan by status; the four always sum
// to the number of checks.
type StatusCounts struct {
	Pass int `json:"pass"`
	Warn int `json:"warn"`
	Fail int `json:"fail"`
	Info int `json:"info"`
}

// ScanSummary is the result of a scan: the API's 200 body of POST
// /api/scan.
type ScanSummary struct {
	Domain        string         `json:"domain"`
	UnicodeDomain string         `json:"unicodeDomain"`
	DKIMSelector  *string        `json:"dkimSelector"`
	SendingIP     *string        `json:"sendingIp"`
	ScannedAt     time.Time      `json:"scannedAt"`
	DurationMs    int64          `json:"durationMs"`
	Score         int            `json:"score"`
	Grade         Grade          `json:"grade"`
	Counts        StatusCounts   `json:"counts"`
	Summary       LocalizedText  `json:"summary"`
	Checks        []CheckSummary `json:"checks"`
	Disclaimer    LocalizedText  `json:"disclaimer"`
}

// PTRCheckSummary is the result of checking one sending IP: the API's 200
// body of POST /api/ptr-check.
type PTRCheckSummary struct {
	SendingIP  string        `json:"sendingIp"`
	CheckedAt  time.Time     `json:"checkedAt"`
	DurationMs int64         `json:"durationMs"`
	Check      CheckSummary  `json:"check"`
	Disclaimer LocalizedText `json:"disclaimer"`
}

// CheckSummary is the verdict of one check.
type CheckSummary struct {
	ID       CheckID       `json:"id"`
	Title    LocalizedText `json:"title"`
	Status   Status        `json:"status"`
	Severity Severity      `json:"severity"`
	Summary  LocalizedText `json:"summary"`
	Details  LocalizedText `json:"details"`
	// Diagnostics is one of *SPFDiagnostics, *DMARCDiagnostics,
	// *DKIMDiagnostics, *MTASTSDiagnostics, *TLSRPTDiagnostics or
	// *PTRDiagnostics, or nil where the contract has none (mx, caa, dkim
	// without a selector, ptr without a sending IP).
	Diagnostics Diagnostics `json:"diagnostics,omitempty"`
	// Determination says whether the check reached a conclusion, and if
	// not, why. It is not on the wire (the contract has no such field):
	// the scanner sets it from the rule that decided the verdict, and a
	// client reading the JSON restores it (see the root's
	// RestoreDetermination).
	Determination Determination `json:"-"`
	// DNSFault names the domain-side DNS fault a fail was attributed to
	// (its lookups were inconclusive because of the domain's own DNS, see
	// the root's attribution), NoDNSFault otherwise. Like Determination
	// it is not on the wire; metrics read it.
	DNSFault DNSFault `json:"-"`
}

// Determination says whether a check reached a conclusion. The zero
// value, Determined, is a verdict that rests on what was found.
type Determination uint8

// Values of Determination.
const (
	// Determined: the verdict rests on conclusive answers.
	Determined Determination = iota
	// UndeterminedLookup: a DNS lookup (or the MTA-STS fetch) that decides
	// the check's status gave no conclusive answer.
	UndeterminedLookup
	// UndeterminedTimeout: the check did not finish within the scan's
	// deadline.
	UndeterminedTimeout
	// UndeterminedInternal: the check failed internally.
	UndeterminedInternal
	// UndeterminedSlow: a lookup that decides the check's status was still
	// being worked on by the resolver when the check's time ran out (the
	// domain's name servers, or the machine, too slow for this scan).
	// Slowness, not a verdict: the check is left out of the score.
	UndeterminedSlow
)

var determinationNames = [...]string{"determined", "undetermined_lookup", "undetermined_timeout", "undetermined_internal", "undetermined_slow"}

// String names the determination ("determined", "undetermined_lookup",
// "undetermined_timeout", "undetermined_internal", "undetermined_slow"),
// for logs and metrics.
func (d Determination) String() string {
	if int(d) < len(determinationNames) {
		return determinationNames[d]
	}
	return "undetermined"
}

// DNSFault names the domain-side DNS fault a check's verdict was
// attributed to. The zero value, NoDNSFault, is a verdict that rests on
// conclusive answers or stayed undetermined.
type DNSFault uint8

// Values of DNSFault.
const (
	// NoDNSFault: no domain-side DNS fault decided the verdict.
	NoDNSFault DNSFault = iota
	// DNSFaultDNSSEC: the DNSSEC signatures do not validate.
	DNSFaultDNSSEC
	// DNSFaultNoAnswer: the name servers refuse, do not answer, are
	// lame or slower than the deadline.
	DNSFaultNoAnswer
	// DNSFaultAlias: a CNAME chain loops or is too long.
	DNSFaultAlias
)

var dnsFaultNames = [...]string{"none", "dnssec", "no_answer", "alias"}

// String names the fault ("none", "dnssec", "no_answer", "alias"), for
// logs and metrics.
func (f DNSFault) String() string {
	if int(f) < len(dnsFaultNames) {
		return dnsFaultNames[f]
	}
	return "other"
}

// Undetermined reports whether the check reached no conclusion. Such a
// check is reported as warn but leaves the score like an info check
// (doc/scoring.md).
func (c CheckSummary) Undetermined() bool { return c.Determination != Determined }

// Incomplete reports whether the scan is too incomplete to be a grade:
// more than half of its evaluated (non-info) checks could not be
// determined. Its summary then says so; the CLI exits 3.
func (s ScanSummary) Incomplete() bool {
	evaluated, undetermined := 0, 0
	for _, c := range s.Checks {
		if c.Status == StatusInfo {
			continue
		}
		evaluated++
		if c.Undetermined() {
			undetermined++
		}
	}
	return evaluated > 0 && TooIncomplete(evaluated, undetermined)
}

// Slow reports whether any check of the scan ran out of time: its
// lookups were still being worked on when its time ended
// (UndeterminedSlow: the domain's name servers answered too slowly for
// this scan), or it did not finish by the scan's deadline
// (UndeterminedTimeout). An Incomplete scan that is Slow says so: it is
// neither the domain's fault nor the service's resolver failing.
func (s ScanSummary) Slow() bool {
	for _, c := range s.Checks {
		if c.Determination == UndeterminedSlow || c.Determination == UndeterminedTimeout {
			return true
		}
	}
	return false
}

// TooIncomplete is the rule behind Incomplete: a result whose evaluated
// checks are more than half undetermined says nothing a grade could
// stand on.
func TooIncomplete(evaluated, undetermined int) bool { return 2*undetermined > evaluated }

// Diagnostics is implemented by the per-check diagnostics objects.
type Diagnostics interface{ diagnostics() }

// SPFDiagnostics are the counts of the SPF check. Pointer fields are null
// when unknown.
type SPFDiagnostics struct {
	SPFRecordCount int  `json:"spfRecordCount"`
	DNSLookupCount *int `json:"dnsLookupCount"`
	DNSLookupLimit int  `json:"dnsLookupLimit"`
	LookupComplete bool `json:"lookupComplete"`
}

// DKIMDiagnostics are the facts of the DKIM selector check. Pointer fields
// are null when unknown.
type DKIMDiagnostics struct {
	RecordCount         *int         `json:"recordCount"`
	KeyType             *DKIMKeyType `json:"keyType"`
	PublicKeyPresent    *bool        `json:"publicKeyPresent"`
	Revoked             *bool        `json:"revoked"`
	TestMode            *bool        `json:"testMode"`
	StrictIdentity      *bool        `json:"strictIdentity"`
	EmailServiceAllowed *bool        `json:"emailServiceAllowed"`
	SHA256Allowed       *bool        `json:"sha256Allowed"`
}

// DMARCDiagnostics are the facts of DMARC policy discovery (RFC 9989).
// Pointer fields are null when unknown.
type DMARCDiagnostics struct {
	DirectRecordCount  *int             `json:"directRecordCount"`
	PolicyFound        *bool            `json:"policyFound"`
	PolicyDomain       *string          `json:"policyDomain"`
	Inherited          *bool            `json:"inherited"`
	PolicyTag          *DMARCPolicyTag  `json:"policyTag"`
	Policy             *DMARCPolicy     `json:"policy"`
	UsesNoneFallback   *bool            `json:"usesNoneFallback"`
	TestMode           *bool            `json:"testMode"`
	DKIMAlignment      *DMARCAlignment  `json:"dkimAlignment"`
	SPFAlignment       *DMARCAlignment  `json:"spfAlignment"`
	AggregateReporting *bool            `json:"aggregateReporting"`
	TreeWalkQueries    int              `json:"treeWalkQueries"`
	ConflictingRecords bool             `json:"conflictingRecords"`
	DomainExistence    *DomainExistence `json:"domainExistence"`
	LegacyPctPresent   *bool            `json:"legacyPctPresent"`
}

// MTASTSDiagnostics are the facts of the MTA-STS check (RFC 8461).
// Pointer fields are null when unknown.
type MTASTSDiagnostics struct {
	AnnouncementRecordCount *int             `json:"announcementRecordCount"`
	AnnouncementValid       *bool            `json:"announcementValid"`
	PolicyFetchState        MTASTSFetchState `json:"policyFetchState"`
	PolicyValid             *bool            `json:"policyValid"`
	PolicyMode              *MTASTSMode      `json:"policyMode"`
	MaxAge                  *int64           `json:"maxAge"`
	MXPatternCount          *int             `json:"mxPatternCount"`
}

// TLSRPTDiagnostics are the facts of the TLS-RPT check (RFC 8460).
// Pointer fields are null when unknown.
type TLSRPTDiagnostics struct {
	RecordCount            *int  `json:"recordCount"`
	Configured             *bool `json:"configured"`
	DestinationCount       *int  `json:"destinationCount"`
	MailtoDestinationCount *int  `json:"mailtoDestinationCount"`
	HTTPSDestinationCount  *int  `json:"httpsDestinationCount"`
}

// PTRDiagnostics are the facts of the PTR check with forward
// confirmation. Pointer fields are null when unknown.
type PTRDiagnostics struct {
	IPVersion               int            `json:"ipVersion"`
	PTRRecordCount          *int           `json:"ptrRecordCount"`
	ForwardRecordType       PTRForwardType `json:"forwardRecordType"`
	ForwardQueryCount       int            `json:"forwardQueryCount"`
	ForwardQueriesCompleted int            `json:"forwardQueriesCompleted"`
	ForwardAddressCount     *int           `json:"forwardAddressCount"`
	ForwardConfirmed        *bool          `json:"forwardConfirmed"`
}

// The enums of the diagnostics: each type's constants are the values the
// contract allows.

// DKIMKeyType is DKIMDiagnostics.KeyType.
type DKIMKeyType string

// Values of DKIMKeyType.
const (
	DKIMKeyRSA     DKIMKeyType = "rsa"
	DKIMKeyEd25519 DKIMKeyType = "ed25519"
	DKIMKeyUnknown DKIMKeyType = "unknown" // a k= value verifiers cannot use
)

// DMARCPolicyTag is DMARCDiagnostics.PolicyTag: the tag that supplied the
// applied policy.
type DMARCPolicyTag string

// Values of DMARCPolicyTag.
const (
	DMARCTagP  DMARCPolicyTag = "p"
	DMARCTagSP DMARCPolicyTag = "sp"
	DMARCTagNP DMARCPolicyTag = "np"
)

// DMARCPolicy is DMARCDiagnostics.Policy.
type DMARCPolicy string

// Values of DMARCPolicy.
const (
	DMARCPolicyNone       DMARCPolicy = "none"
	DMARCPolicyQuarantine DMARCPolicy = "quarantine"
	DMARCPolicyReject     DMARCPolicy = "reject"
)

// DMARCAlignment is DMARCDiagnostics.DKIMAlignment and SPFAlignment.
type DMARCAlignment string

// Values of DMARCAlignment.
const (
	DMARCAlignmentRelaxed DMARCAlignment = "relaxed"
	DMARCAlignmentStrict  DMARCAlignment = "strict"
	DMARCAlignmentUnknown DMARCAlignment = "unknown" // the tag's value is neither r nor s
)

// DomainExistence is DMARCDiagnostics.DomainExistence.
type DomainExistence string

// Values of DomainExistence.
const (
	DomainExists      DomainExistence = "exists"
	DomainNonexistent DomainExistence = "nonexistent"
	DomainUnknown     DomainExistence = "unknown"
)

// MTASTSFetchState is MTASTSDiagnostics.PolicyFetchState.
type MTASTSFetchState string

// Values of MTASTSFetchState.
const (
	FetchNotAnnounced MTASTSFetchState = "not_announced"
	FetchNotAttempted MTASTSFetchState = "not_attempted"
	FetchFetched      MTASTSFetchState = "fetched"
	FetchUnreachable  MTASTSFetchState = "unreachable"
	FetchInconclusive MTASTSFetchState = "inconclusive"
)

// MTASTSMode is MTASTSDiagnostics.PolicyMode.
type MTASTSMode string

// Values of MTASTSMode.
const (
	MTASTSEnforce MTASTSMode = "enforce"
	MTASTSTesting MTASTSMode = "testing"
	MTASTSNone    MTASTSMode = "none"
)

// PTRForwardType is PTRDiagnostics.ForwardRecordType.
type PTRForwardType string

// Values of PTRForwardType.
const (
	ForwardA    PTRForwardType = "A"    // an IPv4 address is confirmed by A records
	ForwardAAAA PTRForwardType = "AAAA" // an IPv6 address by AAAA records
)

func (*SPFDiagnostics) diagnostics()    {}
func (*DKIMDiagnostics) diagnostics()   {}
func (*DMARCDiagnostics) diagnostics()  {}
func (*MTASTSDiagnostics) diagnostics() {}
func (*TLSRPTDiagnostics) diagnostics() {}
func (*PTRDiagnostics) diagnostics()    {}

// Health is the body of GET /api/health.
type Health struct {
	Status    string        `json:"status"` // always "ok"
	Version   string        `json:"version"`
	Runtime   string        `json:"runtime"` // always "worker"
	Storage   StorageState  `json:"storage"`
	Commerce  CommerceState `json:"commerce"`
	Timestamp time.Time     `json:"timestamp"`
}

// StorageState is Health.Storage.
type StorageState string

// Values of StorageState.
const (
	StorageReady       StorageState = "ready"
	StorageUnavailable StorageState = "unavailable"
	StorageDisabled    StorageState = "disabled"
)

// CommerceState is Health.Commerce.
type CommerceState string

// Values of CommerceState.
const (
	CommerceReady    CommerceState = "ready"
	CommerceDisabled CommerceState = "disabled"
)

// Error is the body of every error response.
type Error struct {
	Error string `json:"error"`
}

// Encode writes v as the service sends it: encoding/json with HTML
// escaping off (a "<" in a text reaches the client as it is), followed by
// a newline. The scanner encodes a result once with it, the leak guard
// verifies those bytes, and the service sends them.
func Encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
