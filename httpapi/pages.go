package httpapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/mailauth/mailauth"
)

// The web page, its assets and the developer pages, embedded: `mailauth
// serve` needs no files and no build step. The page is a same-origin
// client of the API; nothing is loaded from anywhere else.
//
//go:embed web/index.html web/static web/developers web/help web/robots.txt
var webFiles embed.FS

// pageSecurityPolicy is the Content-Security-Policy of every page and
// asset: only this origin's files (no inline script or style, nothing
// third-party), no plugins, no <base>, forms post only here, and no
// framing.
const pageSecurityPolicy = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'"

// page is one embedded document served at a fixed path.
type page struct {
	path        string
	contentType string
	body        []byte
	// gz is body compressed with gzip, nil when that does not make it
	// smaller; etag is the entity tag of body; cache is its
	// Cache-Control. sealed sets them.
	gz    []byte
	etag  string
	cache string
}

// htmlPage is an HTML page at path.
func htmlPage(path string, body []byte) page {
	return page{path: path, contentType: "text/html; charset=utf-8", body: body}
}

// pages builds every page and asset. The index, the developer pages and
// the help pages are rendered once here from the code's tables and the
// OpenAPI document; an error is a bug in the embedded templates (a test
// renders them).
func pages() ([]page, error) {
	index, err := indexPage(undeterminedSummaries)
	if err != nil {
		return nil, err
	}
	out := []page{index}
	assets, err := staticAssets()
	if err != nil {
		return nil, err
	}
	out = append(out, assets...)
	docs, err := developerPages()
	if err != nil {
		return nil, err
	}
	out = append(out, docs...)
	robots, err := webFiles.ReadFile("web/robots.txt")
	if err != nil {
		return nil, err
	}
	out = append(out, page{path: "/robots.txt", contentType: "text/plain; charset=utf-8", body: robots})
	icon, err := faviconICO()
	if err != nil {
		return nil, err
	}
	out = append(out, page{path: "/favicon.ico", contentType: "image/x-icon", body: icon})
	for i := range out {
		if err := out[i].seal(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// faultsJSON is the page's data-faults: for each domain-side DNS fault
// ("no_answer", "dnssec", "alias"), the English summaries of a check that
// failed for it, by which the page groups checks that share one cause.
func faultsJSON() (string, error) {
	out := map[string][]string{}
	for f, texts := range mailauth.FaultSummaries() {
		for _, t := range texts {
			out[f.String()] = append(out[f.String()], t.EN)
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", fmt.Errorf("index.html: fault summaries: %w", err)
	}
	return string(b), nil
}

// indexPage renders the web page with the "could not be determined"
// summaries from src (see undeterminedSummaries).
func indexPage(src func() []mailauth.LocalizedText) (page, error) {
	tmpl, err := template.ParseFS(webFiles, "web/index.html")
	if err != nil {
		return page{}, fmt.Errorf("index.html: %w", err)
	}
	und, err := undeterminedJSON(src)
	if err != nil {
		return page{}, err
	}
	faults, err := faultsJSON()
	if err != nil {
		return page{}, err
	}
	errTexts, err := errorTextsJSON()
	if err != nil {
		return page{}, err
	}
	conf, err := confusablesJSON()
	if err != nil {
		return page{}, err
	}
	findings, err := findingsJSON()
	if err != nil {
		return page{}, err
	}
	var b bytes.Buffer
	data := struct{ Undetermined, NXDomain, Faults, Errors, Confusables, Findings string }{und, mailauth.NXDomainSummary().EN, faults, errTexts, conf, findings}
	if err := tmpl.Execute(&b, data); err != nil {
		return page{}, fmt.Errorf("index.html: %w", err)
	}
	return htmlPage("/", b.Bytes()), nil
}

// seal computes the entity tag, the gzip form and the Cache-Control of
// p. HTML and the robots file are revalidated on every use (no-cache with
// the ETag: a new version shows at once); the static assets may be kept
// for an hour.
func (p *page) seal() error {
	sum := sha256.Sum256(p.body)
	p.etag = `"` + hex.EncodeToString(sum[:12]) + `"`
	p.cache = "no-cache"
	if strings.HasPrefix(p.path, "/static/") || p.path == "/favicon.ico" {
		p.cache = "public, max-age=3600"
	}
	if !compressible(p.contentType) {
		return nil
	}
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(p.body); err != nil {
		return fmt.Errorf("%s: gzip: %w", p.path, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("%s: gzip: %w", p.path, err)
	}
	if b.Len() < len(p.body) {
		p.gz = b.Bytes()
	}
	return nil
}

// compressible reports whether a content type is text worth compressing.
func compressible(ct string) bool {
	return strings.HasPrefix(ct, "text/") || strings.HasPrefix(ct, "image/svg+xml") || strings.HasPrefix(ct, "application/json")
}

// assetTypes are the content types of the static assets by extension.
var assetTypes = map[string]string{
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".json": "application/json",
}

// staticAssets are the files under web/static, served at /static/NAME.
func staticAssets() ([]page, error) {
	entries, err := fs.ReadDir(webFiles, "web/static")
	if err != nil {
		return nil, err
	}
	var out []page
	for _, e := range entries {
		ct, ok := assetTypes[path.Ext(e.Name())]
		if !ok {
			return nil, fmt.Errorf("web/static/%s: no content type for this extension", e.Name())
		}
		b, err := webFiles.ReadFile("web/static/" + e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, page{path: "/static/" + e.Name(), contentType: ct, body: b})
	}
	return out, nil
}

// mustPages is pages for New: the embedded files are fixed at build time,
// so an error can only be a broken build (TestPagesServed catches it).
func mustPages() []page {
	ps, err := pages()
	if err != nil {
		panic("httpapi: embedded pages: " + err.Error())
	}
	return ps
}

// sitePages are the pages and assets, built once.
var sitePages = sync.OnceValue(mustPages)

// pagePaths are the paths of the pages and assets, which the access log
// may name.
var pagePaths = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, p := range sitePages() {
		m[p.path] = true
	}
	return m
})

// route returns the GET route of p. Pages are not operations of the API,
// so they stay out of routeTable (which the OpenAPI document lists).
func (p page) route() route {
	return route{method: http.MethodGet, path: p.path, handler: servePage(p)}
}

// routePattern is the mux pattern of a page path: "/" alone must not
// match every path, so it is "/{$}".
func routePattern(p string) string {
	if p == "/" || p[len(p)-1] == '/' {
		return p + "{$}"
	}
	return p
}

// servePage answers with the page's bytes (gzip-compressed when the
// client accepts it), its entity tag and caching rule, and the security
// headers; a matching If-None-Match gets 304.
func servePage(p page) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		setPageHeaders(h)
		h.Set("Cache-Control", p.cache)
		h.Set("ETag", p.etag)
		if p.gz != nil {
			h.Set("Vary", "Accept-Encoding")
		}
		if etagMatches(r.Header.Get("If-None-Match"), p.etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		body := p.body
		if p.gz != nil && acceptsGzip(r.Header.Get("Accept-Encoding")) {
			body = p.gz
			h.Set("Content-Encoding", "gzip")
		}
		h.Set("Content-Type", p.contentType)
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	})
}

// etagMatches reports whether an If-None-Match value names etag (weak
// comparison, RFC 9110 §13.1.2) or is "*".
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether an Accept-Encoding value accepts gzip: the
// coding (or "*") is listed without q=0.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(part, ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != "gzip" && name != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.ToLower(params), " ", "")
		return !strings.HasPrefix(q, "q=0") || strings.HasPrefix(q, "q=0.") && strings.Trim(q[4:], "0") != ""
	}
	return false
}

// redirectTo answers with a permanent redirect to the fixed path p (a
// developer page asked for without its trailing slash). The Location is
// always p: nothing of the request, not even its query, is echoed.
func redirectTo(p string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Location", p)
		w.WriteHeader(http.StatusPermanentRedirect)
	})
}

// setPageHeaders sets the security headers of the pages and assets.
func setPageHeaders(h http.Header) {
	h.Set("Content-Security-Policy", pageSecurityPolicy)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
}
