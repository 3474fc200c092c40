//go:build ninthcheck

package mailauth

import (
	"bytes"
	"encoding/json"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestNinthCheck adds a real ninth check to a copy of the module,
// following exactly the steps checks.go documents, and runs the suites
// of every package that lists, counts, scores, stores, encodes or shows
// the checks. The check is shaped like BIMI: a protocol package that
// selects and parses one TXT record and reports finding codes, a judge
// with a finding table, and a weight of 3 taken from CAA (5 → 2), so the
// score moves and the hand-derived score pins that include CAA's weight
// move with it (the step "score_test.go" says which). It fails, printing
// what broke, when any suite needs a step the documentation does not
// name: a hand copy of the check list, a literal count, a column that is
// not derived, a code nothing judges.
//
// Each step finds its insertion point from the table (after the last
// check of CheckOrder, before the closing brace of a list), never from
// which check happens to be last, so the test keeps working once a real
// ninth check exists.
//
// It builds once: the copy's test binaries are compiled with go test -c
// (the root's and httpapi's first, because their -update rewrites the
// goldens and the developer samples that httpapi embeds), then every
// binary runs at the same time in its package's directory.
// internal/realdns is compiled and its test binary started with
// -test.list (proving it builds and links against the ninth check); its
// scenarios, which start Unbound, Knot and NSD and take minutes, are not
// run here.
//
// It runs only with the build tag ninthcheck; CI runs it on its own
// after scripts/test (.ci/run: go test -tags ninthcheck -run
// TestNinthCheck .). Measured on the shared 2-core development machine
// (go test -tags ninthcheck -count=1 -run 'TestNinthCheck$' -v .):
// 3 min 50 s and 4 min 31 s in two runs at a load average of 21 to 35;
// in the first, 31 s generating and building the copy, 48 s
// regenerating the goldens, 74 s building the other test binaries and
// 77 s running them. The first run after the
// build cache is emptied compiles every package of the copy once and
// took 11 min 35 s at a load of 45 to 60. Compiling the root package and
// the packages that import it is most of it, and no arrangement of the
// steps avoids it; hence the build tag rather than a place in every
// go test ./... (the test it replaces took 156 s of the root package's
// 166 s at load 8, and 545 s at load 30).
func TestNinthCheck(t *testing.T) {
	start := time.Now()
	goBin, err := exec.LookPath("go")
	require.NoError(t, err, "the go command runs the copy's tests")
	dir := copyModule(t)
	for _, step := range ninthCheckSteps {
		step.apply(t, dir)
	}
	t.Logf("copied and edited in %v", time.Since(start).Round(time.Millisecond))

	// The contract's aliases are regenerated, and every package of the
	// module must still compile (the commands and tools included).
	goCmd(t, dir, goBin, "generate", "./...")
	goCmd(t, dir, goBin, "build", "./...")
	t.Logf("generated and built in %v", time.Since(start).Round(time.Millisecond))

	bins := t.TempDir()
	root := filepath.Join(bins, "root.test") // cmd/mailauth's binary is mailauth.test too
	goCmd(t, dir, goBin, "test", "-c", "-o", root, ".")
	goCmd(t, dir, goBin, "test", "-c", "-o", bins+string(filepath.Separator), "./httpapi")
	runAll(t, []testRun{
		{bin: root, dir: dir, args: []string{"-test.run", "Golden|Scan", "-update"}},
		{bin: filepath.Join(bins, "httpapi.test"), dir: filepath.Join(dir, "httpapi"), args: []string{"-test.run", "Golden|Scan", "-update"}},
	})
	t.Logf("goldens and samples regenerated in %v", time.Since(start).Round(time.Millisecond))

	// The developer samples are embedded in httpapi: its binary, and the
	// binaries of the packages that import it, are built after -update.
	goCmd(t, dir, goBin, append([]string{"test", "-c", "-o", bins + string(filepath.Separator)}, ninthCheckPackages...)...)
	t.Logf("test binaries built in %v", time.Since(start).Round(time.Millisecond))

	runs := []testRun{{bin: root, dir: dir}}
	for _, pkg := range ninthCheckPackages {
		bin := filepath.Join(bins, filepath.Base(pkg)+".test")
		if _, err := os.Stat(bin); err != nil {
			continue // a package without tests: built by go build ./... above
		}
		run := testRun{bin: bin, dir: filepath.Join(dir, filepath.FromSlash(pkg))}
		if pkg == "./internal/realdns" {
			run.args = []string{"-test.list", "."}
		}
		runs = append(runs, run)
	}
	runAll(t, runs)
	t.Logf("every suite passed with a ninth check; %v in all", time.Since(start).Round(time.Millisecond))
}

// ninthCheckPackages are the packages, besides the root, whose tests
// know the checks: they list, count, score, store, encode, document or
// show them.
var ninthCheckPackages = []string{
	"./internal/report", "./internal/report/aliasgen", "./internal/report/reporttest",
	"./analytics", "./httpapi", "./cmd/mailauth", "./internal/cmd/bench",
	"./examples", "./examples/scan", "./examples/checkip", "./examples/mount", "./examples/resolver",
	"./internal/realdns",
}

// ninthWeight is the ninth check's share of the score, taken from CAA.
const ninthWeight = 3

// ninthCheckSteps are the documented steps of adding a check (checks.go),
// applied to the copy. Each names the file it changes.
var ninthCheckSteps = []editStep{
	{"ninth/ninth.go (the protocol package: Select, Parse, Check, Result, Codes)", func(t *testing.T, dir string) {
		write(t, dir, "ninth/ninth.go", ninthPackage)
	}},
	{"internal/report/report.go (the check id, after the last one)", func(t *testing.T, dir string) {
		insertIntoBlock(t, dir, "internal/report/report.go", regexp.MustCompile(`(?m)^const \(\n(?:\tCheck\w+ +CheckID = "[^"]*"\n)+()\)`), "\tCheckNinth CheckID = \"ninth\"\n")
	}},
	{"internal/report/openapi.json (the check's item schema, in CheckSummary's oneOf and discriminator mapping; counts and checks bounds)", func(t *testing.T, dir string) {
		widenContract(t, dir, "ninth")
	}},
	{"judge_ninth.go (the finding table, the check method, the judge)", func(t *testing.T, dir string) {
		write(t, dir, "judge_ninth.go", ninthJudge)
	}},
	{"checks.go (one row at the end of checkTable, its package imported for the codes column; its weight taken from CAA's row)", func(t *testing.T, dir string) {
		insertIntoBlock(t, dir, "checks.go", regexp.MustCompile(`(?s)\nvar checkTable = \[\]checkSpec\{\n.*?\n()\}\n`), ninthRow)
		insertIntoBlock(t, dir, "checks.go", regexp.MustCompile(`(?m)^import \(\n()`), "\t\"github.com/mailauth/mailauth/ninth\"\n")
		caa := weights[CheckCAA]
		replaceRe(t, dir, "checks.go", regexp.MustCompile(`(id: CheckCAA, [^\n]*weight: )(\d+)(,)`), "${1}"+strconv.Itoa(caa-ninthWeight)+"${3}")
	}},
	{"score_test.go and scanner_test.go (the hand-derived score pins that include CAA's weight)", func(t *testing.T, dir string) {
		// TestScore "typical": mx, spf, dmarc pass (60), mta-sts warn (5),
		// tls-rpt fail, caa pass (now 2): 67/77 = 87.0 → 87, was 70/80.
		replaceRe(t, dir, "score_test.go", regexp.MustCompile(`(?m)^\t\t// dkim and ptr info \(not supplied\): den 80\.[^\n]*\n`),
			"\t\t// dkim, ptr and ninth info (not supplied): den 77. pass mx,spf,dmarc(60) + warn mta-sts(5) + fail tls-rpt + pass caa(2) = 67/77 = 87.0 → 87.\n")
		replaceRe(t, dir, "score_test.go", regexp.MustCompile(`(\{"typical", [^\n]*\}, )88(, GradeB\},)`), "${1}87${2}")
	}},
	{"httpapi/web/developers/api.html (the worked example of the score, which includes CAA's weight)", func(t *testing.T, dir string) {
		// MX, SPF, DMARC pass, MTA-STS warns, TLS-RPT and CAA fail: 65 of
		// 15 + 20 + 25 + 10 + 5 + 2 = 77 → 84, was 65/80 → 81.
		replace(t, dir, "httpapi/web/developers/api.html", "+ 5 + 5 = 80：得分 81，等级 B。", "+ 5 + 2 = 77：得分 84，等级 B。")
		replace(t, dir, "httpapi/web/developers/api.html", "+ 5 + 5 = 80: score 81, grade B.", "+ 5 + 2 = 77: score 84, grade B.")
	}},
	{"scanner_test.go (the scans of good.example.com, where the ninth check passes too: one more evaluated check, CAA's share moved)", func(t *testing.T, dir string) {
		for old, new := range map[string]string{
			"// mx and caa answer; spf, dmarc, mta-sts and tls-rpt cannot.":     "// mx, caa and ninth answer; spf, dmarc, mta-sts and tls-rpt cannot.",
			"want 100 (mx and caa pass) and the incomplete summary":             "want 100 (mx, caa and ninth pass) and the incomplete summary",
			"txtOverallIncomplete.format(4, 6)":                                 "txtOverallIncomplete.format(4, 7)",
			"// mx 15 + spf 20 + dmarc 25 + caa 5 pass, mta-sts 10 fails (no\n": "// mx 15 + spf 20 + dmarc 25 + caa 2 + ninth 3 pass, mta-sts 10 fails (no\n",
			"txtOverallB.format(4, 6)":                                          "txtOverallB.format(5, 7)",
		} {
			replace(t, dir, "scanner_test.go", old, new)
		}
	}},
	{"explain_test.go (the sparsest facts of each finding)", func(t *testing.T, dir string) {
		replace(t, dir, "explain_test.go", "var findingExplainers = map[CheckID]findingExplainer{\n", "var findingExplainers = map[CheckID]findingExplainer{\n"+ninthExplainer)
		insertIntoBlock(t, dir, "explain_test.go", regexp.MustCompile(`(?m)^import \(\n()`), "\t\"github.com/mailauth/mailauth/ninth\"\n")
	}},
	{"testdata/zones/scan.zone (good.example.com passes the ninth check too)", func(t *testing.T, dir string) {
		replaceRe(t, dir, "testdata/zones/scan.zone", regexp.MustCompile(`(?m)^(good +MX [^\n]*\n)`), "${1}_ninth.good       TXT \"v=NINTH1; l=https://good.example.com/logo.svg\"\n")
	}},
	{"example_test.go (the Example that prints every check)", func(t *testing.T, dir string) {
		order := CheckOrder()
		last := regexp.QuoteMeta(string(order[len(order)-1]))
		replaceRe(t, dir, "example_test.go", regexp.MustCompile(`(?m)^(\t// `+last+` +\w+\n)`), "${1}\t// ninth    info\n")
	}},
	{"testdata/finding-ids.txt (the ids of its findings, pinned for good)", func(t *testing.T, dir string) {
		replace(t, dir, "testdata/finding-ids.txt", "caa.wild-only\n", "caa.wild-only\nninth.pass\nninth.no-record\nninth.multiple-records\nninth.no-location\nninth.insecure-location\n")
	}},
	{"httpapi/helptext.go (its help page, and the fix of each finding, by finding id)", func(t *testing.T, dir string) {
		replace(t, dir, "httpapi/helptext.go", "var checkHelps = map[mailauth.CheckID]checkHelp{\n", "var checkHelps = map[mailauth.CheckID]checkHelp{\n"+ninthHelp)
		replace(t, dir, "httpapi/helptext.go", "var findingFixes = map[string]mailauth.LocalizedText{\n", "var findingFixes = map[string]mailauth.LocalizedText{\n"+ninthFixes)
	}},
	{"analytics/migrate.go (a migration adding the status column)", func(t *testing.T, dir string) {
		replace(t, dir, "analytics/migrate.go", "var migrations = []string{\n", "var migrations = []string{\n\t\"ALTER TABLE events ADD COLUMN st_ninth TEXT\",\n")
	}},
	{"README.md, doc/ and the static pages (the prose lists of proseLists)", func(t *testing.T, dir string) {
		ws := ScoreWeights()
		for i := range ws {
			if ws[i].Check == CheckCAA {
				ws[i].Weight -= ninthWeight
			}
		}
		rewriteProseLists(t, dir, append(ws, ScoreWeight{Check: "ninth", Weight: ninthWeight}))
	}},
}

// editStep is one documented change to the copy.
type editStep struct {
	what  string
	apply func(t *testing.T, dir string)
}

const ninthPackage = `// Package ninth checks a stand-in ninth protocol shaped like BIMI: one
// TXT record at _ninth.<domain>, "v=NINTH1; l=<https URL>".
package ninth

import (
	"context"
	"strings"

	"github.com/mailauth/mailauth/resolver"
)

// Code is a finding about the record.
type Code string

// Findings.
const (
	// CodeNoRecord: the domain publishes no v=NINTH1 record.
	CodeNoRecord Code = "no_record"
	// CodeMultipleRecords: more than one record; receivers use none.
	CodeMultipleRecords Code = "multiple_records"
	// CodeNoLocation: the record has no l= tag.
	CodeNoLocation Code = "no_location"
	// CodeInsecureLocation: the l= tag is not an https: URL.
	CodeInsecureLocation Code = "insecure_location"
)

// Codes returns every finding code this package can report.
func Codes() []Code {
	return []Code{CodeNoRecord, CodeMultipleRecords, CodeNoLocation, CodeInsecureLocation}
}

// Result is what the check found. RecordCount is nil when the lookup was
// inconclusive.
type Result struct {
	Outcome     resolver.Outcome
	RecordCount *int
	Findings    []Code
}

// Select returns the TXT strings that are ninth records.
func Select(txts []string) []string {
	var out []string
	for _, s := range txts {
		if v, ok := strings.CutPrefix(s, "v=NINTH1"); ok && (v == "" || v[0] == ';' || v[0] == ' ') {
			out = append(out, s)
		}
	}
	return out
}

// Parse returns the findings of one record's tags.
func Parse(rec string) []Code {
	for _, tag := range strings.Split(rec, ";") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(tag), "l="); ok {
			if !strings.HasPrefix(strings.TrimSpace(v), "https://") {
				return []Code{CodeInsecureLocation}
			}
			return nil
		}
	}
	return []Code{CodeNoLocation}
}

// Check looks up _ninth.<domain> and reports what it found.
func Check(ctx context.Context, r resolver.Resolver, domain string) Result {
	a := r.Lookup(ctx, "_ninth."+resolver.CanonicalName(domain), resolver.TypeTXT)
	res := Result{Outcome: a.Outcome}
	if !a.Conclusive() {
		return res
	}
	recs := Select(a.TXTs())
	res.RecordCount = new(len(recs))
	switch len(recs) {
	case 0:
		res.Findings = []Code{CodeNoRecord}
	case 1:
		res.Findings = Parse(recs[0])
	default:
		res.Findings = []Code{CodeMultipleRecords}
	}
	return res
}
`

const ninthJudge = `package mailauth

import (
	"context"

	"github.com/mailauth/mailauth/ninth"
	"github.com/mailauth/mailauth/resolver"
)

var (
	ninthPass  = rule{id: "ninth.pass", status: StatusPass, severity: SeverityInfo, say: msg("已发布第九项记录，其中的地址使用 HTTPS。", "The ninth record is published and its location uses HTTPS.")}
	ninthRules = map[ninth.Code]rule{
		ninth.CodeNoRecord:         {id: "ninth.no-record", status: StatusInfo, severity: SeverityInfo, say: msg("没有第九项记录。", "There is no ninth record.")},
		ninth.CodeMultipleRecords:  {id: "ninth.multiple-records", status: StatusWarn, severity: SeverityMedium, say: msg("第九项记录不止一条，收件方一条也不会使用。", "There is more than one ninth record, so receivers use none of them.")},
		ninth.CodeNoLocation:       warnLow("ninth.no-location", "第九项记录缺少 l= 标签。", "The ninth record has no l= tag."),
		ninth.CodeInsecureLocation: warnLow("ninth.insecure-location", "第九项记录中的地址没有使用 HTTPS。", "The ninth record's location does not use HTTPS."),
	}
	ninthFactCount = msg("找到 %d 条第九项记录。", "Ninth records found: %d.")
)

func (r *run) checkNinth(ctx context.Context, dns resolver.Resolver) verdict {
	return judgeNinth(ninth.Check(ctx, dns, r.domain.ASCII))
}

// judgeNinth is the verdict on the facts of a ninth check; it does no I/O.
func judgeNinth(res ninth.Result) verdict {
	if res.RecordCount == nil {
		return inconclusiveVerdict(nil)
	}
	return judge(ninthPass, rulesFor(res.Findings, ninthRules, nil), []LocalizedText{ninthFactCount.with(*res.RecordCount)}, nil)
}

func ninthCheckRules() []rule { return append([]rule{ninthPass}, tableRules(ninthRules)...) }
`

const ninthExplainer = `	CheckNinth: {
		finding: func(code string) verdict {
			return judgeNinth(ninth.Result{Outcome: resolver.Found, RecordCount: new(1), Findings: []ninth.Code{ninth.Code(code)}})
		},
	},
`

const ninthHelp = `	mailauth.CheckNinth: {
		Looks:   bi("读取 _ninth 名称下以 v=NINTH1 开头的 TXT 记录，并检查其中 l= 标签给出的地址是否使用 HTTPS。", "Reads the TXT record at the _ninth name that starts with v=NINTH1 and checks that the location in its l= tag uses HTTPS."),
		Good:    bi("只有一条第九项记录，其 l= 标签是一个 HTTPS 地址。", "Exactly one ninth record whose l= tag is an HTTPS URL."),
		Example: "_ninth.example.com.  TXT \"v=NINTH1; l=https://example.com/logo.svg\"",
	},
`

const ninthFixes = `	"ninth.pass":              bi("无需处理。", "Nothing to fix."),
	"ninth.no-record":         bi("如需使用，发布一条第九项记录。", "Publish a ninth record if you want one."),
	"ninth.multiple-records":  bi("只保留一条第九项记录。", "Keep exactly one ninth record."),
	"ninth.no-location":       bi("在记录中加入 l= 标签。", "Add an l= tag to the record."),
	"ninth.insecure-location": bi("把 l= 标签改为 HTTPS 地址。", "Change the l= tag to an HTTPS URL."),
`

var ninthRow = `	{
		id: CheckNinth, title: msg("第九项", "Ninth"), weight: ` + strconv.Itoa(ninthWeight) + `,
		budget: 1, // _ninth TXT
		check:  (*run).checkNinth, unknown: noDiagnostics, rules: ninthCheckRules,
		codes: codeColumn(ninth.Codes(), ninthRules, nil, nil),
	},
`

// widenContract adds check id's item schema to openapi.json (a copy of
// the item schema of a check without diagnostics, its id the const id,
// named as the others are: "ninth" → NinthCheck), puts it in
// CheckSummary's oneOf and discriminator mapping, and raises every bound
// that is the number of checks by one.
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
	union := schemas["CheckSummary"].(map[string]any)
	mapping := union["discriminator"].(map[string]any)["mapping"].(map[string]any)
	var item map[string]any
	for _, ref := range mapping {
		name := strings.TrimPrefix(ref.(string), "#/components/schemas/")
		if _, has := props(name)["diagnostics"]; !has {
			branch, err := json.Marshal(schemas[name])
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(branch, &item))
			break
		}
	}
	require.NotNil(t, item, "openapi.json: no item schema of a check without diagnostics to copy")
	name := "Check"
	for _, part := range slices.Backward(strings.Split(id, "-")) {
		name = strings.ToUpper(part[:1]) + part[1:] + name
	}
	ref := "#/components/schemas/" + name
	item["description"] = "The " + id + " check: an item of ScanSummary.checks whose id is " + id + ". It has no diagnostics."
	item["properties"].(map[string]any)["id"].(map[string]any)["const"] = id
	schemas[name] = item
	union["oneOf"] = append(union["oneOf"].([]any), map[string]any{"$ref": ref})
	mapping[id] = ref
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

