package httpapi

import (
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"sync"
)

// The web page, its assets and the developer pages, embedded: `mailauth
// serve` needs no files and no build step. The page is a same-origin
// client of the API; nothing is loaded from anywhere else.
//
//go:embed web/index.html web/static web/developers
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
}

// pages builds every page and asset. The developer pages are rendered
// once here from the code's tables and the OpenAPI document; an error is
// a bug in the embedded templates (a test renders them).
func pages() ([]page, error) {
	out := []page{}
	index, err := webFiles.ReadFile("web/index.html")
	if err != nil {
		return nil, err
	}
	out = append(out, page{"/", "text/html; charset=utf-8", index})
	assets, err := staticAssets()
	if err != nil {
		return nil, err
	}
	out = append(out, assets...)
	docs, err := developerPages()
	if err != nil {
		return nil, err
	}
	return append(out, docs...), nil
}

// assetTypes are the content types of the static assets by extension.
var assetTypes = map[string]string{
	".js":  "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
	".svg": "image/svg+xml",
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
		out = append(out, page{"/static/" + e.Name(), ct, b})
	}
	return out, nil
}

// mustPages is pages for New: the embedded files are fixed at build time,
// so an error can only be a broken build (TestPagesRender catches it).
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

// servePage answers with the page's bytes and the security headers.
func servePage(p page) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		setPageHeaders(h)
		h.Set("Content-Type", p.contentType)
		h.Set("Content-Length", strconv.Itoa(len(p.body)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(p.body)
	})
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
