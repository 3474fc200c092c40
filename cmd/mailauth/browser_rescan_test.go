package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/browsertest"
	"github.com/mailauth/mailauth/internal/syncbuf"
	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestBrowserRescanLab: "did my fix work?" against `mailauth serve` and
// the loopback lab. The DMARC record of good.example.com is missing (its
// name answers NXDOMAIN), the page shows DMARC failing; the record is
// "fixed" (the fault removed) and a rescan lists DMARC as fixed above
// the fix-first list. The service runs without the shared DNS cache, so
// the rescan sees the fix at once.
func TestBrowserRescanLab(t *testing.T) {
	b := browsertest.Start(t, "en-US")
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
		done <- runServe(ctx, []string{"-listen", "127.0.0.1:0", "-dns", lab.DNS.Addr(), "-dns-cache-mb", "0",
			"-https-port", strconv.Itoa(lab.HTTPSPort), "-ca-file", ca, "-allow-loopback-targets", "-storage", "none"},
			mapEnv(nil), stdio{out: &errOut, err: &errOut}, serveHooks{ready: func(a string) { addrc <- a }})
	}()
	t.Cleanup(func() {
		cancel()
		assert.Equal(t, exitOK, <-done, "serve exit: %s", errOut.String())
	})
	var base string
	select {
	case a := <-addrc:
		base = "http://" + a
	case code := <-done:
		done <- code
		require.Failf(t, "serve exited", "serve exited %d: %s", code, errOut.String())
	}

	lab.DNS.SetFault("_dmarc.good.example.com", resolver.TypeTXT, dnstest.Fault{Rcode: dns.RcodeNameError})
	b.Do("scan with the DMARC record missing",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.ID("domain")),
		chromedp.SendKeys(chromedp.ID("domain"), "good.example.com\r"),
		chromedp.WaitVisible(chromedp.ID("check-caa")),
	)
	require.Equal(t, "fail", browsertest.Eval[string](b, `document.getElementById("check-dmarc").dataset.status || document.querySelector("#check-dmarc .status-tag").textContent.toLowerCase()`),
		"DMARC fails while its record is missing")

	lab.DNS.SetFault("_dmarc.good.example.com", resolver.TypeTXT, dnstest.Fault{}) // the fix
	browsertest.Eval[chromedp.Void](b, `document.getElementById("cards").textContent = ""`)
	b.Do("rescan after the fix",
		chromedp.Click(chromedp.CSS("#scan-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.ID("check-caa")),
	)
	assert.Contains(t, browsertest.Eval[[]string](b, `[...document.querySelectorAll("#changes-list li[data-change=fixed]")].map(li => li.dataset.check)`), "dmarc",
		"the rescan lists DMARC as fixed")
	b.CheckAccessibility("rescan after a fix, lab")
	b.Screenshot("desktop-rescan-lab.png")
	b.NoProblems("rescan lab")
}