// replace replaces the one occurrence of old in dir/name.
func replace(t *testing.T, dir, name, old, new string) {
	t.Helper()
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, 1, bytes.Count(b, []byte(old)), "%s: the documented anchor %q", name, old)
	require.NoError(t, os.WriteFile(path, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644))
}

// replaceRe expands repl for the one match of re in dir/name.
func replaceRe(t *testing.T, dir, name string, re *regexp.Regexp, repl string) {
	t.Helper()
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Len(t, re.FindAllIndex(b, -1), 1, "%s: the documented anchor %s", name, re)
	require.NoError(t, os.WriteFile(path, re.ReplaceAll(b, []byte(repl)), 0o644))
}

// insertIntoBlock inserts text where the first (empty) group of re's one
// match in dir/name is, then formats the file when it is Go.
func insertIntoBlock(t *testing.T, dir, name string, re *regexp.Regexp, text string) {
	t.Helper()
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	m := re.FindAllSubmatchIndex(b, -1)
	require.Len(t, m, 1, "%s: the documented anchor %s", name, re)
	at := m[0][2]
	out := append(append(append([]byte(nil), b[:at]...), text...), b[at:]...)
	if strings.HasSuffix(name, ".go") {
		out, err = format.Source(out)
		require.NoError(t, err, "%s after the insertion", name)
	}
	require.NoError(t, os.WriteFile(path, out, 0o644))
}

