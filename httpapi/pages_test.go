package httpapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/mailauth/mailauth"
)

// getPage fetches path from ts without the JSON checks of ts.Do.
func getPage(t *testing.T, ts *TestServer, method, path string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, nil)
	require.NoError(t, err)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}

// TestPagesServed: every page and asset answers GET and HEAD with its
// type and the security headers, a wrong method is a JSON 405, a page
// without its trailing slash redirects to the fixed path, and the access
// log names the page paths.
func TestPagesServed(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{})
	ps, err := pages()
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(ps), 6, "only %d pages", len(ps))
	for _, p := range ps {
		resp, body := getPage(t, ts, http.MethodGet, p.path)
		assert.Equal(t, 200, resp.StatusCode, "GET %s", p.path)
		assert.Equal(t, p.contentType, resp.Header.Get("Content-Type"), "GET %s", p.path)
		assert.NotEmpty(t, body, "GET %s", p.path)
		assert.Equal(t, pageSecurityPolicy, resp.Header.Get("Content-Security-Policy"), "GET %s: security headers %v", p.path, resp.Header)
		assert.Equal(t, "DENY", resp.Header.Get("X-Frame-Options"), "GET %s: security headers %v", p.path, resp.Header)
		assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"), "GET %s: security headers %v", p.path, resp.Header)
		assert.Equal(t, "no-referrer", resp.Header.Get("Referrer-Policy"), "GET %s: security headers %v", p.path, resp.Header)
		headResp, headBody := getPage(t, ts, http.MethodHead, p.path)
		assert.Equal(t, 200, headResp.StatusCode, "HEAD %s", p.path)
		assert.Empty(t, headBody, "HEAD %s", p.path)
		resp, body = getPage(t, ts, http.MethodPost, p.path)
		assert.Equal(t, 405, resp.StatusCode, "POST %s: %q %s", p.path, resp.Header.Get("Allow"), body)
		assert.Equal(t, "GET, HEAD", resp.Header.Get("Allow"), "POST %s: %d %s", p.path, resp.StatusCode, body)
		assert.Contains(t, string(body), `"error"`, "POST %s: %d %q", p.path, resp.StatusCode, resp.Header.Get("Allow"))
		assert.Equal(t, p.path, logRoute(p.path), "access log does not name %s", p.path)
	}
	resp, body := getPage(t, ts, http.MethodGet, "/developers/api?domain=secret.example")
	assert.Equal(t, http.StatusPermanentRedirect, resp.StatusCode, "bare developer path: %q", resp.Header.Get("Location"))
	assert.Equal(t, "/developers/api/", resp.Header.Get("Location"), "bare developer path: %d", resp.StatusCode)
	assert.Empty(t, body, "bare developer path: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	assert.Equal(t, "other", logRoute("/static/other.js"), "an unknown asset path is logged")
}

// TestPagesStrictCSP: the HTML loads only same-origin files, and has no
// inline script, no inline style and no event-handler attributes, so the
// Content-Security-Policy blocks nothing the pages need.
func TestPagesStrictCSP(t *testing.T) {
	t.Parallel()
	ps, err := pages()
	require.NoError(t, err)
	for _, p := range ps {
		if !strings.HasPrefix(p.contentType, "text/html") {
			continue
		}
		doc, err := html.Parse(strings.NewReader(string(p.body)))
		require.NoError(t, err)
		walk(doc, func(n *html.Node) {
			switch n.Data {
			case "style":
				assert.Failf(t, "inline <style>", "%s: inline <style>", p.path)
			case "script":
				assert.NotEmpty(t, attr(n, "src"), "%s: inline <script>", p.path)
			}
			for _, a := range n.Attr {
				switch {
				case a.Key == "style" || strings.HasPrefix(a.Key, "on"):
					assert.Failf(t, "style or event-handler attribute", "%s: <%s %s=...>", p.path, n.Data, a.Key)
				case (a.Key == "src" || a.Key == "href") && !strings.HasPrefix(a.Val, "/") && !strings.HasPrefix(a.Val, "#"):
					assert.Failf(t, "not same-origin", "%s: <%s %s=%q> is not same-origin", p.path, n.Data, a.Key, a.Val)
				}
			}
		})
	}
	js := string(mustAsset(t, ps, "/static/app.js"))
	for _, bad := range []string{"innerHTML", "eval(", "new Function", "document.write", ".style.", "XMLHttpRequest"} {
		assert.NotContains(t, js, bad, "app.js uses %q", bad)
	}
}

