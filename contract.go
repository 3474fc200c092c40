package mailauth

// This file re-exports the wire contract (internal/report) by alias, so
// that importers write mailauth.ScanSummary, mailauth.StatusPass and so
// on. The types, their documentation and the OpenAPI document live in
// report; nothing here restates them.

import "github.com/mailauth/mailauth/internal/report"

// The contract's types; see internal/report for each one's documentation.
type (
	CheckID           = report.CheckID
	Status            = report.Status
	Severity          = report.Severity
	Grade             = report.Grade
	LocalizedText     = report.LocalizedText
	StatusCounts      = report.StatusCounts
	ScanSummary       = report.ScanSummary
	PTRCheckSummary   = report.PTRCheckSummary
	CheckSummary      = report.CheckSummary
	Determination     = report.Determination
	Diagnostics       = report.Diagnostics
	SPFDiagnostics    = report.SPFDiagnostics
	DKIMDiagnostics   = report.DKIMDiagnostics
	DMARCDiagnostics  = report.DMARCDiagnostics
	MTASTSDiagnostics = report.MTASTSDiagnostics
	TLSRPTDiagnostics = report.TLSRPTDiagnostics
	PTRDiagnostics    = report.PTRDiagnostics
	DKIMKeyType       = report.DKIMKeyType
	DMARCPolicyTag    = report.DMARCPolicyTag
	DMARCPolicy       = report.DMARCPolicy
	DMARCAlignment    = report.DMARCAlignment
	DomainExistence   = report.DomainExistence
	MTASTSFetchState  = report.MTASTSFetchState
	MTASTSMode        = report.MTASTSMode
	PTRForwardType    = report.PTRForwardType
)

// The values of the contract's enumerations and of Determination.
const (
	CheckMX               = report.CheckMX
	CheckSPF              = report.CheckSPF
	CheckDMARC            = report.CheckDMARC
	CheckDKIM             = report.CheckDKIM
	CheckMTASTS           = report.CheckMTASTS
	CheckTLSRPT           = report.CheckTLSRPT
	CheckPTR              = report.CheckPTR
	CheckCAA              = report.CheckCAA
	StatusPass            = report.StatusPass
	StatusWarn            = report.StatusWarn
	StatusFail            = report.StatusFail
	StatusInfo            = report.StatusInfo
	SeverityCritical      = report.SeverityCritical
	SeverityHigh          = report.SeverityHigh
	SeverityMedium        = report.SeverityMedium
	SeverityLow           = report.SeverityLow
	SeverityInfo          = report.SeverityInfo
	GradeA                = report.GradeA
	GradeB                = report.GradeB
	GradeC                = report.GradeC
	GradeD                = report.GradeD
	GradeF                = report.GradeF
	Determined            = report.Determined
	UndeterminedLookup    = report.UndeterminedLookup
	UndeterminedTimeout   = report.UndeterminedTimeout
	UndeterminedInternal  = report.UndeterminedInternal
	DKIMKeyRSA            = report.DKIMKeyRSA
	DKIMKeyEd25519        = report.DKIMKeyEd25519
	DKIMKeyUnknown        = report.DKIMKeyUnknown
	DMARCTagP             = report.DMARCTagP
	DMARCTagSP            = report.DMARCTagSP
	DMARCTagNP            = report.DMARCTagNP
	DMARCPolicyNone       = report.DMARCPolicyNone
	DMARCPolicyQuarantine = report.DMARCPolicyQuarantine
	DMARCPolicyReject     = report.DMARCPolicyReject
	DMARCAlignmentRelaxed = report.DMARCAlignmentRelaxed
	DMARCAlignmentStrict  = report.DMARCAlignmentStrict
	DMARCAlignmentUnknown = report.DMARCAlignmentUnknown
	DomainExists          = report.DomainExists
	DomainNonexistent     = report.DomainNonexistent
	DomainUnknown         = report.DomainUnknown
	FetchNotAnnounced     = report.FetchNotAnnounced
	FetchNotAttempted     = report.FetchNotAttempted
	FetchFetched          = report.FetchFetched
	FetchUnreachable      = report.FetchUnreachable
	FetchInconclusive     = report.FetchInconclusive
	MTASTSEnforce         = report.MTASTSEnforce
	MTASTSTesting         = report.MTASTSTesting
	MTASTSNone            = report.MTASTSNone
	ForwardA              = report.ForwardA
	ForwardAAAA           = report.ForwardAAAA
)
