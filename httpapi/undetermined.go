package httpapi

import (
	"encoding/json"
	"fmt"

	"github.com/mailauth/mailauth"
)

// The contract has no field for "this check could not be determined"
// (the scanner's typed CheckSummary.Determination is not on the wire).
// The web page greys those cards and leaves them out of the count of
// checks the score covers, so it needs the closed set of summary
// sentences the undetermined rules say (mailauth.UndeterminedSummaries):
// indexPage embeds the English sentences as JSON, which the page's
// undeterminedSet function reads and compares with each card's
// summary.en.

// undeterminedSummaries is the source of the set.
func undeterminedSummaries() []mailauth.LocalizedText { return mailauth.UndeterminedSummaries() }

// undeterminedJSON is the JSON array of the English summaries src lists,
// as the page embeds it.
func undeterminedJSON(src func() []mailauth.LocalizedText) (string, error) {
	texts := src()
	en := make([]string, 0, len(texts))
	for _, t := range texts {
		en = append(en, t.EN)
	}
	b, err := json.Marshal(en)
	if err != nil {
		return "", fmt.Errorf("undetermined summaries: %w", err)
	}
	return string(b), nil
}
