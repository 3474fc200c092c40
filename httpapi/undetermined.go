package httpapi

import (
	"encoding/json"
	"fmt"

	"github.com/mailauth/mailauth"
)

// The contract has no field for "this check could not be determined": such
// a check is a warn whose summary is one of a fixed set of sentences
// (mailauth.CheckSummary.Undetermined). The web page greys those cards
// and leaves them out of the count of checks the score covers, so it
// needs the set. It gets it from the page itself: indexPage embeds the
// English sentences as JSON, which the page's undeterminedSet function
// reads and compares with each card's summary.en.

// undeterminedSummaries is the source of the set: today the verdicts of
// the judgement tables that CheckSummary.Undetermined recognises. It is
// the one hook to swap for an exported list of the root package.
func undeterminedSummaries() []mailauth.LocalizedText {
	var out []mailauth.LocalizedText
	for _, r := range mailauth.StatusRules() {
		if (mailauth.CheckSummary{Summary: r.Text}).Undetermined() {
			out = append(out, r.Text)
		}
	}
	return out
}

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
