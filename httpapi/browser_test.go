package httpapi

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/browsertest"
)

// The whole page in a browser against `mailauth serve` and the loopback
// lab is TestBrowser in cmd/mailauth; this one needs a service that fails
// on demand and a tight limiter.

// TestBrowserErrors, on a phone (390×844): a slow scan shows the elapsed
// time with the button disabled, a 500 is scrolled into view, focused,
// translated in Chinese and offers a retry that works, and a 429 counts
// down from Retry-After with the buttons disabled, one number shown.
func TestBrowserErrors(t *testing.T) {
	b := browsertest.Start(t, "en-US")
	var calls sync.Mutex
	failNext := true
	gate := make(chan struct{}) // holds the first scan until the loading state was seen
	svc := &FakeService{ScanFunc: func(_ context.Context, req mailauth.ScanRequest) (mailauth.ScanSummary, error) {
		<-gate
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
	release := sync.OnceFunc(func() { close(gate) })
	t.Cleanup(release) // before the server closes, should a step fail first

	b.Expect("/api/scan", 500)
	b.Do("a slow scan shows the loading state",
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("domain")),
		chromedp.SendKeys(chromedp.ID("domain"), "example.com"),
		chromedp.Click(chromedp.CSS("#scan-form button[type=submit]")),
		browsertest.Discard(chromedp.Poll[bool](`document.getElementById("elapsed").textContent === "1 s"`,
			chromedp.WithPollingTimeout(browsertest.Budget(browsertest.StepTimeout)))),
	)
	loading := browsertest.Eval[string](b, `document.getElementById("status").textContent + "|" +
		document.querySelector("#scan-form button[type=submit]").disabled + "|" + document.getElementById("results").getAttribute("aria-busy")`)
	assert.Equal(t, "Checking…|true|true", loading, "loading state")
	release()
	b.Do("the 500 arrives with a retry", chromedp.WaitVisible(chromedp.ID("retry")))
	assert.Contains(t, browsertest.Eval[string](b, `document.getElementById("alert-text").textContent`), errResolverDown.msg, "500 message")
	alertSeen(t, b, "500")
	b.Do("the 500 in Chinese", chromedp.Click(chromedp.ID("lang-toggle")))
	assert.Equal(t, "本次检查未能完成：DNS 解析暂时不可用。这通常是暂时的。",
		browsertest.Eval[string](b, `document.getElementById("alert-text").textContent`), "the 500 in Chinese, the service's message translated")
	b.CheckAccessibility("500 in Chinese on a phone")
	b.Do("back to English", chromedp.Click(chromedp.ID("lang-toggle")))
	b.Screenshot("error-500.png")
	b.NoProblems("500")
	b.ClearExpected()

	b.Do("the retry succeeds",
		chromedp.Click(chromedp.ID("retry")),
		chromedp.WaitVisible(chromedp.ID("check-caa")),
	)
	assert.True(t, browsertest.Eval[bool](b, `document.getElementById("alert").hidden`), "the 500 message is still shown after a successful retry")
	b.NoProblems("retry")

	b.Expect("/api/scan", 429)
	b.Do("a 429 counts down",
		chromedp.Click(chromedp.CSS("#scan-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.ID("alert")),
	)
	assert.Equal(t, "Too many checks from your address.|You can try again in 60 s.",
		browsertest.Eval[string](b, `document.getElementById("alert-text").textContent + "|" + document.getElementById("countdown").textContent`), "429 message")
	alertSeen(t, b, "429")
	assert.True(t, browsertest.Eval[bool](b, `document.querySelector("#scan-form button[type=submit]").disabled`), "the submit button is enabled during the countdown")
	b.Do("the countdown ticks", browsertest.Discard(chromedp.Poll[bool](
		`/^You can try again in 5\d s\.$/.test(document.getElementById("countdown").textContent)`, chromedp.WithPollingTimeout(browsertest.Budget(browsertest.StepTimeout)))))
	// The seconds tick in a timer that is not live: the alert is
	// announced once, at the start, not every second; one number shows.
	assert.Equal(t, "Too many checks from your address.", browsertest.Eval[string](b, `document.getElementById("alert-text").textContent`), "the alert changed while counting down")
	assert.Equal(t, "timer|off", browsertest.Eval[string](b, `document.getElementById("countdown").getAttribute("role") + "|" + document.getElementById("countdown").getAttribute("aria-live")`),
		"the countdown is read out every second")
	assert.Equal(t, 1, browsertest.Eval[int](b, `(document.getElementById("alert").textContent.match(/\d+ s/g) || []).length`), "the 429 shows more than one number")
	b.Do("in Chinese too", chromedp.Click(chromedp.ID("lang-toggle")))
	assert.Contains(t, browsertest.Eval[string](b, `document.getElementById("countdown").textContent`), "秒后重试", "429 message in Chinese")
	b.Screenshot("error-429.png")
	b.CheckAccessibility("429")
	b.NoProblems("429")
}

// alertSeen asserts that the alert is in the view and focused.
func alertSeen(t *testing.T, b *browsertest.Browser, what string) {
	t.Helper()
	r := browsertest.Eval[[]float64](b, `(() => { const r = document.getElementById("alert").getBoundingClientRect(); return [r.top, r.bottom, innerHeight]; })()`)
	assert.True(t, r[0] >= 0 && r[1] <= r[2], "%s: the alert is out of view: top %v, bottom %v in a %v px viewport", what, r[0], r[1], r[2])
	assert.Equal(t, "alert", browsertest.Eval[string](b, `document.activeElement.id`), "%s: the alert is not focused", what)
}

// TestBrowserChineseDefault: a browser that prefers Chinese gets the page
// in Chinese without touching the toggle.
func TestBrowserChineseDefault(t *testing.T) {
	b := browsertest.Start(t, "zh-CN")
	svc := &FakeService{ScanFunc: func(context.Context, mailauth.ScanRequest) (mailauth.ScanSummary, error) {
		s := SampleScanSummary()
		seven := 7
		s.Checks[1].Diagnostics = &mailauth.SPFDiagnostics{SPFRecordCount: 1, DNSLookupCount: &seven, DNSLookupLimit: 10, LookupComplete: false}
		s.Checks[2].Diagnostics = &mailauth.DMARCDiagnostics{TreeWalkQueries: 1} // every nullable fact null
		return s, nil
	}}
	ts := NewTestServer(t, svc, Options{})
	b.Do("open the page", chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.ID("domain")))
	got := browsertest.Eval[string](b, `document.documentElement.lang + "|" + document.querySelector("h1").textContent + "|" + document.getElementById("lang-toggle").textContent`)
	assert.Equal(t, "zh-CN|检查域名的邮件认证配置|English", got, "page for a zh-CN browser")
	b.CheckAccessibility("empty page in Chinese")
	b.Do("submit an empty domain", chromedp.SendKeys(chromedp.ID("domain"), "\r"), chromedp.WaitVisible(chromedp.ID("domain-error")))
	empty := browsertest.Eval[string](b, `document.getElementById("domain-error").textContent + "|" +
		document.getElementById("domain").getAttribute("aria-invalid") + "|" + document.activeElement.id + "|" +
		document.getElementById("domain").getAttribute("aria-describedby") + "|" + document.getElementById("alert").hidden`)
	assert.Equal(t, "请输入要检查的域名。|true|domain|domain-hint domain-error|true", empty, "empty domain: the message under its field, which it describes")
	b.CheckAccessibility("input error in Chinese")
	scans, _ := svc.Calls()
	assert.Empty(t, scans, "an empty domain was sent: %v", scans)
	b.Do("scan", chromedp.SendKeys(chromedp.ID("domain"), "example.com\r"), chromedp.WaitVisible(chromedp.ID("check-caa")))
	assert.True(t, browsertest.Eval[bool](b, `document.getElementById("alert").hidden && document.getElementById("domain-error").hidden && !document.getElementById("domain").hasAttribute("aria-invalid")`), "the empty-domain message outlived a good scan")
	cells := browsertest.Eval[[]string](b, `[...document.querySelectorAll("#check-spf td, #check-dmarc td")].map(c => c.textContent)`)
	joined := strings.Join(cells, "|")
	assert.Contains(t, joined, "至少 7", "diagnostics cells: %q (want the lower bound and 13 undetermined DMARC facts)", cells)
	assert.Equal(t, 13, strings.Count(joined, "无法确定"), "diagnostics cells: %q (want the lower bound and 13 undetermined DMARC facts)", cells)
	b.NoProblems("zh default")
}

// TestBrowserHomographAndFragment: a link with a domain in its fragment
// fills the form but runs nothing until Check is pressed; a Unicode name
// (here Cyrillic "а" + "pple") is shown with its A-label beside it.
func TestBrowserHomographAndFragment(t *testing.T) {
	b := browsertest.Start(t, "en-US")
	svc := &FakeService{ScanFunc: func(context.Context, mailauth.ScanRequest) (mailauth.ScanSummary, error) {
		s := SampleScanSummary()
		s.Domain, s.UnicodeDomain = "xn--pple-43d.com", "аpple.com"
		return s, nil
	}}
	ts := NewTestServer(t, svc, Options{})
	b.Do("open a shared link", chromedp.Navigate(ts.URL+"/#domain=xn--pple-43d.com"), chromedp.WaitVisible(chromedp.ID("domain")))
	assert.Equal(t, "xn--pple-43d.com", browsertest.Eval[string](b, `document.getElementById("domain").value`), "domain from the fragment")
	scans, _ := svc.Calls()
	require.Empty(t, scans, "the link ran a check before Check was pressed: %v", scans)
	require.True(t, browsertest.Eval[bool](b, `document.getElementById("results").hidden`), "the link ran a check before Check was pressed: %v", scans)
	b.Do("press Check", chromedp.Click(chromedp.CSS("#scan-form button[type=submit]")), chromedp.WaitVisible(chromedp.ID("check-caa")))
	assert.Equal(t, "Results for аpple.com (xn--pple-43d.com)", browsertest.Eval[string](b, `document.getElementById("results-heading").textContent`), "heading: the A-label must stand beside the Unicode name")
	assert.Equal(t, "This name mixes Cyrillic and Latin letters; it is not apple.com.",
		browsertest.Eval[string](b, `document.getElementById("lookalike").hidden ? "" : document.getElementById("lookalike").textContent`), "the look-alike warning")
	b.CheckAccessibility("look-alike warning")
	b.Do("phone, Chinese",
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Click(chromedp.ID("lang-toggle")))
	assert.Equal(t, "该名称混用了西里尔字母和拉丁字母，它不是 apple.com。", browsertest.Eval[string](b, `document.getElementById("lookalike").textContent`))
	b.CheckAccessibility("look-alike warning, phone, Chinese")
	b.Screenshot("phone-lookalike-zh.png")
	b.NoProblems("homograph")

	// A rejected input does not make it into the fragment: the link
	// still carries the last name that was accepted.
	b.Expect("/api/scan", 400)
	browsertest.Eval[chromedp.Void](b, `document.getElementById("domain").value = ""`)
	b.Do("an input the service rejects", chromedp.SendKeys(chromedp.ID("domain"), "10.0.0.1\r"), chromedp.WaitVisible(chromedp.ID("domain-error")))
	assert.Equal(t, "#domain=xn--pple-43d.com", browsertest.Eval[string](b, `location.hash`), "the fragment took a rejected input")
	b.NoProblems("rejected input")
	b.ClearExpected()
}
