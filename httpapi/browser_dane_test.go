package httpapi

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth/internal/browsertest"
)

// TestBrowserDANEOnly: a domain protected by DANE and without MTA-STS
// (the corpus's Microsoft 365 DANE-inbound domain, scanned by the real
// scanner over the loopback lab) shows an MTA-STS card that is not red,
// says DANE, and is not in the fix-first list; the MX card's details
// state DANE; the same in Chinese.
func TestBrowserDANEOnly(t *testing.T) {
	b := browsertest.Start(t, "en-US")
	ts, _ := newCorpusServer(t)

	b.Do("scan the DANE-only domain",
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("domain")),
		chromedp.SendKeys(chromedp.ID("domain"), "fabrikam.example.com\r"),
		chromedp.WaitVisible(chromedp.ID("check-mta-sts")),
	)
	card := browsertest.Eval[[]string](b, `(() => { const c = document.getElementById("check-mta-sts");
		return [c.className, c.querySelector(".status-tag").textContent, c.querySelector(".card-summary").textContent,
			getComputedStyle(c).borderLeftColor, getComputedStyle(document.getElementById("check-dmarc")).borderLeftColor] })()`)
	assert.Contains(t, card[0], "st-pass", "the MTA-STS card passes")
	assert.NotContains(t, card[0], "st-fail")
	assert.Equal(t, "Pass", card[1])
	assert.Contains(t, card[2], "every mail server has usable DANE", "the card says DANE")
	assert.Contains(t, card[2], "MTA-STS would add the senders that do not validate DNSSEC")
	assert.Equal(t, card[4], card[3], "drawn like the other passing cards (DMARC passes too)")
	fix := browsertest.Eval[[]string](b, `[...document.querySelectorAll("#fix-first-list a")].map(a => a.getAttribute("href"))`)
	assert.NotContains(t, fix, "#check-mta-sts", "nothing to fix first for MTA-STS")
	mx := browsertest.Eval[string](b, `document.querySelector("#check-mx details").textContent`)
	assert.Contains(t, mx, "DANE: 1 of 1 mail servers publish DNSSEC-validated TLSA records")
	b.Screenshot("desktop-dane-only.png")
	b.CheckAccessibility("DANE-only results")

	b.Do("in Chinese", chromedp.Click(chromedp.ID("lang-toggle")))
	zh := browsertest.Eval[string](b, `document.querySelector("#check-mta-sts .card-summary").textContent`)
	assert.Contains(t, zh, "所有收件服务器都有可用的 DANE")
	b.NoProblems("DANE-only")
}