// goCmd runs the go command in dir and fails with its output.
func goCmd(t *testing.T, dir, goBin string, args ...string) {
	t.Helper()
	cmd := exec.Command(goBin, args...)
	cmd.Dir = dir
	cmd.Env = ninthEnv()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go %s in the copy with a ninth check:\n%s", strings.Join(args, " "), out)
}

// ninthEnv is the environment of the copy's commands: not CI (tests that
// need Redis, PostgreSQL or Chromium skip when those are missing, as on a
// developer's machine), without this run's build tags, and with
// -trimpath, so that the build cache keys of the packages the ninth check
// does not change do not depend on the copy's directory: they are
// compiled once, not on every run.
func ninthEnv() []string {
	return append(os.Environ(), "CI=", "GOFLAGS=-mod=mod -trimpath")
}

// testRun is one test binary of the copy, run in its package directory.
type testRun struct {
	bin  string
	dir  string
	args []string
}

// runAll runs every test binary at once and fails with the output of
// each one that failed.
func runAll(t *testing.T, runs []testRun) {
	t.Helper()
	var wg sync.WaitGroup
	failures := make([]string, len(runs))
	for i, r := range runs {
		wg.Go(func() {
			cmd := exec.Command(r.bin, append([]string{"-test.count=1", "-test.timeout=20m"}, r.args...)...)
			cmd.Dir = r.dir
			cmd.Env = ninthEnv()
			if out, err := cmd.CombinedOutput(); err != nil {
				failures[i] = filepath.Base(r.bin) + " " + strings.Join(r.args, " ") + ": " + err.Error() + "\n" + string(out)
			}
		})
	}
	wg.Wait()
	var failed []string
	for _, f := range failures {
		if f != "" {
			failed = append(failed, f)
		}
	}
	require.Empty(t, failed, "suites that failed in the copy with a ninth check:\n%s", strings.Join(failed, "\n\n"))
}
