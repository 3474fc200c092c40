package httpapi

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/browsertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inconclusiveEN is the summary of a check that could not be determined
// because a DNS lookup gave no conclusive answer.
const inconclusiveEN = "Could not be determined: a DNS lookup gave no conclusive answer."

// actionableSummary is a scan with every kind of card: a critical and a
// high fail, a medium warn, two low fails, a low warn, a check that could
// not be determined and one not evaluated.
func actionableSummary(domain string) mailauth.ScanSummary {
	s := SampleScanSummary()
	s.Domain, s.UnicodeDomain = domain, domain
	s.Checks = sampleChecks()
	set := func(id mailauth.CheckID, st mailauth.Status, sev mailauth.Severity) {
		for i := range s.Checks {
			if s.Checks[i].ID == id {
				s.Checks[i].Status, s.Checks[i].Severity = st, sev
			}
		}
	}
	set(mailauth.CheckMX, mailauth.StatusWarn, mailauth.SeverityLow)
	set(mailauth.CheckSPF, mailauth.StatusWarn, mailauth.SeverityMedium)
	set(mailauth.CheckDMARC, mailauth.StatusFail, mailauth.SeverityHigh)
	set(mailauth.CheckDKIM, mailauth.StatusFail, mailauth.SeverityLow)
	set(mailauth.CheckMTASTS, mailauth.StatusWarn, mailauth.SeverityMedium)
	s.Checks[4].Summary = lt("无法确定：DNS 查询未得到明确结果。", inconclusiveEN)
	set(mailauth.CheckTLSRPT, mailauth.StatusFail, mailauth.SeverityLow)
	set(mailauth.CheckPTR, mailauth.StatusInfo, mailauth.SeverityInfo)
	set(mailauth.CheckCAA, mailauth.StatusFail, mailauth.SeverityCritical)
	s.Counts = mailauth.StatusCounts{Pass: 0, Warn: 3, Fail: 4, Info: 1}
	return s
}

// nxSummary is a scan of a name that does not exist: the DMARC walk saw
// NXDOMAIN.
func nxSummary(domain string) mailauth.ScanSummary {
	s := SampleScanSummary()
	s.Domain, s.UnicodeDomain = domain, domain
	s.Checks = sampleChecks()
	for i := range s.Checks {
		s.Checks[i].Status, s.Checks[i].Severity = mailauth.StatusFail, mailauth.SeverityHigh
	}
	s.Checks[2].Diagnostics.(*mailauth.DMARCDiagnostics).DomainExistence = ptr(mailauth.DomainNonexistent)
	return s
}

// nxByMXSummary is nxSummary where only the MX check says the name does
// not exist (its summary is mailauth.NXDomainSummary, which the page gets
// from the server), the DMARC walk being silent on it.
func nxByMXSummary(domain string) mailauth.ScanSummary {
	s := nxSummary(domain)
	s.Checks[2].Diagnostics.(*mailauth.DMARCDiagnostics).DomainExistence = nil
	s.Checks[0].Summary = mailauth.NXDomainSummary()
	return s
}

// oneCauseSummary is a scan whose name servers do not answer: six checks
// fail for that one cause (their summary is the fault's sentence).
func oneCauseSummary(domain string) mailauth.ScanSummary {
	s := SampleScanSummary()
	s.Domain, s.UnicodeDomain = domain, domain
	s.Checks = sampleChecks()
	cause := mailauth.FaultSummaries()[mailauth.DNSFaultNoAnswer][0]
	for i := range s.Checks {
		switch s.Checks[i].ID {
		case mailauth.CheckMX, mailauth.CheckSPF, mailauth.CheckDMARC, mailauth.CheckMTASTS, mailauth.CheckTLSRPT, mailauth.CheckCAA:
			s.Checks[i].Status, s.Checks[i].Severity, s.Checks[i].Summary = mailauth.StatusFail, mailauth.SeverityHigh, cause
		default:
			s.Checks[i].Status, s.Checks[i].Severity = mailauth.StatusInfo, mailauth.SeverityInfo
		}
	}
	s.Counts = mailauth.StatusCounts{Fail: 6, Info: len(s.Checks) - 6}
	return s
}

