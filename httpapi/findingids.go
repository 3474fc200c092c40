package httpapi

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/mailauth/mailauth"
)

// The contract has no field for the finding that sets a check's summary,
// but the help pages anchor each finding by its id
// (mailauth.StatusRule.ID). So that a card's help link lands on its own
// finding, indexPage embeds every finding as [check, id, pattern], where
// the pattern is a regular expression (in the syntax Go and JavaScript
// share) that matches the finding's English sentence with any counts;
// the page's findingID function compares each card's summary.en with
// the findings of its check and those every check shares.

// countWord is a count in a StatusRule sentence, written N.
var countWord = regexp.MustCompile(`\bN\b`)

// findingPattern is the pattern of the sentence en (counts written N):
// the sentence, quoted, with each count any run of digits.
func findingPattern(en string) string {
	return "^" + countWord.ReplaceAllString(regexp.QuoteMeta(en), `[0-9]+`) + "$"
}

// findingEntries are the page's findings: check ("" for the findings
// every check shares), id and pattern.
func findingEntries() [][3]string {
	rules := mailauth.StatusRules()
	out := make([][3]string, 0, len(rules))
	for _, r := range rules {
		out = append(out, [3]string{string(r.Check), r.ID, findingPattern(r.Text.EN)})
	}
	return out
}

// findingsJSON is the page's data-findings.
func findingsJSON() (string, error) {
	b, err := json.Marshal(findingEntries())
	if err != nil {
		return "", fmt.Errorf("index.html: findings: %w", err)
	}
	return string(b), nil
}

// findingOf returns the id of the finding whose sentence summary (English)
// is, for check, as the page's findingID does; "" when none matches.
func findingOf(check mailauth.CheckID, summary string) string {
	for _, e := range findingEntries() {
		if (e[0] == "" || e[0] == string(check)) && regexp.MustCompile(e[2]).MatchString(summary) {
			return e[1]
		}
	}
	return ""
}
