package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/browsertest"
	"github.com/mailauth/mailauth/internal/syncbuf"
	"github.com/mailauth/mailauth/internal/testlab"
)

// serveLab runs `mailauth serve` on 127.0.0.1 with the real scanner
// resolving through the loopback lab's DNS server and fetching MTA-STS
// policies from its HTTPS server (the lab flags), and returns its base
// URL. It stops when the test ends.
func serveLab(t *testing.T) string {
	t.Helper()
	lab := testlab.Start(t, []string{"../../testdata/zones/scan.zone"}, map[string]string{
		"mta-sts.good.example.com": "version: STSv1\nmode: enforce\nmx: mx1.good.example.com\nmax_age: 604800\n",
	})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, lab.CAPEM, 0o600))
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan int, 1)
	var errOut syncbuf.Buffer
	go func() {
		done <- runServe(ctx, testAdmin([]string{"-listen", "127.0.0.1:0", "-dns", lab.DNS.Addr(),
			"-https-port", strconv.Itoa(lab.HTTPSPort), "-ca-file", ca, "-allow-loopback-targets",
			"-storage", "sqlite:" + filepath.Join(t.TempDir(), "analytics.db")}),
			mapEnv(nil), stdio{out: &errOut, err: &errOut}, serveHooks{ready: func(a string) { addrc <- a }})
	}()
	t.Cleanup(func() {
		cancel()
		assert.Equal(t, exitOK, <-done, "serve exit: %s", errOut.String())
	})
	select {
	case a := <-addrc:
		return "http://" + a
	case code := <-done:
		done <- code
		require.Failf(t, "serve exited", "serve exited %d: %s", code, errOut.String())
	}
	return ""
}

