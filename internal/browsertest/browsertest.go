// Package browsertest drives headless Chromium (through chromedp) for the
// browser tests of the web page: it starts a browser that cannot reach
// anything but loopback, records every console error, uncaught exception
// and failed or error response, saves screenshots, and runs axe-core (a
// vendored copy, see axe/README) in the page.
//
// Chromium is the Debian package chromium (or $MAILAUTH_CHROMIUM). Without
// it a test fails when CI=true and is skipped otherwise. Screenshots go to
// $MAILAUTH_TEST_OUT/TEST-NAME when that is set, else to a temporary
// directory.
package browsertest

import (
	"context"
	_ "embed" // axe-core
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// axeSource is axe-core, injected into the page for the accessibility
// check.
//
//go:embed axe/axe.min.js
var axeSource string

// StepTimeout bounds one action of a step (a page load, a click, a scan
// against the loopback lab) on an idle machine; it is a hang guard, not a
// measurement. A step's budget grows with what it does and with the
// machine's load (Budget).
const StepTimeout = 30 * time.Second

// perAction is what every action of a step after its first adds to the
// step's budget, before the load factor.
const perAction = 10 * time.Second

// perElements is how many elements of a page add one second to the budget
// of an accessibility check (axe-core visits every element).
const perElements = 100

// Budget is the time a step doing base worth of work may take: base
// times the load factor of the machine, the 1-minute load average per CPU
// (at least 1, at most 4), so that a busy machine slows the steps down
// without failing them.
func Budget(base time.Duration) time.Duration {
	return time.Duration(float64(base) * loadFactor())
}

// loadFactor is the 1-minute load average per CPU, clamped to 1..4; 1
// when /proc/loadavg cannot be read.
func loadFactor() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 1
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return 1
	}
	load, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return 1
	}
	return min(max(load/float64(goruntime.NumCPU()), 1), 4)
}

// Browser is a headless Chromium tab with a fresh profile, watched for
// problems.
type Browser struct {
	t   testing.TB
	ctx context.Context
	// Out is the directory screenshots are saved in.
	Out string

	mu       sync.Mutex
	problems []string
	expected map[string]int // URL fragment -> expected error status
}

// Path finds Chromium: $MAILAUTH_CHROMIUM, else chromium or
// chromium-browser on PATH. Without it the test fails in CI (CI=true) and
// is skipped elsewhere.
func Path(t testing.TB) string {
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
	t.Skip("chromium is not installed; install the Debian package chromium to run the browser tests")
	return ""
}

// blackholeProxy is the proxy every non-loopback connection of the
// browser is sent to: port 1 of loopback (TCP port service multiplexer,
// privileged and never served here), so such a connection is refused on
// the machine itself and nothing leaves it.
const blackholeProxy = "http://127.0.0.1:1"

// Start starts Chromium with the browser language lang (navigator.language)
// and every background service off. Host names resolve to nothing, and
// every connection to an address outside loopback (an IP literal, which
// the resolver rules do not see) goes to a proxy on a loopback port that
// nothing listens on (blackholeProxy), so the browser can reach only the
// loopback addresses the test gives it. Everything stops when t ends.
func Start(t testing.TB, lang string) *Browser {
	t.Helper()
	b := &Browser{t: t, expected: map[string]int{}, Out: outputDir(t)}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(Path(t)),
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
		chromedp.ProxyServer(blackholeProxy),
		// "<-loopback>" drops Chromium's implicit bypass list (which also
		// holds link-local addresses), then loopback alone goes direct.
		chromedp.Flag("proxy-bypass-list", "<-loopback>;127.0.0.1/8;[::1]"),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.Flag("lang", lang),
		chromedp.Flag("accept-lang", lang),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(b.listen))
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start chromium: %v", err)
	}
	b.ctx = ctx
	t.Logf("screenshots in %s", b.Out)
	return b
}

// outputDir is $MAILAUTH_TEST_OUT/TEST-NAME (kept after the test) when
// set, else a temporary directory.
func outputDir(t testing.TB) string {
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

// listen records what must not happen in the page: console errors and
// warnings, uncaught exceptions, failed requests, and error responses or
// logged errors other than the ones a step expects.
func (b *Browser) listen(ev any) {
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
// The caller holds b.mu.
func (b *Browser) isExpected(url, text string) bool {
	for frag, status := range b.expected {
		if strings.Contains(url, frag) && strings.Contains(text, fmt.Sprint(status)) {
			return true
		}
	}
	return false
}

// Expect lets responses with status to URLs containing frag pass (a step
// that provokes a 400 or a 429) until ClearExpected.
func (b *Browser) Expect(frag string, status int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.expected[frag] = status
}

// ClearExpected ends every Expect.
func (b *Browser) ClearExpected() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.expected = map[string]int{}
}

// NoProblems fails the test on anything recorded since the last call.
func (b *Browser) NoProblems(where string) {
	b.t.Helper()
	b.mu.Lock()
	p := b.problems
	b.problems = nil
	b.mu.Unlock()
	for _, s := range p {
		b.t.Errorf("%s: %s", where, s)
	}
}

// Do runs actions within a budget of StepTimeout for the first and
// perAction for each further one, scaled by the load (Budget); an error
// fails the test.
func (b *Browser) Do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	base := StepTimeout + time.Duration(max(len(actions)-1, 0))*perAction
	ctx, cancel := context.WithTimeout(b.ctx, Budget(base))
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// Eval evaluates a JavaScript expression in the page (awaiting a
// promise) and decodes its value.
func Eval[T any](b *Browser, expr string) T {
	b.t.Helper()
	return evalWithin[T](b, StepTimeout, expr)
}

// evalWithin is Eval with a budget of base (scaled by Budget).
func evalWithin[T any](b *Browser, base time.Duration, expr string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, Budget(base))
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// Discard makes an action that drops a's value.
func Discard[T any](a chromedp.Action[T]) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := a(ctx, t)
		return chromedp.Void{}, err
	}
}

// Screenshot saves a PNG of the viewport as Out/name: what a visitor
// sees, at the emulated size and scale. Never the full page: a long page
// at a phone's device pixel ratio is tens of thousands of pixels tall and
// takes a minute to encode on a busy machine. Scroll first to show
// another part.
func (b *Browser) Screenshot(name string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, Budget(StepTimeout))
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(b.Out, name), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// axeViolation is what the test keeps of an axe-core result.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  int    `json:"nodes"`
}

// CheckAccessibility runs axe-core (WCAG 2.x A and AA rules and best
// practices) in the page and fails on any serious or critical violation;
// minor and moderate ones are logged.
func (b *Browser) CheckAccessibility(where string) {
	b.t.Helper()
	if !Eval[bool](b, `typeof axe === "object"`) {
		Eval[chromedp.Void](b, axeSource+";void 0")
	}
	elements := Eval[int](b, `document.getElementsByTagName("*").length`)
	base := StepTimeout + time.Duration(elements/perElements)*time.Second
	vs := evalWithin[[]axeViolation](b, base, `axe.run(document, {resultTypes: ["violations"]}).then(r =>
		r.violations.map(v => ({id: v.id, impact: v.impact || "", help: v.help, nodes: v.nodes.length})))`)
	for _, v := range vs {
		if v.Impact == "serious" || v.Impact == "critical" {
			b.t.Errorf("%s: accessibility: %s (%s) on %d nodes: %s", where, v.ID, v.Impact, v.Nodes, v.Help)
		} else {
			b.t.Logf("%s: accessibility (minor): %s (%s): %s", where, v.ID, v.Impact, v.Help)
		}
	}
}
