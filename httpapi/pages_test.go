package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/mailauth/mailauth"
	"golang.org/x/net/html"
)

// getPage fetches path from ts without the JSON checks of ts.Do.
func getPage(t *testing.T, ts *TestServer, method, path string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) < 6 {
		t.Fatalf("only %d pages", len(ps))
	}
	for _, p := range ps {
		resp, body := getPage(t, ts, http.MethodGet, p.path)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != p.contentType || len(body) == 0 {
			t.Errorf("GET %s: %d %s %d bytes", p.path, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		}
		if resp.Header.Get("Content-Security-Policy") != pageSecurityPolicy || resp.Header.Get("X-Frame-Options") != "DENY" ||
			resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("GET %s: security headers %v", p.path, resp.Header)
		}
		if resp, body := getPage(t, ts, http.MethodHead, p.path); resp.StatusCode != 200 || len(body) != 0 {
			t.Errorf("HEAD %s: %d, %d bytes", p.path, resp.StatusCode, len(body))
		}
		resp, body = getPage(t, ts, http.MethodPost, p.path)
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" || !strings.Contains(string(body), `"error"`) {
			t.Errorf("POST %s: %d %q %s", p.path, resp.StatusCode, resp.Header.Get("Allow"), body)
		}
		if logRoute(p.path) != p.path {
			t.Errorf("access log does not name %s", p.path)
		}
	}
	resp, body := getPage(t, ts, http.MethodGet, "/developers/api?domain=secret.example")
	if resp.StatusCode != http.StatusPermanentRedirect || resp.Header.Get("Location") != "/developers/api/" || len(body) != 0 {
		t.Errorf("bare developer path: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if logRoute("/static/other.js") != "other" {
		t.Error("an unknown asset path is logged")
	}
}

// TestPagesStrictCSP: the HTML loads only same-origin files, and has no
// inline script, no inline style and no event-handler attributes, so the
// Content-Security-Policy blocks nothing the pages need.
func TestPagesStrictCSP(t *testing.T) {
	t.Parallel()
	ps, err := pages()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if !strings.HasPrefix(p.contentType, "text/html") {
			continue
		}
		doc, err := html.Parse(strings.NewReader(string(p.body)))
		if err != nil {
			t.Fatal(err)
		}
		walk(doc, func(n *html.Node) {
			switch n.Data {
			case "style":
				t.Errorf("%s: inline <style>", p.path)
			case "script":
				if attr(n, "src") == "" {
					t.Errorf("%s: inline <script>", p.path)
				}
			}
			for _, a := range n.Attr {
				switch {
				case a.Key == "style" || strings.HasPrefix(a.Key, "on"):
					t.Errorf("%s: <%s %s=...>", p.path, n.Data, a.Key)
				case (a.Key == "src" || a.Key == "href") && !strings.HasPrefix(a.Val, "/") && !strings.HasPrefix(a.Val, "#"):
					t.Errorf("%s: <%s %s=%q> is not same-origin", p.path, n.Data, a.Key, a.Val)
				}
			}
		})
	}
	js := string(mustAsset(t, ps, "/static/app.js"))
	for _, bad := range []string{"innerHTML", "eval(", "new Function", "document.write", ".style.", "XMLHttpRequest"} {
		if strings.Contains(js, bad) {
			t.Errorf("app.js uses %q", bad)
		}
	}
}

func mustAsset(t *testing.T, ps []page, path string) []byte {
	t.Helper()
	for _, p := range ps {
		if p.path == path {
			return p.body
		}
	}
	t.Fatalf("no page %s", path)
	return nil
}

