package mailauth

import (
	"encoding/json"
	"sync"

	"github.com/mailauth/mailauth/redact"
)

// outputVocabulary is every fixed word a response is made of: the text
// catalogue, the JSON field names and the enum values. The redaction
// guard does not record wire values found inside it (see
// redact.Set.Vocabulary): a TXT record that says "v=STSv1" or "reject"
// must not make our own sentences look like leaks.
var outputVocabulary = sync.OnceValue(func() *redact.Vocabulary {
	var out []string
	for _, t := range catalogue {
		out = append(out, t.zh, t.en)
	}
	out = append(out, enumWords()...)
	return redact.NewVocabulary(append(out, fieldNames())...)
})

// enumWords are the values of the contract's enums, from the constants
// that produce them.
func enumWords() []string {
	out := words(StatusPass, StatusWarn, StatusFail, StatusInfo)
	out = append(out, words(SeverityCritical, SeverityHigh, SeverityMedium, SeverityLow, SeverityInfo)...)
	out = append(out, words(CheckOrder()...)...)
	out = append(out, words(DKIMKeyRSA, DKIMKeyEd25519, DKIMKeyUnknown)...)
	out = append(out, words(DMARCTagP, DMARCTagSP, DMARCTagNP)...)
	out = append(out, words(DMARCPolicyNone, DMARCPolicyQuarantine, DMARCPolicyReject)...)
	out = append(out, words(DMARCAlignmentRelaxed, DMARCAlignmentStrict, DMARCAlignmentUnknown)...)
	out = append(out, words(DomainExists, DomainNonexistent, DomainUnknown)...)
	out = append(out, words(FetchNotAnnounced, FetchNotAttempted, FetchFetched, FetchUnreachable, FetchInconclusive)...)
	out = append(out, words(MTASTSEnforce, MTASTSTesting, MTASTSNone)...)
	return append(out, words(ForwardA, ForwardAAAA)...)
}

// words returns the values of string constants.
func words[S ~string](vs ...S) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// fieldNames returns a JSON document holding every field name of the
// response types.
func fieldNames() string {
	sample := ScanSummary{Checks: []CheckSummary{
		{Diagnostics: &SPFDiagnostics{}}, {Diagnostics: &DMARCDiagnostics{}}, {Diagnostics: &DKIMDiagnostics{}},
		{Diagnostics: &MTASTSDiagnostics{}}, {Diagnostics: &TLSRPTDiagnostics{}}, {Diagnostics: &PTRDiagnostics{}},
	}}
	a, _ := json.Marshal(sample)
	b, _ := json.Marshal(PTRCheckSummary{})
	return string(a) + string(b)
}
