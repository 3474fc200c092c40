package httpapi

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"image/png"
	"maps"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/mailauth/mailauth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// han matches a Chinese character.
var han = regexp.MustCompile(`\p{Han}`)

// TestHelpCoversRules: every verdict of the judgement tables has a fix in
// both languages, no fix is left over from a verdict that is gone, and a
// verdict without a fix is reported (the pages still build, with a
// placeholder).
func TestHelpCoversRules(t *testing.T) {
	t.Parallel()
	rules := map[string]bool{}
	for _, r := range mailauth.StatusRules() {
		rules[r.ID] = true
		fix, ok := findingFixes[r.ID]
		if assert.True(t, ok, "no fix for the %s verdict %s (%q)", r.Check, r.ID, r.Text.EN) {
			assert.Regexp(t, han, fix.ZH, "%s: the Chinese fix", r.ID)
			assert.NotEmpty(t, fix.EN, "%s: the English fix", r.ID)
			assert.NotRegexp(t, han, fix.EN, "%s: the English fix", r.ID)
		}
	}
	for id := range findingFixes {
		assert.True(t, rules[id], "a fix for a finding id that no table has: %q", id)
	}
	for _, id := range mailauth.CheckOrder() {
		h, ok := checkHelps[id]
		if assert.True(t, ok, "no help text for %s", id) {
			for _, txt := range []mailauth.LocalizedText{h.Looks, h.Good} {
				assert.Regexp(t, han, txt.ZH, "%s", id)
				assert.NotEmpty(t, txt.EN, "%s", id)
			}
			assert.NotEmpty(t, h.Example, "%s", id)
		}
	}
	fewer := maps.Clone(findingFixes)
	for id := range fewer {
		delete(fewer, id)
		break
	}
	_, missing, err := helpPagesFrom(findingFixes)
	require.NoError(t, err)
	assert.Empty(t, missing, "verdicts without a fix")
	_, missing, err = helpPagesFrom(fewer)
	require.NoError(t, err, "a verdict without a fix still renders")
	assert.Len(t, missing, 1, "the verdict without a fix is reported")
}

// TestHelpPagesListTheirRules: each check's help page lists exactly the
// verdicts of that check's judgement table, with their fixes, in both
// languages, and /developers/api/ and /help/ link to every help page.
func TestHelpPagesListTheirRules(t *testing.T) {
	t.Parallel()
	ps, err := pages()
	require.NoError(t, err)
	want := map[mailauth.CheckID][]string{}
	for _, r := range mailauth.StatusRules() {
		if r.Check != "" {
			want[r.Check] = append(want[r.Check], r.Text.EN+"|"+r.Text.ZH)
		}
	}
	api := string(mustAsset(t, ps, "/developers/api/"))
	index := string(mustAsset(t, ps, "/help/"))
	for _, id := range mailauth.CheckOrder() {
		path := helpPath(id)
		assert.Contains(t, api, `href="`+path+`"`, "/developers/api/ links to %s", path)
		assert.Contains(t, index, `href="`+path+`"`, "/help/ links to %s", path)
		doc, err := html.Parse(bytes.NewReader(mustAsset(t, ps, path)))
		require.NoError(t, err)
		var got []string
		fixes := 0
		walk(doc, func(n *html.Node) {
			switch attr(n, "class") {
			case "finding-text":
				got = append(got, langText(n, "en")+"|"+langText(n, "zh"))
			case "finding-fix":
				if langText(n, "en") != "" && langText(n, "zh") != "" {
					fixes++
				}
			}
		})
		shared := len(mailauth.StatusRules()) - countRules()
		assert.Equal(t, want[id], got[:len(got)-shared], "%s: the verdicts listed", path)
		assert.Equal(t, len(got), fixes, "%s: every verdict has a fix in both languages", path)
		title := mailauth.CheckTitle(id)
		assert.Contains(t, string(mustAsset(t, ps, path)), title.ZH, "%s", path)
	}
}

// countRules counts the verdicts that belong to one check.
func countRules() int {
	n := 0
	for _, r := range mailauth.StatusRules() {
		if r.Check != "" {
			n++
		}
	}
	return n
}

// langText is the text of n's descendants of class c ("en" or "zh").
func langText(n *html.Node, c string) string {
	var b strings.Builder
	walk(n, func(m *html.Node) {
		if attr(m, "class") == c {
			b.WriteString(text(m))
		}
	})
	return b.String()
}

