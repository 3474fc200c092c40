package httpapi

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/mailauth/mailauth"
)

// axeSource is axe-core, vendored from the npm registry (testdata/axe,
// MPL-2.0), injected into the page for the accessibility check.
//
//go:embed testdata/axe/axe.min.js
var axeSource string

// browserStepTimeout bounds one step of the browser test (a page load, a
// scan against the loopback lab); it is a hang guard, not a measurement.
const browserStepTimeout = 30 * time.Second

// chromiumPath finds headless Chromium: $MAILAUTH_CHROMIUM, else chromium
// or chromium-browser on PATH. Without it the test fails in CI (CI=true)
// and is skipped elsewhere.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("MAILAUTH_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (.ci/run installs the Debian package chromium)")
	}
	t.Skip("chromium is not installed; install the Debian package chromium to run the browser test")
	return ""
}

// testOutputDir is where screenshots go: $MAILAUTH_TEST_OUT/NAME when set
// (kept after the test), else a temporary directory.
func testOutputDir(t *testing.T) string {
	t.Helper()
	base := os.Getenv("MAILAUTH_TEST_OUT")
	if base == "" {
		return t.TempDir()
	}
	dir := filepath.Join(base, t.Name())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browserProblems collects what must not happen in the page: console
// errors, uncaught exceptions, failed requests and error responses other
// than the ones a step expects.
type browserProblems struct {
	mu       sync.Mutex
	problems []string
	expected map[string]int // URL path fragment -> expected error status
}

func (b *browserProblems) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
			b.problems = append(b.problems, fmt.Sprintf("console.%s", ev.Type))
		}
	case *runtime.EventExceptionThrown:
		b.problems = append(b.problems, "exception: "+ev.ExceptionDetails.Text)
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError && !b.isExpected(ev.Entry.URL, ev.Entry.Text) {
			b.problems = append(b.problems, fmt.Sprintf("log %s: %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
		}
	case *network.EventLoadingFailed:
		b.problems = append(b.problems, fmt.Sprintf("request failed: %s %s", ev.ErrorText, ev.BlockedReason))
	case *network.EventResponseReceived:
		if ev.Response.Status >= 400 && !b.isExpected(ev.Response.URL, fmt.Sprint(ev.Response.Status)) {
			b.problems = append(b.problems, fmt.Sprintf("response %d %s", ev.Response.Status, ev.Response.URL))
		}
	}
}

// isExpected reports whether an error about url is one a step expects.
func (b *browserProblems) isExpected(url, text string) bool {
	for frag, status := range b.expected {
		if strings.Contains(url, frag) && strings.Contains(text, fmt.Sprint(status)) {
			return true
		}
	}
	return false
}

func (b *browserProblems) expect(frag string, status int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.expected[frag] = status
}

func (b *browserProblems) clearExpected() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.expected = map[string]int{}
}

func (b *browserProblems) take() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.problems
	b.problems = nil
	return p
}

// newBrowser starts headless Chromium with a fresh profile and every
// background service off, with host resolution pinned to loopback so the
// browser cannot reach any other network.
func newBrowser(t *testing.T, lang string, probs *browserProblems) context.Context {
	t.Helper()
	exe := chromiumPath(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-features", "Translate,OptimizationHints,MediaRouter,AutofillServerCommunication"),
		chromedp.Flag("no-proxy-server", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.Flag("lang", lang),
		chromedp.Flag("accept-lang", lang),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(probs.listen))
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// step runs actions with the step timeout.
func step(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, browserStepTimeout)
	defer cancel()
	if err := chromedp.Do(sctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, browserStepTimeout)
	defer cancel()
	v, err := chromedp.Run(sctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// discard makes an action that drops a's value.
func discard[T any](a chromedp.Action[T]) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := a(ctx, t)
		return chromedp.Void{}, err
	}
}

// screenshot saves a full-page PNG.
func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, browserStepTimeout)
	defer cancel()
	png, err := chromedp.Run(sctx, chromedp.FullScreenshot(100)) // 100 is PNG; less is JPEG
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// axeViolation is what the test keeps of an axe-core result.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  int    `json:"nodes"`
}