// TestBrowser drives the web page in headless Chromium against `mailauth
// serve` (in process, with the lab flags) over the loopback lab's DNS and
// MTA-STS policy servers: a scan with a grade
// and one card per check, one card expanded, Chinese, a 400 shown inline, an IP
// checked alone, the page at phone width, and axe-core's accessibility
// rules; no console error and no failed request throughout.
func TestBrowser(t *testing.T) {
	b := browsertest.Start(t, "en-US")
	base := serveLab(t)

	b.Do("open the page",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.ID("domain")),
	)
	assert.Equal(t, "en", browsertest.Eval[string](b, `document.documentElement.lang`), "default language for en-US")
	b.CheckAccessibility("empty page")

	b.Do("scan a domain",
		chromedp.SendKeys(chromedp.ID("domain"), "good.example.com"),
		chromedp.SendKeys(chromedp.ID("selector"), "s1"),
		chromedp.SendKeys(chromedp.ID("sending-ip"), "8.8.8.8\r"), // Enter submits: the keyboard is enough
		chromedp.WaitVisible(chromedp.ID("check-caa")),
	)
	assert.Equal(t, "results-heading", browsertest.Eval[string](b, `document.activeElement.id`), "focus after the scan, want the results' heading")
	assert.Equal(t, len(mailauth.CheckOrder()), browsertest.Eval[int](b, `document.querySelectorAll("#cards > li.card").length`), "cards")
	assert.Equal(t, "A", browsertest.Eval[string](b, `document.querySelector(".grade-letter").textContent`), "grade")
	assert.Equal(t, "100", browsertest.Eval[string](b, `document.querySelector(".score-num").textContent`), "score")
	assert.Positive(t, browsertest.Eval[int](b, `document.querySelectorAll("#cards > li.card.st-pass").length`), "pass cards")
	assert.Zero(t, browsertest.Eval[int](b, `document.querySelectorAll("#cards .sev-tag").length`), "a pass (or info) card shows no severity tag")
	assert.Equal(t, "|#domain=good.example.com&selector=s1&sendingIp=8.8.8.8", browsertest.Eval[string](b, `location.search + "|" + location.hash`), "location (the domain belongs in the fragment, never the query)")

	b.Do("expand a card with the keyboard",
		chromedp.Focus(chromedp.CSS("#check-dmarc summary")),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS("#check-dmarc table.diag")),
	)
	rows := browsertest.Eval[[]string](b, `[...document.querySelectorAll("#check-dmarc details[open] table.diag tbody tr")].map(r => r.textContent)`)
	assert.Len(t, rows, 15, "dmarc diagnostics rows, want the contract's 15: %q", rows)
	for _, r := range rows {
		assert.NotContains(t, r, "null", "raw JSON value in the table")
		assert.NotContains(t, r, "true", "raw JSON value in the table")
		assert.NotContains(t, r, "false", "raw JSON value in the table")
	}
	browsertest.Eval[chromedp.Void](b, `document.querySelectorAll("details").forEach(d => d.open = true)`)
	b.CheckAccessibility("results, expanded")
	b.Screenshot("desktop-results-en.png")
	b.NoProblems("scan")

	b.Do("switch to Chinese", chromedp.Click(chromedp.ID("lang-toggle")))
	assert.Equal(t, "zh-CN", browsertest.Eval[string](b, `document.documentElement.lang`), "after the toggle: lang")
	zh := browsertest.Eval[string](b, `document.querySelector("h1").textContent + "|" + document.querySelector("#check-dmarc .card-title span:last-child").textContent + "|" + document.querySelector("#check-dmarc summary").textContent`)
	assert.Equal(t, "检查域名的邮件认证配置| DMARC 策略|详情：DMARC 策略", zh, "Chinese texts")
	browsertest.Eval[chromedp.Void](b, `document.querySelectorAll("details").forEach(d => d.open = true)`)
	b.CheckAccessibility("results in Chinese")
	b.Screenshot("desktop-results-zh.png")

	b.Do("reload: the language is remembered, the fragment fills the form",
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.ID("domain")),
	)
	assert.True(t, browsertest.Eval[bool](b, `document.getElementById("results").hidden`), "a reload ran the check in the fragment before Check was pressed")
	b.Do("Check rescans", chromedp.Click(chromedp.CSS("#scan-form button[type=submit]")), chromedp.WaitVisible(chromedp.ID("check-caa")))
	assert.Equal(t, "zh-CN", browsertest.Eval[string](b, `document.documentElement.lang`), "after reload: lang, want the remembered zh-CN")
	b.Do("back to English", chromedp.Click(chromedp.ID("lang-toggle")))
	b.NoProblems("language")

	b.Expect("/api/ptr-check", 400)
	b.Do("a 400 is shown inline",
		chromedp.Click(chromedp.CSS(`label.mode:has(#mode-ip)`)),
		chromedp.WaitVisible(chromedp.ID("ptr-ip")),
		chromedp.SendKeys(chromedp.ID("ptr-ip"), "10.0.0.1"),
		chromedp.Click(chromedp.CSS("#ptr-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.ID("ptr-ip-error")),
	)
	assert.Equal(t, "Please check your input: Sending IP: not a public address (private range)", browsertest.Eval[string](b, `document.getElementById("ptr-ip-error").textContent`), "400 message, under its field")
	assert.Equal(t, "true", browsertest.Eval[string](b, `document.getElementById("ptr-ip").getAttribute("aria-invalid")`), "a 400 for sendingIp does not mark the field invalid")
	assert.False(t, browsertest.Eval[bool](b, `!document.getElementById("retry").hidden`), "a 400 offers a retry")
	b.NoProblems("400")
	b.ClearExpected()

	browsertest.Eval[chromedp.Void](b, `document.getElementById("ptr-ip").value = ""`)
	b.Do("check an IP alone",
		chromedp.SendKeys(chromedp.ID("ptr-ip"), "8.8.8.8"),
		chromedp.Click(chromedp.CSS("#ptr-form button[type=submit]")),
		browsertest.Discard(chromedp.Poll[bool](`document.querySelectorAll("#cards > li.card").length === 1 && !!document.getElementById("check-ptr")`, chromedp.WithPollingTimeout(browsertest.Budget(browsertest.StepTimeout)))),
	)
	assert.Equal(t, 1, browsertest.Eval[int](b, `document.querySelectorAll("#cards > li.card").length`), "ptr-check cards")
	assert.Equal(t, "Pass", browsertest.Eval[string](b, `document.querySelector("#check-ptr .status-tag").textContent`), "ptr status")
	assert.True(t, browsertest.Eval[bool](b, `document.getElementById("alert").hidden`), "the 400 message is still shown after a good check")
	assert.Equal(t, "#ip=8.8.8.8", browsertest.Eval[string](b, `location.hash`), "fragment")
	b.CheckAccessibility("ptr-check")
	b.Screenshot("desktop-ptr-check.png")
	b.NoProblems("ptr-check")

	b.Do("phone: developer page",
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Navigate(base+"/developers/api/"),
		chromedp.WaitVisible(chromedp.ID("scoring")),
	)
	b.CheckAccessibility("phone /developers/api/")
	assert.True(t, browsertest.Eval[bool](b, `[...document.querySelectorAll(".zh")].every(e => getComputedStyle(e).display === "none")`), "/developers/api/ in English shows Chinese paragraphs: the toggle should show one language")
	assert.True(t, browsertest.Eval[bool](b, `[...document.querySelectorAll("pre code")].some(c => c.textContent.includes("curl -sS -X POST " + location.origin + "/api/scan"))`), "/developers/api/: the curl examples do not name the page's own base URL")
	t.Logf("/developers/api/ at phone width: %d px tall", browsertest.Eval[int](b, `document.documentElement.scrollHeight`))
	b.Screenshot("phone-developers-api.png")
	b.Do("phone: a shared link fills the form with the domain in its fragment",
		chromedp.Navigate(base+"/#domain=weak.example.com"),
		chromedp.WaitVisible(chromedp.ID("domain")),
	)
	assert.True(t, browsertest.Eval[bool](b, `document.getElementById("results").hidden`), "a shared link ran the check before Check was pressed")
	b.Do("phone: Check runs it", chromedp.Click(chromedp.CSS("#scan-form button[type=submit]")), chromedp.WaitVisible(chromedp.ID("check-caa")))
	w := browsertest.Eval[[]int](b, `[document.documentElement.scrollWidth, window.innerWidth]`)
	assert.LessOrEqual(t, w[0], w[1], "phone width: the page is %dpx wide in a %dpx viewport", w[0], w[1])
	assert.Equal(t, "weak.example.com", browsertest.Eval[string](b, `document.getElementById("domain").value`), "domain from the fragment")
	b.Screenshot("phone-results.png")
	b.Do("phone: a name that does not exist",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.ID("domain")),
		chromedp.SendKeys(chromedp.ID("domain"), "nxdomain.example.com\r"),
		browsertest.Discard(chromedp.Poll[bool](`document.getElementById("results-heading").textContent.startsWith("nxdomain.")`,
			chromedp.WithPollingTimeout(browsertest.Budget(browsertest.StepTimeout)))),
	)
	assert.Equal(t, "nxdomain.example.com does not exist in the DNS — check the spelling", browsertest.Eval[string](b, `document.getElementById("results-heading").textContent`), "headline of a name that does not exist")
	top := browsertest.Eval[float64](b, `document.getElementById("results-heading").getBoundingClientRect().top`)
	assert.GreaterOrEqual(t, top, -2.0, "phone: the results heading is at %v px, want the top of the view", top)
	assert.LessOrEqual(t, top, 2.0, "phone: the results heading is at %v px, want the top of the view", top)
	b.Screenshot("phone-nxdomain.png")
	browsertest.Eval[chromedp.Void](b, `document.querySelectorAll("details").forEach(d => d.open = true)`)
	b.CheckAccessibility("phone results")
	b.Screenshot("phone-results-expanded.png")
	b.Do("desktop: developer pages",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(base+"/developers/cli/"), chromedp.WaitVisible(chromedp.ID("exit-codes")))
	b.CheckAccessibility("/developers/cli/")
	b.Screenshot("desktop-developers-cli.png")
	b.NoProblems("phone and developer pages")
}