func mustAsset(t *testing.T, ps []page, path string) []byte {
	t.Helper()
	for _, p := range ps {
		if p.path == path {
			return p.body
		}
	}
	require.Failf(t, "no page", "no page %s", path)
	return nil
}

// TestDeveloperPagesLinks: every internal link of every page points to a
// page that answers 200, and its fragment to an id on that page.
func TestDeveloperPagesLinks(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{})
	ps, err := pages()
	require.NoError(t, err)
	ids := map[string]map[string]bool{}
	docs := map[string]*html.Node{}
	for _, p := range ps {
		if strings.HasPrefix(p.contentType, "text/html") {
			doc, err := html.Parse(strings.NewReader(string(p.body)))
			require.NoError(t, err)
			docs[p.path], ids[p.path] = doc, map[string]bool{}
			walk(doc, func(n *html.Node) {
				if id := attr(n, "id"); id != "" {
					ids[p.path][id] = true
				}
			})
		}
	}
	links := 0
	for from, doc := range docs {
		walk(doc, func(n *html.Node) {
			href := attr(n, "href")
			if n.Data != "a" || href == "" {
				return
			}
			links++
			u, err := url.Parse(href)
			if !assert.NoError(t, err, "%s: link %q", from, href) || !assert.Empty(t, u.Host, "%s: link %q", from, href) {
				return
			}
			target := u.Path
			if target == "" {
				target = from
			}
			resp, _ := getPage(t, ts, http.MethodGet, target)
			assert.Equal(t, 200, resp.StatusCode, "%s: link %q answers", from, href)
			if u.Fragment != "" {
				assert.True(t, ids[target][u.Fragment], "%s: link %q: no id %q on %s", from, href, u.Fragment, target)
			}
		})
	}
	assert.GreaterOrEqual(t, links, 40, "only %d links checked", links)
}

// TestDeveloperScoreTable: the weights and grade floors printed on
// /developers/api/ are the code's, and applying the printed rule to the
// statuses of real scans gives the score and grade those scans report.
func TestDeveloperScoreTable(t *testing.T) {
	t.Parallel()
	ts, _ := NewLabServer(t, Options{})
	_, body := getPage(t, ts, http.MethodGet, "/developers/api/")
	doc, err := html.Parse(strings.NewReader(string(body)))
	require.NoError(t, err)
	weights := map[string]int{}
	for _, row := range tableRows(doc, "score-weights") {
		weights[strings.Trim(row[1], "`")] = atoi(t, row[2])
	}
	floors := map[string]int{}
	var gradeOrder []string
	for _, row := range tableRows(doc, "grades") {
		floors[row[0]] = atoi(t, row[1])
		gradeOrder = append(gradeOrder, row[0])
	}
	require.Len(t, weights, len(mailauth.CheckOrder()), "page tables: weights %v floors %v", weights, floors)
	require.Len(t, floors, len(mailauth.GradeFloors()), "page tables: weights %v floors %v", weights, floors)
	for _, w := range mailauth.ScoreWeights() {
		assert.Equal(t, w.Weight, weights[string(w.Check)], "%s: page (actual) and code (expected)", w.Check)
	}
	for _, f := range mailauth.GradeFloors() {
		assert.Equal(t, f.MinScore, floors[string(f.Grade)], "grade %s: page (actual) and code (expected)", f.Grade)
	}
	for _, domain := range []string{"good.example.com", "bare.example.com", "weak.example.com", "parked.example.com", "nxdomain.example.com"} {
		var sum struct {
			Score  int
			Grade  mailauth.Grade
			Checks []labCheck
		}
		require.NoError(t, json.Unmarshal(ts.PostJSON(t, "/api/scan", scanBody(domain)).Body, &sum))
		score := documentedScore(weights, sum.Checks)
		grade := ""
		for _, g := range gradeOrder {
			if score >= floors[g] {
				grade = g
				break
			}
		}
		assert.Equal(t, sum.Score, score, "%s: the page's rule gives %d %s, the scan says %d %s", domain, score, grade, sum.Score, sum.Grade)
		assert.Equal(t, string(sum.Grade), grade, "%s: the page's rule gives %d %s, the scan says %d %s", domain, score, grade, sum.Score, sum.Grade)
	}
}

