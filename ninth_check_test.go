package mailauth

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNinthCheck adds a ninth check to a copy of the module, following
// exactly the steps checks.go documents (a protocol package, the
// contract's id and bounds, a judge, one table row, an analytics
// migration, the goldens regenerated, the prose lists), and runs the suites of every
// package that lists, counts, scores, stores, encodes or shows the
// checks. It fails, printing what broke, when any of them needs a step
// the documentation does not name: a hand copy of the check list, a
// literal count, a column that is not derived.
func TestNinthCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("copies and rebuilds the module (about a minute); not in -short runs")
	}
	goBin, err := exec.LookPath("go")
	require.NoError(t, err, "the go command runs the copy's tests")
	dir := copyModule(t)
	for _, step := range ninthCheckSteps {
		step.apply(t, dir)
	}
	// The contract's aliases and the goldens are regenerated (steps of
	// the documentation); then every package that knows the checks must
	// pass as it is.
	goCmd(t, dir, goBin, "generate", "./...")
	goCmd(t, dir, goBin, "test", "-count=1", "-run", "Golden|Scan", ".", "./httpapi", "-update")
	goCmd(t, dir, goBin, "vet", "./...")
	goCmd(t, dir, goBin, "test", "-count=1", "-skip", "TestNinthCheck", ".", "./internal/report/...", "./analytics", "./httpapi", "./cmd/mailauth", "./internal/cmd/bench")
}

// ninthCheckSteps are the documented steps of adding a check (checks.go),
// applied to the copy. Each names the file it changes.
var ninthCheckSteps = []editStep{
	{"ninth/ninth.go (the protocol package)", func(t *testing.T, dir string) {
		write(t, dir, "ninth/ninth.go", ninthPackage)
	}},
	{"internal/report/report.go (the check id)", func(t *testing.T, dir string) {
		replace(t, dir, "internal/report/report.go", "\tCheckCAA    CheckID = \"caa\"\n", "\tCheckCAA    CheckID = \"caa\"\n\tCheckNinth  CheckID = \"ninth\"\n")
	}},
	{"internal/report/openapi.json (id enum, counts and checks bounds)", func(t *testing.T, dir string) {
		widenContract(t, dir, "ninth")
	}},
	{"judge_ninth.go (rules, check method, judge)", func(t *testing.T, dir string) {
		write(t, dir, "judge_ninth.go", ninthJudge)
	}},
	{"checks.go (one row; weights still sum to 100: the stub takes none, so no score changes)", func(t *testing.T, dir string) {
		replace(t, dir, "checks.go", "\tcheck:  (*run).checkCAA, unknown: noDiagnostics, rules: caaCheckRules,\n\t},\n", "\tcheck:  (*run).checkCAA, unknown: noDiagnostics, rules: caaCheckRules,\n\t},\n"+ninthRow)
	}},
	{"example_test.go (the Example that prints every check)", func(t *testing.T, dir string) {
		replace(t, dir, "example_test.go", "\t// caa      info\n", "\t// caa      info\n\t// ninth    info\n")
	}},
	{"testdata/finding-ids.txt (the ids of its findings, pinned for good)", func(t *testing.T, dir string) {
		replace(t, dir, "testdata/finding-ids.txt", "caa.wild-only\n", "caa.wild-only\nninth.pass\nninth.missing\n")
	}},
	{"httpapi/helptext.go (its help page, and the fix of each finding, by finding id)", func(t *testing.T, dir string) {
		replace(t, dir, "httpapi/helptext.go", "var checkHelps = map[mailauth.CheckID]checkHelp{\n", "var checkHelps = map[mailauth.CheckID]checkHelp{\n"+ninthHelp)
		replace(t, dir, "httpapi/helptext.go", "var findingFixes = map[string]mailauth.LocalizedText{\n", "var findingFixes = map[string]mailauth.LocalizedText{\n"+ninthFixes)
	}},
	{"analytics/migrate.go (a migration adding the status column)", func(t *testing.T, dir string) {
		replace(t, dir, "analytics/migrate.go", "var migrations = []string{\n", "var migrations = []string{\n\t\"ALTER TABLE events ADD COLUMN st_ninth TEXT\",\n")
	}},
	{"README.md, doc/ and the static pages (the prose lists of proseLists)", func(t *testing.T, dir string) {
		rewriteProseLists(t, dir, append(ScoreWeights(), ScoreWeight{Check: "ninth", Weight: 0}))
	}},
}

