package mailauth

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/mailauth/mailauth/internal/report"
	"github.com/mailauth/mailauth/redact"
)

// outputVocabulary is every fixed word a response is made of: the text
// catalogue, the JSON field names and the enum values. The redaction
// guard does not record wire values found inside it (see
// redact.Set.Vocabulary): a TXT record that says "v=STSv1" or "reject"
// must not make our own sentences look like leaks. The catalogue's
// sentences are also given as joined groups, in the template form of
// templateForm, Chinese joined without a separator and English with a
// space as joinTexts joins them, so that a value spanning the seam
// between two sentences ("。其", "pass. Of") is not recorded either.
var outputVocabulary = sync.OnceValue(func() *redact.Vocabulary {
	var out, zh, en []string
	for _, t := range catalogue {
		out = append(out, t.zh, t.en)
		zh, en = append(zh, templateForm(t.zh)), append(en, templateForm(t.en))
	}
	out = append(out, enumWords()...)
	return redact.NewJoinedVocabulary(append(out, fieldNames()),
		redact.Joined{Sep: zhSeparator, Sentences: zh}, redact.Joined{Sep: enSeparator, Sentences: en})
})

// templateForm writes every count of a catalogue text as "%d": its
// verbs ("%d", "%[2]d") and the limits msg filled in, so that a rendered
// text and its template compare equal (see composedText).
func templateForm(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] >= '0' && s[i] <= '9':
			for i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				i++
			}
			b.WriteString("%d")
		case s[i] == '%' && strings.HasPrefix(s[i:], "%d"):
			b.WriteString("%d")
			i++
		case s[i] == '%' && strings.HasPrefix(s[i:], "%["):
			if j := strings.IndexByte(s[i:], ']'); j > 0 && strings.HasPrefix(s[i+j:], "]d") {
				b.WriteString("%d")
				i += j + 1
				continue
			}
			b.WriteByte(s[i])
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// composedText reports whether t is made of catalogue sentences alone,
// joined as joinTexts joins them, with counts in their places: a text
// the service wrote, in which a recorded wire value can only be a
// coincidence, never a leak.
func composedText(t LocalizedText) bool {
	v := outputVocabulary()
	return v.Composes(strings.ToLower(templateForm(t.ZH))) && v.Composes(strings.ToLower(templateForm(t.EN)))
}

// enumWords are the values of the contract's enums: every string
// constant of internal/report (contractWords, generated with the aliases).
func enumWords() []string { return contractWords }

// fieldNames returns a JSON document holding every field name of the
// response types: a summary with every check's diagnostics type
// (report.NewDiagnostics), and a PTR check summary.
func fieldNames() string {
	var sample ScanSummary
	for _, id := range CheckOrder() {
		sample.Checks = append(sample.Checks, CheckSummary{ID: id, Diagnostics: report.NewDiagnostics(id)})
	}
	a, _ := json.Marshal(sample)
	b, _ := json.Marshal(PTRCheckSummary{})
	return string(a) + string(b)
}
