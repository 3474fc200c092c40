package httpapi

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/browsertest"
)

// TestBrowserRescan: "did my fix work?". The page keeps the last result
// of each domain in the browser; a rescan lists per check what was fixed,
// what newly fails and how many are unchanged, above the fix-first list;
// a result that may come from the service's DNS cache says so instead of
// a duration; "forget" empties what the browser keeps. Desktop in
// English, then a phone in Chinese, axe on each.
func TestBrowserRescan(t *testing.T) {
	b := browsertest.Start(t, "en-US")
	var n atomic.Int32
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	svc := &FakeService{ScanFunc: func(context.Context, mailauth.ScanRequest) (mailauth.ScanSummary, error) {
		s := actionableSummary("fixme.com")
		s.ScannedAt, s.DurationMs = t0, 1234
		set := func(id mailauth.CheckID, st mailauth.Status) {
			for i := range s.Checks {
				if s.Checks[i].ID == id {
					s.Checks[i].Status = st
				}
			}
		}
		switch n.Add(1) {
		case 1:
		case 2: // DMARC fixed, SPF broken; ten minutes later
			set(mailauth.CheckDMARC, mailauth.StatusPass)
			set(mailauth.CheckSPF, mailauth.StatusFail)
			s.ScannedAt = t0.Add(10 * time.Minute)
		default: // a minute later, in no time: from the cache
			set(mailauth.CheckDMARC, mailauth.StatusPass)
			set(mailauth.CheckSPF, mailauth.StatusFail)
			s.ScannedAt, s.DurationMs = t0.Add(11*time.Minute), 0
		}
		return s, nil
	}}
	ts := NewTestServer(t, svc, Options{})
	scan := func(what string) {
		browsertest.Eval[chromedp.Void](b, `document.getElementById("cards").textContent = ""`)
		b.Do(what,
			chromedp.Click(chromedp.CSS("#scan-form button[type=submit]")),
			chromedp.WaitVisible(chromedp.ID("check-caa")),
		)
	}
	b.Do("open the page", chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.ID("domain")), chromedp.SendKeys(chromedp.ID("domain"), "fixme.com"))
	scan("first scan")
	assert.Equal(t, "true|true|false", browsertest.Eval[string](b, `[document.getElementById("changes").hidden, document.getElementById("cache-note").hidden,
		document.getElementById("forget").hidden].join("|")`), "first scan: nothing to compare, no cache note, a forget control")
	assert.Equal(t, "Done in", browsertest.Eval[string](b, `document.getElementById("status").textContent.slice(0, 7)`))
	assert.Contains(t, browsertest.Eval[string](b, `localStorage.getItem("mailauth.lastResults")`), `"fixme.com"`, "the result is kept in the browser")

	scan("rescan after a fix")
	assert.Equal(t, []string{"fixed dmarc", "worse spf"},
		browsertest.Eval[[]string](b, `[...document.querySelectorAll("#changes-list li[data-change]")].map(li => li.dataset.change + " " + li.dataset.check)`),
		"the changes since the last check")
	assert.Equal(t, "Fixed: dmarc title (Fail → Pass)", browsertest.Eval[string](b, `document.querySelector("#changes-list .fixed").textContent`))
	assert.Equal(t, fmt.Sprintf("Unchanged: %d checks", len(mailauth.CheckOrder())-2), browsertest.Eval[string](b, `[...document.querySelectorAll("#changes-list li")].pop().textContent`))
	assert.True(t, browsertest.Eval[bool](b, `!!(document.getElementById("changes").compareDocumentPosition(document.getElementById("fix-first")) & Node.DOCUMENT_POSITION_FOLLOWING)`),
		"the changes stand above the fix-first list")
	assert.True(t, browsertest.Eval[bool](b, `document.getElementById("cache-note").hidden`), "ten minutes later: no cache note")
	b.CheckAccessibility("rescan")
	b.Screenshot("desktop-rescan.png")

	scan("rescan at once, answered from the cache")
	assert.Equal(t, "Done. Answers may be up to 5 minutes old: the service caches DNS.", browsertest.Eval[string](b, `document.getElementById("status").textContent`),
		"the status says the answers may be cached instead of a duration")
	assert.Contains(t, browsertest.Eval[string](b, `document.getElementById("cache-note").textContent`), "up to 5 minutes old")
	assert.Equal(t, "Nothing changed since then.", browsertest.Eval[string](b, `document.querySelector("#changes-list li").textContent`))

	b.Do("phone, Chinese",
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Click(chromedp.ID("lang-toggle")),
	)
	assert.Contains(t, browsertest.Eval[string](b, `document.getElementById("cache-note").textContent`), "最多 5 分钟前")
	assert.Equal(t, "与上次相比没有任何变化。", browsertest.Eval[string](b, `document.querySelector("#changes-list li").textContent`))
	b.CheckAccessibility("rescan on a phone in Chinese")
	b.Screenshot("phone-rescan-zh.png")

	b.Do("forget", chromedp.Click(chromedp.ID("forget")))
	assert.Equal(t, "null|true|本浏览器没有保存任何结果。", browsertest.Eval[string](b, `[String(localStorage.getItem("mailauth.lastResults")), document.getElementById("forget").hidden,
		document.getElementById("history-text").textContent].join("|")`), "forget empties what the browser keeps")
	b.NoProblems("rescan")

	b.Expect("/help/spff/", 404)
	b.Do("a mistyped page", chromedp.Navigate(ts.URL+"/help/spff/"), chromedp.WaitVisible(chromedp.CSS("h1")))
	assert.Contains(t, browsertest.Eval[string](b, `document.querySelector("h1").textContent`), "Page not found")
	b.CheckAccessibility("404 page on a phone")
	b.NoProblems("404")
	b.ClearExpected()
}