// reportsNowhereSummary is a scan where every check passes (or is info)
// but DMARC's reports go nowhere: a pass with severity low.
func reportsNowhereSummary(domain string) mailauth.ScanSummary {
	s := SampleScanSummary()
	s.Domain, s.UnicodeDomain = domain, domain
	s.Checks = sampleChecks()
	for i := range s.Checks {
		if s.Checks[i].Status != mailauth.StatusInfo {
			s.Checks[i].Status, s.Checks[i].Severity = mailauth.StatusPass, mailauth.SeverityInfo
		}
		if s.Checks[i].ID == mailauth.CheckDMARC {
			s.Checks[i].Severity = mailauth.SeverityLow
		}
	}
	return s
}

// TestBrowserActionable: the results say what to do first. The fix-first
// list orders the failing and warning checks by severity and links to
// their cards; pass and info cards print no severity; a low fail is not
// drawn in the red of a critical one; a check that could not be
// determined is greyed and the page says how many checks the score
// covers; a card's help link reaches its help page; the name scanned is
// shown when it is not the one typed; a name that does not exist is the
// headline; on a phone the view starts at the grade; an input error
// clears the results and is shown in Chinese with the form's label.
func TestBrowserActionable(t *testing.T) {
	b := browsertest.Start(t, "en-US")
	svc := &FakeService{ScanFunc: func(_ context.Context, req mailauth.ScanRequest) (mailauth.ScanSummary, error) {
		if strings.Contains(req.Domain, "rua-nowhere") {
			return reportsNowhereSummary("rua-nowhere.com"), nil
		}
		if strings.Contains(req.Domain, "lame") {
			return oneCauseSummary("lame-ns.com"), nil
		}
		if strings.Contains(req.Domain, "acme-gw") {
			s := nxSummary("acme-gw.con")
			s.Summary = lt("acme-gw.con 在 DNS 中不存在，请检查拼写是否正确。“.con” 不是顶级域名。",
				"acme-gw.con does not exist in the DNS — check the spelling. \".con\" is not a top-level domain.")
			return s, nil
		}
		if strings.Contains(req.Domain, "alpah-mx") {
			return nxByMXSummary("alpah-mx.com"), nil
		}
		if strings.Contains(req.Domain, "alpah") {
			return nxSummary("alpah-mail.com"), nil
		}
		return actionableSummary("example.com"), nil
	}}
	ts := NewTestServer(t, svc, Options{})

	b.Do("scan a web address",
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("domain")),
		chromedp.SendKeys(chromedp.ID("domain"), "https://www.example.com/\r"),
		chromedp.WaitVisible(chromedp.ID("check-caa")),
	)
	hrefs := browsertest.Eval[[]string](b, `[...document.querySelectorAll("#fix-first-list a")].map(a => a.getAttribute("href"))`)
	assert.Equal(t, []string{"#check-caa", "#check-dmarc", "#check-spf", "#check-dkim", "#check-tls-rpt", "#check-mx"}, hrefs,
		"fix first: critical, high, medium, then the low fails before the low warn; the undetermined check left out")
	for _, h := range hrefs {
		assert.True(t, browsertest.Eval[bool](b, `!!document.querySelector("`+h+`.card")`), "%s names a card", h)
	}
	cards := browsertest.Eval[[]string](b, `[...document.querySelectorAll("#cards > li")].map(c => c.id)`)
	var order []string
	for _, id := range mailauth.CheckOrder() {
		order = append(order, "check-"+string(id))
	}
	assert.Equal(t, order, cards,
		"the cards keep the contract's order")
	assert.Equal(t, "Checked example.com: the www. label is dropped, because mail is set up on the domain itself.",
		browsertest.Eval[string](b, `document.getElementById("scanned-name").textContent`))
	assert.False(t, browsertest.Eval[bool](b, `!!document.querySelector("#check-ptr .sev-tag")`), "an info card prints no severity")
	assert.True(t, browsertest.Eval[bool](b, `!!document.querySelector("#check-dmarc .sev-tag")`), "a fail prints its severity")
	colours := browsertest.Eval[[]string](b, `["check-caa", "check-dkim"].map(id => getComputedStyle(document.getElementById(id)).borderLeftColor)`)
	assert.NotEqual(t, colours[0], colours[1], "a low fail is not drawn in the red of a critical one")
	und := browsertest.Eval[string](b, `(() => { const c = document.getElementById("check-mta-sts");
		return c.classList.contains("undetermined") + "|" + c.querySelector(".status-tag").textContent + "|" + getComputedStyle(c).backgroundColor })()`)
	assert.Equal(t, "true|Not determined|rgb(245, 247, 250)", und, "the undetermined card is greyed")
	n := len(mailauth.CheckOrder()) // the sample: 6 scored, 1 undetermined, the rest info
	assert.Equal(t, fmt.Sprintf("The score covers 6 of %d checks (could not be determined: 1; not evaluated: %d).", n, n-7),
		browsertest.Eval[string](b, `document.querySelector(".covers").textContent`))
	assert.Equal(t, "Details of dmarc title", browsertest.Eval[string](b, `document.querySelector("#check-dmarc summary").textContent`),
		"the Details button names its check")
	browsertest.Eval[chromedp.Void](b, `document.getElementById("results-heading").scrollIntoView()`)
	b.Screenshot("desktop-fix-first.png")
	b.CheckAccessibility("actionable results")

	b.Do("a fix-first link goes to its card", chromedp.Click(chromedp.CSS(`#fix-first-list a[href="#check-dkim"]`)))
	assert.Equal(t, "#check-dkim", browsertest.Eval[string](b, `location.hash`))
	top := browsertest.Eval[[]float64](b, `[document.getElementById("check-dkim").getBoundingClientRect().top, innerHeight, scrollY]`)
	assert.True(t, top[0] > -2 && top[0] < top[1], "the card is in view: its top at %v in a %v px viewport", top[0], top[1])

	b.Do("a card links to its help page",
		chromedp.Click(chromedp.CSS("#check-dmarc .help-link")),
		chromedp.WaitVisible(chromedp.ID("findings")),
	)
	assert.Equal(t, "/help/dmarc/", browsertest.Eval[string](b, `location.pathname`))
	assert.Equal(t, "DMARC policy", browsertest.Eval[string](b, `document.querySelector("h1 .en").textContent`))
	assert.Greater(t, browsertest.Eval[int](b, `document.querySelectorAll("#main .findings li").length`), 10)
	b.CheckAccessibility("/help/dmarc/")
	b.Screenshot("desktop-help-dmarc.png")
	b.Do("the help page in Chinese", chromedp.Click(chromedp.ID("lang-toggle")))
	assert.Equal(t, "zh-CN|DMARC 策略|none", browsertest.Eval[string](b,
		`document.documentElement.lang + "|" + document.querySelector("h1 .zh").textContent + "|" + getComputedStyle(document.querySelector("h1 .en")).display`))
	b.Screenshot("desktop-help-dmarc-zh.png")
	b.CheckAccessibility("/help/dmarc/ in Chinese")
	b.Do("back to English", chromedp.Click(chromedp.ID("lang-toggle")))
	b.NoProblems("fix first and help")

	// alpah-mail.com: the DMARC walk says so; alpah-mx.com: only the MX
	// check's summary (the embedded mailauth.NXDomainSummary) does;
	// acme-gw.con: its last label is not a top-level domain either. Each
	// is one message: no grade, no score, no fix-first list, the cards
	// folded under it and none offering a fix.
	for _, nx := range []struct {
		domain, tld string
	}{{"alpah-mail.com", ""}, {"alpah-mx.com", ""}, {"acme-gw.con", "\".con\" is not a top-level domain."}} {
		b.Do("a name that does not exist: "+nx.domain,
			chromedp.Navigate(ts.URL+"/"),
			chromedp.WaitVisible(chromedp.ID("domain")),
			chromedp.SendKeys(chromedp.ID("domain"), nx.domain+"\r"),
			chromedp.WaitVisible(chromedp.CSS(".nx-box")),
		)
		assert.Equal(t, nx.domain+" does not exist in the DNS — check the spelling",
			browsertest.Eval[string](b, `document.getElementById("results-heading").textContent`))
		assert.Equal(t, "false|false|true|true|false",
			browsertest.Eval[string](b, `[!!document.querySelector("#overview .grade"), !!document.querySelector("#overview .score"),
				document.getElementById("fix-first").hidden, !document.getElementById("cards-fold").hidden,
				document.getElementById("cards-fold").open].join("|")`),
			"%s: no grade, no score, no fix-first list; the cards folded", nx.domain)
		assert.True(t, browsertest.Eval[bool](b, `!!document.querySelector("#cards-fold #check-caa")`), "%s: the cards are in the fold", nx.domain)
		assert.Equal(t, 0, browsertest.Eval[int](b, `[...document.querySelectorAll(".help-link")].filter(a => a.textContent.startsWith("How to fix")).length`),
			"%s: no card offers a fix", nx.domain)
		assert.Equal(t, nx.tld, browsertest.Eval[string](b, `(document.querySelector(".nx-tld") || {textContent: ""}).textContent`), "%s", nx.domain)
		b.CheckAccessibility("a name that does not exist: " + nx.domain)
	}
	b.Screenshot("desktop-nxdomain.png")
	b.NoProblems("nxdomain")

	// lame-ns.com: six checks fail because its name servers do not
	// answer: the headline names that cause, and the fix-first list has
	// one entry for it, linking the help on DNS faults, the six checks
	// listed under it.
	b.Do("one cause",
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("domain")),
		chromedp.SendKeys(chromedp.ID("domain"), "lame-ns.com\r"),
		chromedp.WaitVisible(chromedp.ID("check-caa")),
	)
	assert.Equal(t, "lame-ns.com: the name servers do not answer — one cause fails 6 checks",
		browsertest.Eval[string](b, `document.getElementById("results-heading").textContent`))
	assert.Equal(t, 1, browsertest.Eval[int](b, `document.querySelectorAll("#fix-first-list > li").length`), "one entry for the one cause")
	assert.Equal(t, "/help/mx/#dns-faults", browsertest.Eval[string](b, `document.querySelector("#fix-first-list > li.cause > a").getAttribute("href")`))
	assert.Equal(t, []string{"#check-mx", "#check-spf", "#check-dmarc", "#check-mta-sts", "#check-tls-rpt", "#check-caa"},
		browsertest.Eval[[]string](b, `[...document.querySelectorAll("#fix-first-list .cause-checks a")].map(a => a.getAttribute("href"))`),
		"the affected checks listed under the cause")
	b.CheckAccessibility("one cause")
	b.Screenshot("desktop-one-cause.png")
	b.Do("one cause, in Chinese", chromedp.Click(chromedp.ID("lang-toggle")))
	assert.Equal(t, "lame-ns.com：域名服务器没有应答——同一个原因导致 6 项检查失败",
		browsertest.Eval[string](b, `document.getElementById("results-heading").textContent`))
	b.Do("back to English", chromedp.Click(chromedp.ID("lang-toggle")))
	b.NoProblems("one cause")

	// rua-nowhere.com: everything passes, but DMARC's reports go nowhere
	// (a pass with severity low): it is listed under "Fix first" and its
	// card offers the fix.
	b.Do("a problem under a pass",
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("domain")),
		chromedp.SendKeys(chromedp.ID("domain"), "rua-nowhere.com\r"),
		chromedp.WaitVisible(chromedp.ID("check-caa")),
	)
	assert.Equal(t, []string{"#check-dmarc"},
		browsertest.Eval[[]string](b, `[...document.querySelectorAll("#fix-first-list a")].map(a => a.getAttribute("href"))`),
		"the pass with a low problem is listed, alone")
	assert.True(t, browsertest.Eval[bool](b, `document.querySelector("#check-dmarc .help-link").textContent.startsWith("How to fix")`))
	b.NoProblems("a problem under a pass")

	b.Do("phone: scan",
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("domain")),
	)
	toggle := browsertest.Eval[[]float64](b, `(() => { const t = document.getElementById("lang-toggle").getBoundingClientRect(),
		b = document.querySelector(".brand").getBoundingClientRect(); return [t.height, Math.abs(t.top + t.height / 2 - b.top - b.height / 2)] })()`)
	assert.Less(t, toggle[0], 48.0, "the language toggle is one line")
	assert.Less(t, toggle[1], 8.0, "the language toggle stays on the brand's row")
	b.Do("phone: the results",
		chromedp.SendKeys(chromedp.ID("domain"), "example.com\r"),
		chromedp.WaitVisible(chromedp.ID("check-caa")),
	)
	pos := browsertest.Eval[[]float64](b, `[document.getElementById("results-heading").getBoundingClientRect().top,
		document.querySelector(".grade").getBoundingClientRect().bottom, innerHeight, scrollY]`)
	assert.InDelta(t, 0, pos[0], 2, "the view starts at the results heading")
	assert.Less(t, pos[1], pos[2], "the grade is in view")
	assert.Greater(t, pos[3], 0.0, "the page scrolled to the results")
	assert.Equal(t, "results-heading", browsertest.Eval[string](b, `document.activeElement.id`))
	b.Screenshot("phone-grade.png")
	b.CheckAccessibility("phone results")

	b.Do("phone: Chinese", chromedp.Click(chromedp.ID("lang-toggle")))
	b.Expect("/api/scan", 400)
	browsertest.Eval[chromedp.Void](b, `document.getElementById("domain").value = ""; window.scrollTo(0, 0)`)
	b.Do("an input error",
		chromedp.SendKeys(chromedp.ID("domain"), "10.0.0.1\r"),
		chromedp.WaitVisible(chromedp.ID("domain-error")),
	)
	got := browsertest.Eval[string](b, `document.getElementById("domain-error").textContent + "|" + document.getElementById("results").hidden + "|" +
		document.getElementById("domain").getAttribute("aria-invalid") + "|" + document.activeElement.id`)
	fieldPos := browsertest.Eval[[]float64](b, `(() => { const r = document.getElementById("domain-error").getBoundingClientRect(); return [r.top, r.bottom, innerHeight]; })()`)
	assert.True(t, fieldPos[0] >= 0 && fieldPos[1] <= fieldPos[2], "the input error is out of view on a phone: %v", fieldPos)
	assert.Equal(t, "输入有误，请检查“域名”：不接受 IP 地址，请填写域名|true|true|domain", got,
		"the 400 in Chinese with the form's label, the field marked and focused, the old results gone")
	b.Screenshot("phone-error-zh.png")
	b.CheckAccessibility("phone 400 in Chinese")
	b.NoProblems("phone")
	b.ClearExpected()

	b.Do("a PTR-only result",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("domain")),
		chromedp.Click(chromedp.CSS(`label.mode:has(#mode-ip)`)),
		chromedp.SendKeys(chromedp.ID("ptr-ip"), "8.8.8.8\r"),
		chromedp.WaitVisible(chromedp.ID("check-ptr")),
	)
	widths := browsertest.Eval[[]float64](b, `[document.getElementById("check-ptr").getBoundingClientRect().width, document.getElementById("cards").getBoundingClientRect().width]`)
	require.Len(t, widths, 2)
	assert.InDelta(t, widths[1], widths[0], 1, "a PTR-only card is as wide as the results")
	b.NoProblems("ptr")
}