// documentedScore is the rule as /developers/api/ states it.
func documentedScore(weights map[string]int, checks []labCheck) int {
	points, total := 0.0, 0.0
	for _, c := range checks {
		w := float64(weights[string(c.ID)])
		switch c.Status {
		case mailauth.StatusPass:
			points, total = points+w, total+w
		case mailauth.StatusWarn:
			points, total = points+w/2, total+w
		case mailauth.StatusFail:
			total += w
		}
	}
	if total == 0 {
		return 0
	}
	pct := 100 * points / total
	return int(pct + 0.5) // half up; pct >= 0
}

// TestDeveloperErrorExample: the 400 example on the API page is what the
// service answers.
func TestDeveloperErrorExample(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{})
	r := ts.PostJSON(t, "/api/scan", `{"domain": "10.0.0.1"}`)
	_, page := getPage(t, ts, http.MethodGet, "/developers/api/")
	want := strings.TrimSpace(string(r.Body))
	assert.Equal(t, 400, r.StatusCode, "the page does not show the answer %s", want)
	assert.Contains(t, html.UnescapeString(string(page)), want, "the page does not show the answer %d %s", r.StatusCode, want)
}

// labCheck is the part of a CheckSummary the score needs.
type labCheck struct {
	ID     mailauth.CheckID
	Status mailauth.Status
}

// TestDeveloperStatusRules: every verdict of the judgement tables is on
// the page with its status and severity.
func TestDeveloperStatusRules(t *testing.T) {
	t.Parallel()
	ps, err := pages()
	require.NoError(t, err)
	doc, err := html.Parse(strings.NewReader(string(mustAsset(t, ps, "/developers/api/"))))
	require.NoError(t, err)
	onPage := map[string]bool{}
	walk(doc, func(n *html.Node) {
		if n.Data == "tr" {
			onPage[strings.Join(cells(n), "|")] = true
		}
	})
	for _, r := range mailauth.StatusRules() {
		row := r.ID + "|" + string(r.Status) + "|" + string(r.Severity) + "|" + r.Text.EN + r.Text.ZH
		assert.True(t, onPage[row], "rule not on the page: %s", row)
	}
}

// TestDeveloperSamples: the sample responses on the API page are valid
// against the OpenAPI document, and every field of the document is listed.
func TestDeveloperSamples(t *testing.T) {
	t.Parallel()
	s := LoadSpec(t)
	for name, schema := range map[string]string{
		"web/developers/sample-scan.json":      "/components/schemas/ScanSummary",
		"web/developers/sample-ptr-check.json": "/components/schemas/PtrCheckSummary",
		"web/developers/sample-health.json":    "/components/schemas/Health",
	} {
		b, err := webFiles.ReadFile(name)
		require.NoError(t, err)
		assert.NoError(t, s.Validate(schema, b), "%s", name)
	}
	schemas, err := docSchemas(openAPIDocument)
	require.NoError(t, err)
	all, _ := s.Lookup("/components/schemas")
	assert.Len(t, schemas, len(all.(map[string]any)), "the page lists %d schemas, the document has %d", len(schemas), len(all.(map[string]any)))
	for _, sc := range schemas {
		raw, _ := s.Lookup("/components/schemas/" + sc.Name + "/properties")
		props, _ := raw.(map[string]any) // none: a union, listed by its variants
		assert.Len(t, sc.Fields, len(props), "%s: %d fields listed, %d in the document", sc.Name, len(sc.Fields), len(props))
		oneOf, _ := s.Lookup("/components/schemas/" + sc.Name + "/oneOf")
		assert.Len(t, sc.Variants, len(asList(oneOf)), "%s: %d variants listed, %d in the document", sc.Name, len(sc.Variants), len(asList(oneOf)))
	}
}

