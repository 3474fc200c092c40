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
	out = append(out, enumWords...)
	return redact.NewVocabulary(append(out, fieldNames())...)
})

// enumWords are the values of the contract's enums.
var enumWords = []string{
	"pass", "warn", "fail", "info", "critical", "high", "medium", "low",
	"mx", "spf", "dmarc", "dkim", "mta-sts", "tls-rpt", "ptr", "caa",
	"rsa", "ed25519", "unknown", "p", "sp", "np", "none", "quarantine", "reject",
	"relaxed", "strict", "exists", "nonexistent",
	"not_announced", "not_attempted", "fetched", "unreachable", "inconclusive",
	"enforce", "testing", "A", "AAAA",
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
