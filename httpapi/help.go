package httpapi

import (
	"fmt"

	"github.com/mailauth/mailauth"
)

// helpPath is the path of a check's help page.
func helpPath(id mailauth.CheckID) string { return "/help/" + string(id) + "/" }

// helpFinding is one verdict on a help page: what it says and how it is
// usually fixed.
type helpFinding struct {
	// ID is the finding's id, the anchor of its entry on the page.
	ID           string
	Status       mailauth.Status
	Severity     mailauth.Severity
	StatusWord   mailauth.LocalizedText
	SeverityWord mailauth.LocalizedText
	Text         mailauth.LocalizedText
	Fix          mailauth.LocalizedText
}

// statusWords and severityWords are the words the web page uses.
var (
	statusWords = map[mailauth.Status]mailauth.LocalizedText{
		mailauth.StatusPass: bi("通过", "Pass"), mailauth.StatusWarn: bi("警告", "Warning"),
		mailauth.StatusFail: bi("未通过", "Fail"), mailauth.StatusInfo: bi("提示", "Info"),
	}
	severityWords = map[mailauth.Severity]mailauth.LocalizedText{
		mailauth.SeverityCritical: bi("严重", "Critical"), mailauth.SeverityHigh: bi("高", "High"),
		mailauth.SeverityMedium: bi("中", "Medium"), mailauth.SeverityLow: bi("低", "Low"),
		mailauth.SeverityInfo: bi("提示", "Info"),
	}
)

// helpPage is everything one check's help page shows.
type helpPage struct {
	ID       mailauth.CheckID
	Path     string
	Title    mailauth.LocalizedText
	Weight   int
	Help     checkHelp
	Findings []helpFinding
	// Shared are the verdicts of a check that could not be determined
	// (greyed, left out of the score); Faults those of a check whose
	// lookups failed for a fault of the domain's own DNS (a fail, scored).
	Shared []helpFinding
	Faults []helpFinding
}

// noFixYet is the fix shown for a verdict findingFixes lacks, so that the
// pages still build; TestHelpCoversRules fails on every such verdict.
var noFixYet = bi("暂无具体建议，请参考上面的说明。", "No specific advice yet; the finding's text above says what is wrong.")

// helpPages builds the help page data of every check, in CheckOrder, from
// the judgement tables.
func helpPages() ([]helpPage, error) {
	pages, _, err := helpPagesFrom(findingFixes)
	return pages, err
}

// helpPagesFrom is helpPages with the fixes taken from fixes, keyed by
// finding id; missing lists the ids that fixes has no entry for.
func helpPagesFrom(fixes map[string]mailauth.LocalizedText) (pages []helpPage, missing []string, err error) {
	weights := map[mailauth.CheckID]int{}
	for _, w := range mailauth.ScoreWeights() {
		weights[w.Check] = w.Weight
	}
	var shared, faults []helpFinding
	byCheck := map[mailauth.CheckID][]helpFinding{}
	for _, r := range mailauth.StatusRules() {
		fix, ok := fixes[r.ID]
		if !ok {
			missing = append(missing, r.ID)
			fix = noFixYet
		}
		f := helpFinding{ID: r.ID, Status: r.Status, Severity: r.Severity, Text: r.Text, Fix: fix,
			StatusWord: statusWords[r.Status], SeverityWord: severityWords[r.Severity]}
		switch {
		case r.Check == "" && r.Status == mailauth.StatusFail:
			faults = append(faults, f) // the domain's DNS fails: scored
			continue
		case r.Check == "":
			shared = append(shared, f) // could not be determined: unscored
			continue
		}
		byCheck[r.Check] = append(byCheck[r.Check], f)
	}
	out := make([]helpPage, 0, len(checkHelps))
	for _, id := range mailauth.CheckOrder() {
		h, ok := checkHelps[id]
		if !ok {
			return nil, missing, fmt.Errorf("help: no page text for check %s", id)
		}
		out = append(out, helpPage{
			ID: id, Path: helpPath(id), Title: mailauth.CheckTitle(id), Weight: weights[id],
			Help: h, Findings: byCheck[id], Shared: shared, Faults: faults,
		})
	}
	return out, missing, nil
}