// walk calls f on n and every node below it.
func walk(n *html.Node, f func(*html.Node)) {
	if n.Type == html.ElementNode {
		f(n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// text is the text content of n.
func text(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return strings.TrimSpace(b.String())
}

// cells are the texts of a row's th and td cells.
func cells(tr *html.Node) []string {
	var out []string
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.Data == "td" || c.Data == "th") {
			out = append(out, text(c))
		}
	}
	return out
}

// tableRows are the body rows of the table with id.
func tableRows(doc *html.Node, id string) [][]string {
	var out [][]string
	walk(doc, func(n *html.Node) {
		if n.Data != "table" || attr(n, "id") != id {
			return
		}
		walk(n, func(r *html.Node) {
			if r.Data == "tr" && r.Parent != nil && r.Parent.Data == "tbody" {
				out = append(out, cells(r))
			}
		})
	})
	return out
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	require.NoError(t, err, "%q", s)
	return n
}

// TestDeveloperScoreExample: the worked example under the score table
// (three passes, a warn, two fails, two info checks) adds up with the
// code's weights, grade floors and the score rule the page states.
func TestDeveloperScoreExample(t *testing.T) {
	t.Parallel()
	ps, err := pages()
	require.NoError(t, err)
	page := html.UnescapeString(string(mustAsset(t, ps, "/developers/api/")))
	w := map[string]int{}
	for _, sw := range mailauth.ScoreWeights() {
		w[string(sw.Check)] = sw.Weight
	}
	checks := []labCheck{
		{mailauth.CheckMX, mailauth.StatusPass}, {mailauth.CheckSPF, mailauth.StatusPass},
		{mailauth.CheckDMARC, mailauth.StatusPass}, {mailauth.CheckDKIM, mailauth.StatusInfo},
		{mailauth.CheckMTASTS, mailauth.StatusWarn}, {mailauth.CheckTLSRPT, mailauth.StatusFail},
		{mailauth.CheckPTR, mailauth.StatusInfo}, {mailauth.CheckCAA, mailauth.StatusFail},
	}
	score := documentedScore(w, checks)
	grade := ""
	for _, f := range mailauth.GradeFloors() {
		if score >= f.MinScore {
			grade = string(f.Grade)
			break
		}
	}
	warn := float64(w["mta-sts"]) / 2
	points := float64(w["mx"]+w["spf"]+w["dmarc"]) + warn
	total := w["mx"] + w["spf"] + w["dmarc"] + w["mta-sts"] + w["tls-rpt"] + w["caa"]
	en := fmt.Sprintf("Example: MX, SPF and DMARC pass (%d + %d + %d), MTA-STS warns (%d / 2 = %g), TLS-RPT and CAA fail, DKIM and PTR are info (no selector, no IP). Points %g of a total %d + %d + %d + %d + %d + %d = %d: score %d, grade %s.",
		w["mx"], w["spf"], w["dmarc"], w["mta-sts"], warn, points, w["mx"], w["spf"], w["dmarc"], w["mta-sts"], w["tls-rpt"], w["caa"], total, score, grade)
	zh := fmt.Sprintf("例：MX、SPF 和 DMARC 通过（%d + %d + %d），MTA-STS 为 warn（%d / 2 = %g），TLS-RPT 和 CAA 未通过，DKIM 和 PTR 为 info（没有选择器和 IP）。所得 %g 分，总分 %d + %d + %d + %d + %d + %d = %d：得分 %d，等级 %s。",
		w["mx"], w["spf"], w["dmarc"], w["mta-sts"], warn, points, w["mx"], w["spf"], w["dmarc"], w["mta-sts"], w["tls-rpt"], w["caa"], total, score, grade)
	assert.Contains(t, page, en, "the English example on /developers/api/ does not add up with the code's weights")
	assert.Contains(t, page, zh, "the Chinese example on /developers/api/ does not add up with the code's weights")
}