// TestPagesCaching: pages and assets carry an ETag that a conditional
// request matches with 304, HTML is revalidated (no-cache) while the
// static assets may be kept, and text is sent gzip-compressed to a client
// that accepts it, decompressing to the same bytes.
func TestPagesCaching(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{})
	ps, err := pages()
	require.NoError(t, err)
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, p := range ps {
		req, err := http.NewRequest(http.MethodGet, ts.URL+p.path, nil)
		require.NoError(t, err)
		req.Header.Set("Accept-Encoding", "gzip, deflate, br")
		resp, err := client.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		etag := resp.Header.Get("ETag")
		assert.Regexp(t, `^"[0-9a-f]{24}"$`, etag, p.path)
		if strings.HasPrefix(p.path, "/static/") || p.path == "/favicon.ico" {
			assert.Equal(t, "public, max-age=3600", resp.Header.Get("Cache-Control"), p.path)
		} else {
			assert.Equal(t, "no-cache", resp.Header.Get("Cache-Control"), p.path)
		}
		if compressible(p.contentType) && len(p.body) > 1024 {
			assert.Equal(t, "gzip", resp.Header.Get("Content-Encoding"), p.path)
			assert.Equal(t, "Accept-Encoding", resp.Header.Get("Vary"), p.path)
		}
		req.Header.Set("If-None-Match", etag)
		resp, err = client.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusNotModified, resp.StatusCode, p.path)
	}
	// The default client asks for gzip and decompresses: the same bytes.
	resp, body := getPage(t, ts, http.MethodGet, "/static/app.js")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, string(mustAsset(t, ps, "/static/app.js")), string(body))
	for header, want := range map[string]bool{"gzip": true, "gzip;q=0": false, "identity": false, "*;q=0.5": true, "br, GZIP ; q=0.8": true, "gzip;q=0.0": false} {
		assert.Equal(t, want, acceptsGzip(header), header)
	}
}

// TestRobotsAndFavicon: /robots.txt keeps crawlers off the API, and
// /favicon.ico is an ICO file holding one 32×32 PNG.
func TestRobotsAndFavicon(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{})
	resp, body := getPage(t, ts, http.MethodGet, "/robots.txt")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), "Disallow: /api/")
	resp, body = getPage(t, ts, http.MethodGet, "/favicon.ico")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "image/x-icon", resp.Header.Get("Content-Type"))
	require.Greater(t, len(body), 22)
	assert.Equal(t, []byte{0, 0, 1, 0, 1, 0}, body[:6], "ICONDIR of one icon")
	offset := binary.LittleEndian.Uint32(body[18:22])
	img, err := png.Decode(bytes.NewReader(body[offset:]))
	require.NoError(t, err)
	assert.Equal(t, 32, img.Bounds().Dx())
}

// TestIndexEmbedsUndetermined: the web page carries the summaries of
// checks that could not be determined, each one a decoded result reads
// back as undetermined (mailauth.RestoreDetermination), and the hook
// takes its list from the source it is given.
func TestIndexEmbedsUndetermined(t *testing.T) {
	t.Parallel()
	texts := undeterminedSummaries()
	require.NotEmpty(t, texts)
	for _, txt := range texts {
		checks := []mailauth.CheckSummary{{Summary: txt}}
		mailauth.RestoreDetermination(checks)
		assert.True(t, checks[0].Undetermined(), txt.EN)
	}
	ps, err := pages()
	require.NoError(t, err)
	doc, err := html.Parse(bytes.NewReader(mustAsset(t, ps, "/")))
	require.NoError(t, err)
	var embedded []string
	walk(doc, func(n *html.Node) {
		if attr(n, "id") == "results" {
			require.NoError(t, json.Unmarshal([]byte(attr(n, "data-undetermined")), &embedded))
		}
	})
	assert.Contains(t, embedded, "Could not be determined: a DNS lookup gave no conclusive answer.")
	assert.Len(t, embedded, len(texts))
	p, err := indexPage(func() []mailauth.LocalizedText { return []mailauth.LocalizedText{{ZH: "甲", EN: `a "quoted" <text>`}} })
	require.NoError(t, err)
	assert.Contains(t, string(p.body), `data-undetermined="[&#34;a \&#34;quoted\&#34; \u003ctext\u003e&#34;]"`)
}

