package mailauth

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// proseList is one place outside the code that lists the checks by hand
// (a document, or a static page another branch of work owns): re finds
// it, its first group is the list, and render writes the list as that
// place words it, from the checks table.
type proseList struct {
	file   string
	re     *regexp.Regexp
	render func([]ScoreWeight) string
}

// proseLists are every hand-written list of the checks. Code lists them
// from CheckOrder; these cannot, so TestProseListsTheChecks holds them to
// the table, and a new check is added to each (checks.go, step 8).
var proseLists = []proseList{
	{"README.md", regexp.MustCompile(`(?m)^(\| check \| [A-Z].*\|\n\|[-|]+\n\| weight \|.*\|)$`), func(ws []ScoreWeight) string {
		head, rule, row := "| check |", "|---|", "| weight |"
		for _, w := range ws {
			head += " " + strings.ToUpper(string(w.Check)) + " |"
			rule += "---|"
			row += fmt.Sprintf(" %d |", w.Weight)
		}
		return head + "\n" + rule + "\n" + row
	}},
	{"doc/scoring.md", regexp.MustCompile("(?m)^([a-z-]+(?:, [a-z-]+)*) \\(`mailauth\\.CheckOrder`\\)\\.$"), func(ws []ScoreWeight) string {
		return strings.Join(ids(ws, false), ", ")
	}},
	{"doc/scoring.md", regexp.MustCompile(`(?m)^\| check \| weight \|\n\|---\|---\|\n((?:\|.*\|\n)+)`), func(ws []ScoreWeight) string {
		var b strings.Builder
		for _, w := range ws {
			fmt.Fprintf(&b, "| %s | %d |\n", w.Check, w.Weight)
		}
		return b.String()
	}},
	{"doc/design.md", regexp.MustCompile(`transport configuration of a domain \(([^)]*)\) or of one sending IP`), func(ws []ScoreWeight) string {
		return strings.Join(ids(ws, true), ", ")
	}},
	{"doc/design.md", regexp.MustCompile("\\*\\*Order of `checks`:\\*\\* ([^.]*)\\."), func(ws []ScoreWeight) string {
		return strings.Join(ids(ws, false), ", ")
	}},
	{"doc/design.md", regexp.MustCompile(`\*\*Scoring:\*\* weights ([^.]*)\.`), func(ws []ScoreWeight) string {
		parts := make([]string, len(ws))
		for i, w := range ws {
			parts[i] = fmt.Sprintf("%s %d", w.Check, w.Weight)
		}
		return strings.Join(parts, ", ")
	}},
	{"httpapi/web/index.html", regexp.MustCompile(`<meta name="description" content="Check a domain's ([^"]*) configuration\.">`), upperAnd},
	{"httpapi/web/index.html", regexp.MustCompile(`data-i18n="lead">([^<]*), read from`), upperAnd},
	{"httpapi/web/static/app.js", regexp.MustCompile(`lead: "([^"]*), read from`), upperAnd},
	{"httpapi/web/static/app.js", regexp.MustCompile(`lead: "检查 ([^"]*)，结果来自`), func(ws []ScoreWeight) string {
		return sayList(ids(ws, true), "、", " 和 ")
	}},
	{"httpapi/web/developers/api.html", regexp.MustCompile(`transport security \(([^)]*)\), or one sending IP`), func(ws []ScoreWeight) string {
		return strings.Join(ids(ws, true), ", ")
	}},
}

// ids are the checks of ws, in upper case when upper is set.
func ids(ws []ScoreWeight, upper bool) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = string(w.Check)
		if upper {
			out[i] = strings.ToUpper(out[i])
		}
	}
	return out
}

// sayList joins items with sep, and the last with last.
func sayList(items []string, sep, last string) string {
	n := len(items) - 1
	return strings.Join(items[:n], sep) + last + items[n]
}

// upperAnd is "MX, SPF, …, PTR and CAA".
func upperAnd(ws []ScoreWeight) string { return sayList(ids(ws, true), ", ", " and ") }

// TestProseListsTheChecks: every hand-written list of the checks (their
// order, and their weights where a list gives them) is the checks
// table's, so a new check cannot be left out of the documents and pages.
func TestProseListsTheChecks(t *testing.T) {
	t.Parallel()
	ws := ScoreWeights()
	require.Equal(t, CheckOrder(), checksOf(ws), "ScoreWeights follows CheckOrder")
	for _, p := range proseLists {
		b, err := os.ReadFile(p.file)
		require.NoError(t, err)
		want := p.render(ws)
		ms := p.re.FindAllSubmatch(b, -1)
		if !assert.NotEmpty(t, ms, "%s: no list matches %s (update proseLists when the wording changes)", p.file, p.re) {
			continue
		}
		for _, m := range ms {
			assert.Equal(t, strings.Join(strings.Fields(want), " "), strings.Join(strings.Fields(string(m[1])), " "),
				"%s: the list of checks (actual) is not the checks table's (expected)", p.file)
		}
	}
}

func checksOf(ws []ScoreWeight) []CheckID {
	out := make([]CheckID, len(ws))
	for i, w := range ws {
		out[i] = w.Check
	}
	return out
}

// rewriteProseLists writes every list of proseLists in the module at dir
// as ws says (the step of adding a check to the prose).
func rewriteProseLists(t *testing.T, dir string, ws []ScoreWeight) {
	t.Helper()
	for _, p := range proseLists {
		path := filepath.Join(dir, p.file)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		var out []byte
		last := 0
		for _, m := range p.re.FindAllSubmatchIndex(b, -1) {
			out = append(out, b[last:m[2]]...)
			out = append(out, p.render(ws)...)
			last = m[3]
		}
		require.NotZero(t, last, "%s: no list matches %s", p.file, p.re)
		out = append(out, b[last:]...)
		require.NoError(t, os.WriteFile(path, out, 0o644))
	}
}

// TestRewriteProseLists: the ninth-check step that adds a check to the
// prose lists leaves them as TestProseListsTheChecks wants them for the
// wider table (checked here on a copy of the listed files, cheaply).
func TestRewriteProseLists(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, p := range proseLists {
		b, err := os.ReadFile(p.file)
		require.NoError(t, err)
		write(t, dir, p.file, string(b))
	}
	ws := append(ScoreWeights(), ScoreWeight{Check: "ninth", Weight: 0})
	rewriteProseLists(t, dir, ws)
	for _, p := range proseLists {
		b, err := os.ReadFile(filepath.Join(dir, p.file))
		require.NoError(t, err)
		ms := p.re.FindAllSubmatch(b, -1)
		require.NotEmpty(t, ms, "%s after the rewrite", p.file)
		for _, m := range ms {
			assert.Equal(t, p.render(ws), string(m[1]), "%s after the rewrite", p.file)
		}
	}
}

// write writes content to dir/name, making its directories.
func write(t *testing.T, dir, name, content string) {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}