// TestDeveloperPagesLinks: every internal link of every page points to a
// page that answers 200, and its fragment to an id on that page.
func TestDeveloperPagesLinks(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{})
	ps, err := pages()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]map[string]bool{}
	docs := map[string]*html.Node{}
	for _, p := range ps {
		if strings.HasPrefix(p.contentType, "text/html") {
			doc, err := html.Parse(strings.NewReader(string(p.body)))
			if err != nil {
				t.Fatal(err)
			}
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
			if err != nil || u.Host != "" {
				t.Errorf("%s: link %q", from, href)
				return
			}
			target := u.Path
			if target == "" {
				target = from
			}
			resp, _ := getPage(t, ts, http.MethodGet, target)
			if resp.StatusCode != 200 {
				t.Errorf("%s: link %q answers %d", from, href, resp.StatusCode)
			}
			if u.Fragment != "" && !ids[target][u.Fragment] {
				t.Errorf("%s: link %q: no id %q on %s", from, href, u.Fragment, target)
			}
		})
	}
	if links < 40 {
		t.Errorf("only %d links checked", links)
	}
}

// TestDeveloperScoreTable: the weights and grade floors printed on
// /developers/api/ are the code's, and applying the printed rule to the
// statuses of real scans gives the score and grade those scans report.
func TestDeveloperScoreTable(t *testing.T) {
	t.Parallel()
	ts, _ := NewLabServer(t, Options{})
	_, body := getPage(t, ts, http.MethodGet, "/developers/api/")
	doc, err := html.Parse(strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
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
	if len(weights) != len(mailauth.CheckOrder()) || len(floors) != len(mailauth.GradeFloors()) {
		t.Fatalf("page tables: weights %v floors %v", weights, floors)
	}
	for _, w := range mailauth.ScoreWeights() {
		if weights[string(w.Check)] != w.Weight {
			t.Errorf("%s: page says %d, code %d", w.Check, weights[string(w.Check)], w.Weight)
		}
	}
	for _, f := range mailauth.GradeFloors() {
		if floors[string(f.Grade)] != f.MinScore {
			t.Errorf("grade %s: page says %d, code %d", f.Grade, floors[string(f.Grade)], f.MinScore)
		}
	}
	for _, domain := range []string{"good.example.com", "bare.example.com", "weak.example.com", "parked.example.com", "nxdomain.example.com"} {
		var sum struct {
			Score  int
			Grade  mailauth.Grade
			Checks []labCheck
		}
		if err := json.Unmarshal(ts.PostJSON(t, "/api/scan", scanBody(domain)).Body, &sum); err != nil {
			t.Fatal(err)
		}
		score := documentedScore(weights, sum.Checks)
		grade := ""
		for _, g := range gradeOrder {
			if score >= floors[g] {
				grade = g
				break
			}
		}
		if score != sum.Score || grade != string(sum.Grade) {
			t.Errorf("%s: the page's rule gives %d %s, the scan says %d %s", domain, score, grade, sum.Score, sum.Grade)
		}
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
	if r.StatusCode != 400 || !strings.Contains(html.UnescapeString(string(page)), want) {
		t.Errorf("the page does not show the answer %d %s", r.StatusCode, want)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(strings.NewReader(string(mustAsset(t, ps, "/developers/api/"))))
	if err != nil {
		t.Fatal(err)
	}
	onPage := map[string]bool{}
	walk(doc, func(n *html.Node) {
		if n.Data == "tr" {
			onPage[strings.Join(cells(n), "|")] = true
		}
	})
	for _, r := range mailauth.StatusRules() {
		row := string(r.Status) + "|" + string(r.Severity) + "|" + r.Text.EN + r.Text.ZH
		if !onPage[row] {
			t.Errorf("rule not on the page: %s", row)
		}
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
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(schema, b); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	schemas, err := docSchemas(openAPIDocument)
	if err != nil {
		t.Fatal(err)
	}
	all, _ := s.Lookup("/components/schemas")
	if len(schemas) != len(all.(map[string]any)) {
		t.Errorf("the page lists %d schemas, the document has %d", len(schemas), len(all.(map[string]any)))
	}
	for _, sc := range schemas {
		props, _ := s.Lookup("/components/schemas/" + sc.Name + "/properties")
		if len(sc.Fields) != len(props.(map[string]any)) {
			t.Errorf("%s: %d fields listed, %d in the document", sc.Name, len(sc.Fields), len(props.(map[string]any)))
		}
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
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return n
}