// editStep is one documented change to the copy.
type editStep struct {
	what  string
	apply func(t *testing.T, dir string)
}

const ninthPackage = `// Package ninth is a stub protocol package: it reports whether the
// domain publishes a TXT record at _ninth.
package ninth

import (
	"context"

	"github.com/mailauth/mailauth/resolver"
)

// Result is what the check found; Found is nil when the lookup was
// inconclusive.
type Result struct{ Found *bool }

// Check looks up _ninth.<domain>.
func Check(ctx context.Context, r resolver.Resolver, domain string) Result {
	a := r.Lookup(ctx, "_ninth."+domain, resolver.TypeTXT)
	if !a.Conclusive() {
		return Result{}
	}
	found := a.Outcome == resolver.Found
	return Result{Found: &found}
}
`

const ninthJudge = `package mailauth

import (
	"context"

	"github.com/mailauth/mailauth/ninth"
	"github.com/mailauth/mailauth/resolver"
)

var (
	ninthPass    = rule{id: "ninth.pass", status: StatusPass, severity: SeverityInfo, say: msg("找到第九项记录。", "The ninth record is published.")}
	ninthMissing = rule{id: "ninth.missing", status: StatusInfo, severity: SeverityInfo, say: msg("没有第九项记录。", "There is no ninth record.")}
)

func (r *run) checkNinth(ctx context.Context, dns resolver.Resolver) verdict {
	return judgeNinth(ninth.Check(ctx, dns, r.domain.ASCII))
}

func judgeNinth(res ninth.Result) verdict {
	switch {
	case res.Found == nil:
		return inconclusiveVerdict(nil)
	case *res.Found:
		return judge(ninthPass, nil, nil, nil)
	}
	return judge(ninthMissing, nil, nil, nil)
}

func ninthCheckRules() []rule { return []rule{ninthPass, ninthMissing} }
`

const ninthHelp = `	mailauth.CheckNinth: {
		Looks:   bi("查询 _ninth 名称下的 TXT 记录。", "Looks up the TXT record at the _ninth name."),
		Good:    bi("发布一条第九项记录。", "A published ninth record."),
		Example: "_ninth.example.com.  TXT \"ninth\"",
	},
`

const ninthFixes = `	"ninth.pass":    bi("无需处理。", "Nothing to fix."),
	"ninth.missing": bi("发布第九项记录。", "Publish the ninth record."),
`

const ninthRow = `	{
		id: CheckNinth, title: msg("第九项", "Ninth"), weight: 0,
		budget: 1,
		check:  (*run).checkNinth, unknown: noDiagnostics, rules: ninthCheckRules,
	},
`

// widenContract adds id to the check-id enum of openapi.json and raises
// every bound that is the number of checks by one.
func widenContract(t *testing.T, dir, id string) {
	t.Helper()
	path := filepath.Join(dir, "internal/report/openapi.json")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	props := func(name string) map[string]any {
		return schemas[name].(map[string]any)["properties"].(map[string]any)
	}
	idProp := props("CheckSummary")["id"].(map[string]any)
	idProp["enum"] = append(idProp["enum"].([]any), id)
	n := float64(len(CheckOrder()) + 1)
	checks := props("ScanSummary")["checks"].(map[string]any)
	checks["minItems"], checks["maxItems"] = n, n
	for _, p := range props("StatusCounts") {
		p.(map[string]any)["maximum"] = n
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, out, 0o644))
}

// copyModule copies the module's tracked files into a temporary
// directory.
func copyModule(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	require.NoError(t, err, "git ls-files lists the module's files")
	dir := t.TempDir()
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		b, err := os.ReadFile(f)
		if os.IsNotExist(err) {
			continue // deleted in the work tree
		}
		require.NoError(t, err)
		write(t, dir, f, string(b))
	}
	return dir
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func replace(t *testing.T, dir, name, old, new string) {
	t.Helper()
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, 1, bytes.Count(b, []byte(old)), "%s: the documented anchor %q", name, old)
	require.NoError(t, os.WriteFile(path, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644))
}

// goCmd runs the go command in dir and fails with its output.
func goCmd(t *testing.T, dir, goBin string, args ...string) {
	t.Helper()
	cmd := exec.Command(goBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CI=", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go %s in the copy with a ninth check:\n%s", strings.Join(args, " "), out)
}