// TestIndexEmbedsNXDomain: the web page carries the MX check's summary
// for a domain that does not exist, taken from the library's rule, and
// app.js reads it from there instead of spelling the sentence itself.
func TestIndexEmbedsNXDomain(t *testing.T) {
	t.Parallel()
	want := mailauth.NXDomainSummary().EN
	require.NotEmpty(t, want)
	ps, err := pages()
	require.NoError(t, err)
	doc, err := html.Parse(bytes.NewReader(mustAsset(t, ps, "/")))
	require.NoError(t, err)
	embedded := ""
	walk(doc, func(n *html.Node) {
		if attr(n, "id") == "results" {
			embedded = attr(n, "data-nxdomain")
		}
	})
	assert.Equal(t, want, embedded)
	js := string(mustAsset(t, ps, "/static/app.js"))
	assert.Contains(t, js, `getAttribute("data-nxdomain")`)
	assert.NotContains(t, js, want, "app.js spells the sentence itself")
}

// TestCardsLinkToHelp: every check id the page may show has a help page
// at the path app.js links to.
func TestCardsLinkToHelp(t *testing.T) {
	t.Parallel()
	ps, err := pages()
	require.NoError(t, err)
	assert.Contains(t, string(mustAsset(t, ps, "/static/app.js")), `"/help/" + encodeURIComponent(c.id) + "/"`)
	for _, id := range mailauth.CheckOrder() {
		assert.NotEmpty(t, mustAsset(t, ps, "/help/"+string(id)+"/"))
	}
}

// TestPagesDescribeThemselves: every HTML page has a meta description, and
// the web page says in a <noscript> that it needs JavaScript and where the
// API and the command line are documented.
func TestPagesDescribeThemselves(t *testing.T) {
	t.Parallel()
	ps, err := pages()
	require.NoError(t, err)
	for _, p := range ps {
		if !strings.HasPrefix(p.contentType, "text/html") {
			continue
		}
		doc, err := html.Parse(bytes.NewReader(p.body))
		require.NoError(t, err)
		description := ""
		walk(doc, func(n *html.Node) {
			if n.Data == "meta" && attr(n, "name") == "description" {
				description = attr(n, "content")
			}
		})
		assert.Greater(t, len(description), 40, "%s: meta description %q", p.path, description)
	}
	index := string(mustAsset(t, ps, "/"))
	start, end := strings.Index(index, "<noscript>"), strings.Index(index, "</noscript>")
	require.True(t, start >= 0 && end > start, "the web page has a <noscript>")
	noscript := index[start:end]
	for _, want := range []string{"needs JavaScript", `href="/developers/api/"`, `href="/developers/cli/"`, "JavaScript 才能"} {
		assert.Contains(t, noscript, want)
	}
}

// TestHelpPagesSeparateFaults: a fault of the domain's own DNS is a
// scored fail, so its verdicts stand under their own heading, never
// under "could not be determined" (greyed, left out of the score).
func TestHelpPagesSeparateFaults(t *testing.T) {
	t.Parallel()
	ps, err := pages()
	require.NoError(t, err)
	var faults, undetermined []string
	for _, r := range mailauth.StatusRules() {
		switch {
		case r.Check != "":
		case r.Status == mailauth.StatusFail:
			faults = append(faults, html.EscapeString(r.Text.EN))
		default:
			undetermined = append(undetermined, html.EscapeString(r.Text.EN))
		}
	}
	require.NotEmpty(t, faults, "the domain-side DNS faults are rules")
	require.NotEmpty(t, undetermined, "the undetermined verdicts are rules")
	for _, id := range mailauth.CheckOrder() {
		page := string(mustAsset(t, ps, helpPath(id)))
		start, mid := strings.Index(page, `id="dns-faults"`), strings.Index(page, `id="undetermined"`)
		require.True(t, start > 0 && mid > start, "%s: both sections, faults first", id)
		for _, f := range faults {
			assert.Contains(t, page[start:mid], f, "%s: a DNS fault under its own heading", id)
			assert.NotContains(t, page[mid:], f, "%s: a DNS fault is no undetermined verdict", id)
		}
		for _, u := range undetermined {
			assert.Contains(t, page[mid:], u, "%s: an undetermined verdict under its heading", id)
		}
	}
}