// checkAccessibility runs axe-core (WCAG 2.x A and AA rules and best
// practices) in the page and fails on any serious or critical violation.
func checkAccessibility(t *testing.T, ctx context.Context, where string) {
	t.Helper()
	if !eval[bool](t, ctx, `typeof axe === "object"`) {
		eval[chromedp.Void](t, ctx, axeSource+";void 0")
	}
	vs := eval[[]axeViolation](t, ctx, `axe.run(document, {resultTypes: ["violations"]}).then(r =>
		r.violations.map(v => ({id: v.id, impact: v.impact || "", help: v.help, nodes: v.nodes.length})))`)
	for _, v := range vs {
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Errorf("%s: accessibility: %s (%s) on %d nodes: %s", where, v.ID, v.Impact, v.Nodes, v.Help)
		} else {
			t.Logf("%s: accessibility (minor): %s (%s): %s", where, v.ID, v.Impact, v.Help)
		}
	}
}

// noProblems fails the test on anything the page logged or failed.
func noProblems(t *testing.T, probs *browserProblems, where string) {
	t.Helper()
	for _, p := range probs.take() {
		t.Errorf("%s: %s", where, p)
	}
}

// TestBrowser drives the web page in headless Chromium against the real
// handler and the real scanner over the loopback lab: a scan with a grade
// and eight cards, one card expanded, Chinese, a 400 shown inline, an IP
// checked alone, the page at phone width, and axe-core's accessibility
// rules; no console error and no failed request throughout.
func TestBrowser(t *testing.T) {
	probs := &browserProblems{expected: map[string]int{}}
	ctx := newBrowser(t, "en-US", probs)
	ts, _ := NewLabServer(t, Options{})
	out := testOutputDir(t)
	t.Logf("screenshots in %s", out)

	step(t, ctx, "open the page",
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("domain")),
	)
	if lang := eval[string](t, ctx, `document.documentElement.lang`); lang != "en" {
		t.Errorf("default language for en-US: %q", lang)
	}
	checkAccessibility(t, ctx, "empty page")

	step(t, ctx, "scan a domain",
		chromedp.SendKeys(chromedp.ID("domain"), "good.example.com"),
		chromedp.SendKeys(chromedp.ID("selector"), "s1"),
		chromedp.SendKeys(chromedp.ID("sending-ip"), "8.8.8.8\r"), // Enter submits: the keyboard is enough
		chromedp.WaitVisible(chromedp.ID("check-caa")),
	)
	if id := eval[string](t, ctx, `document.activeElement.id`); id != "results" {
		t.Errorf("focus after the scan is on %q, want the results", id)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#cards > li.card").length`); n != 8 {
		t.Errorf("cards: %d, want 8", n)
	}
	if g := eval[string](t, ctx, `document.querySelector(".grade-letter").textContent`); g != "A" {
		t.Errorf("grade %q, want A", g)
	}
	if s := eval[string](t, ctx, `document.querySelector(".score-num").textContent`); s != "100" {
		t.Errorf("score %q, want 100", s)
	}
	if loc := eval[string](t, ctx, `location.search + "|" + location.hash`); loc != "|#domain=good.example.com&selector=s1&sendingIp=8.8.8.8" {
		t.Errorf("location: %q (the domain belongs in the fragment, never the query)", loc)
	}

	step(t, ctx, "expand a card with the keyboard",
		chromedp.Focus(chromedp.CSS("#check-dmarc summary")),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS("#check-dmarc table.diag")),
	)
	rows := eval[[]string](t, ctx, `[...document.querySelectorAll("#check-dmarc details[open] table.diag tbody tr")].map(r => r.textContent)`)
	if len(rows) != 15 {
		t.Errorf("dmarc diagnostics rows: %d, want the contract's 15: %q", len(rows), rows)
	}
	for _, r := range rows {
		if strings.Contains(r, "null") || strings.Contains(r, "true") || strings.Contains(r, "false") {
			t.Errorf("raw JSON value in the table: %q", r)
		}
	}
	eval[chromedp.Void](t, ctx, `document.querySelectorAll("details").forEach(d => d.open = true)`)
	checkAccessibility(t, ctx, "results, expanded")
	screenshot(t, ctx, out, "desktop-results-en.png")
	noProblems(t, probs, "scan")

	step(t, ctx, "switch to Chinese", chromedp.Click(chromedp.ID("lang-toggle")))
	if lang := eval[string](t, ctx, `document.documentElement.lang`); lang != "zh-CN" {
		t.Errorf("after the toggle: lang %q", lang)
	}
	zh := eval[string](t, ctx, `document.querySelector("h1").textContent + "|" + document.querySelector("#check-dmarc .card-title span:last-child").textContent + "|" + document.querySelector("#check-dmarc summary").textContent`)
	if zh != "检查域名的邮件认证配置| DMARC 策略|详情" {
		t.Errorf("Chinese texts: %q", zh)
	}
	eval[chromedp.Void](t, ctx, `document.querySelectorAll("details").forEach(d => d.open = true)`)
	checkAccessibility(t, ctx, "results in Chinese")
	screenshot(t, ctx, out, "desktop-results-zh.png")

	step(t, ctx, "reload: the language is remembered, the fragment rescans",
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.ID("check-caa")),
	)
	if lang := eval[string](t, ctx, `document.documentElement.lang`); lang != "zh-CN" {
		t.Errorf("after reload: lang %q, want the remembered zh-CN", lang)
	}
	step(t, ctx, "back to English", chromedp.Click(chromedp.ID("lang-toggle")))
	noProblems(t, probs, "language")

	probs.expect("/api/ptr-check", 400)
	step(t, ctx, "a 400 is shown inline",
		chromedp.Click(chromedp.CSS(`label.mode:has(#mode-ip)`)),
		chromedp.WaitVisible(chromedp.ID("ptr-ip")),
		chromedp.SendKeys(chromedp.ID("ptr-ip"), "10.0.0.1"),
		chromedp.Click(chromedp.CSS("#ptr-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.ID("alert")),
	)
	if msg := eval[string](t, ctx, `document.getElementById("alert-text").textContent`); !strings.HasPrefix(msg, "Please check your input: sendingIp:") {
		t.Errorf("400 message: %q", msg)
	}
	if eval[bool](t, ctx, `!document.getElementById("retry").hidden`) {
		t.Error("a 400 offers a retry")
	}
	noProblems(t, probs, "400")
	probs.clearExpected()

	eval[chromedp.Void](t, ctx, `document.getElementById("ptr-ip").value = ""`)
	step(t, ctx, "check an IP alone",
		chromedp.SendKeys(chromedp.ID("ptr-ip"), "8.8.8.8"),
		chromedp.Click(chromedp.CSS("#ptr-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.ID("check-ptr")),
	)
	if n := eval[int](t, ctx, `document.querySelectorAll("#cards > li.card").length`); n != 1 {
		t.Errorf("ptr-check cards: %d, want 1", n)
	}
	if st := eval[string](t, ctx, `document.querySelector("#check-ptr .status-tag").textContent`); st != "Pass" {
		t.Errorf("ptr status %q", st)
	}
	if !eval[bool](t, ctx, `document.getElementById("alert").hidden`) {
		t.Error("the 400 message is still shown after a good check")
	}
	if h := eval[string](t, ctx, `location.hash`); h != "#ip=8.8.8.8" {
		t.Errorf("fragment %q", h)
	}
	checkAccessibility(t, ctx, "ptr-check")
	screenshot(t, ctx, out, "desktop-ptr-check.png")
	noProblems(t, probs, "ptr-check")

	step(t, ctx, "phone: developer page",
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Navigate(ts.URL+"/developers/api/"),
		chromedp.WaitVisible(chromedp.ID("scoring")),
	)
	checkAccessibility(t, ctx, "phone /developers/api/")
	screenshot(t, ctx, out, "phone-developers-api.png")
	step(t, ctx, "phone: a shared link scans the domain in its fragment",
		chromedp.Navigate(ts.URL+"/#domain=weak.example.com"),
		chromedp.WaitVisible(chromedp.ID("check-caa")),
	)
	if w := eval[[]int](t, ctx, `[document.documentElement.scrollWidth, window.innerWidth]`); w[0] > w[1] {
		t.Errorf("phone width: the page is %dpx wide in a %dpx viewport", w[0], w[1])
	}
	if d := eval[string](t, ctx, `document.getElementById("domain").value`); d != "weak.example.com" {
		t.Errorf("domain from the fragment: %q", d)
	}
	screenshot(t, ctx, out, "phone-results.png")
	eval[chromedp.Void](t, ctx, `document.querySelectorAll("details").forEach(d => d.open = true)`)
	checkAccessibility(t, ctx, "phone results")
	screenshot(t, ctx, out, "phone-results-expanded.png")
	step(t, ctx, "desktop: developer pages",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(ts.URL+"/developers/cli/"), chromedp.WaitVisible(chromedp.ID("exit-codes")))
	checkAccessibility(t, ctx, "/developers/cli/")
	screenshot(t, ctx, out, "desktop-developers-cli.png")
	noProblems(t, probs, "phone and developer pages")
}

// TestBrowserErrors: a 500 offers a retry that works, and a 429 counts
// down from Retry-After with the buttons disabled.
func TestBrowserErrors(t *testing.T) {
	probs := &browserProblems{expected: map[string]int{}}
	ctx := newBrowser(t, "en-US", probs)
	var calls sync.Mutex
	failNext := true
	svc := &FakeService{ScanFunc: func(ctx context.Context, req mailauth.ScanRequest) (mailauth.ScanSummary, error) {
		calls.Lock()
		defer calls.Unlock()
		if failNext {
			failNext = false
			return mailauth.ScanSummary{}, mailauth.ErrResolverUnavailable
		}
		return SampleScanSummary(), nil
	}}
	clock := NewTestClock()
	ts := NewTestServer(t, svc, Options{Limiter: NewMemoryLimiter(MemoryLimiterOptions{Limit: 2, Now: clock.Now})})
	out := testOutputDir(t)

	probs.expect("/api/scan", 500)
	step(t, ctx, "a 500 offers a retry",
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("domain")),
		chromedp.SendKeys(chromedp.ID("domain"), "example.com"),
		chromedp.Click(chromedp.CSS("#scan-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.ID("retry")),
	)
	if msg := eval[string](t, ctx, `document.getElementById("alert-text").textContent`); !strings.Contains(msg, errResolverDown.msg) {
		t.Errorf("500 message: %q", msg)
	}
	screenshot(t, ctx, out, "error-500.png")
	noProblems(t, probs, "500")
	probs.clearExpected()

	step(t, ctx, "the retry succeeds",
		chromedp.Click(chromedp.ID("retry")),
		chromedp.WaitVisible(chromedp.ID("check-caa")),
	)
	if !eval[bool](t, ctx, `document.getElementById("alert").hidden`) {
		t.Error("the 500 message is still shown after a successful retry")
	}
	noProblems(t, probs, "retry")

	probs.expect("/api/scan", 429)
	step(t, ctx, "a 429 counts down",
		chromedp.Click(chromedp.CSS("#scan-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.ID("alert")),
	)
	if msg := eval[string](t, ctx, `document.getElementById("alert-text").textContent`); msg != "Too many checks from your address. You can try again in 60 s." {
		t.Errorf("429 message: %q", msg)
	}
	if !eval[bool](t, ctx, `document.querySelector("#scan-form button[type=submit]").disabled`) {
		t.Error("the submit button is enabled during the countdown")
	}
	step(t, ctx, "the countdown ticks", discard(chromedp.Poll[bool](
		`document.getElementById("alert-text").textContent.includes("in 59 s")`, chromedp.WithPollingTimeout(browserStepTimeout))))
	step(t, ctx, "in Chinese too", chromedp.Click(chromedp.ID("lang-toggle")))
	if msg := eval[string](t, ctx, `document.getElementById("alert-text").textContent`); !strings.Contains(msg, "秒后重试") {
		t.Errorf("429 message in Chinese: %q", msg)
	}
	screenshot(t, ctx, out, "error-429.png")
	checkAccessibility(t, ctx, "429")
	noProblems(t, probs, "429")
}
