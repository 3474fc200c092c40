package httpapi

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth/internal/browsertest"
)

// TestBrowserHelpAtTheFinding: a card's help link goes to the anchor of
// the finding its summary states, and following it puts that finding in
// view, far down its help page: a domain of the provider corpus whose
// DMARC policy is none (scanned by the real scanner over the loopback
// lab), on a desktop in English and on a phone in Chinese.
func TestBrowserHelpAtTheFinding(t *testing.T) {
	b := browsertest.Start(t, "en-US")
	ts, _ := newCorpusServer(t)

	for _, v := range []struct {
		name  string
		setup []chromedp.Action[chromedp.Void]
	}{
		{"desktop, English", []chromedp.Action[chromedp.Void]{chromedp.EmulateViewport(1280, 800)}},
		{"phone, Chinese", []chromedp.Action[chromedp.Void]{
			chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch),
		}},
	} {
		b.Do(v.name+": scan a domain whose DMARC policy is none", append(v.setup,
			chromedp.Navigate(ts.URL+"/"),
			chromedp.WaitVisible(chromedp.ID("domain")),
			chromedp.SendKeys(chromedp.ID("domain"), "zoho.example.com\r"),
			chromedp.WaitVisible(chromedp.ID("check-dmarc")),
		)...)
		if v.name == "phone, Chinese" {
			b.Do("in Chinese", chromedp.Click(chromedp.ID("lang-toggle")))
		}
		assert.Contains(t, browsertest.Eval[string](b, `document.querySelector("#check-dmarc .card-summary").textContent`),
			map[bool]string{true: "DMARC 策略为 none", false: "The DMARC policy is none"}[v.name == "phone, Chinese"], "%s: the card's finding", v.name)
		assert.Equal(t, "/help/dmarc/#dmarc.none",
			browsertest.Eval[string](b, `document.querySelector("#check-dmarc .help-link").getAttribute("href")`), "%s: the link names the finding", v.name)
		b.Do(v.name+": follow the card's help link",
			chromedp.ScrollIntoView(chromedp.CSS("#check-dmarc .help-link")),
			chromedp.Click(chromedp.CSS("#check-dmarc .help-link")),
			chromedp.WaitVisible(chromedp.ID("findings")),
			chromedp.WaitVisible(chromedp.CSS(`[id="dmarc.none"]`)), // an id with a dot is no #selector
		)
		assert.Equal(t, "/help/dmarc/|#dmarc.none", browsertest.Eval[string](b, `location.pathname + "|" + location.hash`), v.name)
		at := browsertest.Eval[[]float64](b, `(() => { const r = document.getElementById("dmarc.none").getBoundingClientRect();
			return [r.top, r.bottom, innerHeight, scrollY, document.getElementById("findings").getBoundingClientRect().top + scrollY] })()`)
		assert.True(t, at[0] > -2 && at[0] < at[2], "%s: the finding is in view: its top at %v in a %v px viewport", v.name, at[0], at[2])
		assert.Greater(t, at[3], at[4]-1, "%s: the page scrolled past the findings' heading to the finding (scrollY %v)", v.name, at[3])
		assert.True(t, browsertest.Eval[bool](b, `document.getElementById("dmarc.none").matches(":target")`), "%s: the finding is the target", v.name)
		assert.Contains(t, browsertest.Eval[string](b, `document.getElementById("dmarc.none").textContent`), "The DMARC policy is none", v.name)
		b.Screenshot(map[bool]string{true: "phone-help-finding-zh.png", false: "desktop-help-finding.png"}[v.name == "phone, Chinese"])
		b.CheckAccessibility(v.name + ": the help page at a finding")
	}
	b.NoProblems("help at the finding")
}
