package httpapi

import (
	"bytes"
	"net/http"
	"path"
	"strings"
)

// route is one operation of the service. The OpenAPI document lists
// exactly these (a test checks both directions).
type route struct {
	method      string // GET routes answer HEAD too
	path        string
	operationID string
	handler     http.Handler
}

// routeTable lists the operations of the service.
func (h *handler) routeTable() []route {
	return []route{
		{http.MethodPost, "/api/scan", "scanMailDomain", h.diagnostic(scanFields, h.scan)},
		{http.MethodPost, "/api/ptr-check", "checkSendingIpReverseDns", h.diagnostic(ptrFields, h.ptrCheck)},
		{http.MethodGet, "/api/health", "getServiceHealth", http.HandlerFunc(h.health)},
		{http.MethodGet, "/openapi.json", "getOpenApiDocument", http.HandlerFunc(serveOpenAPI)},
	}
}

// routes builds the mux: one method pattern per operation and per page
// (pages and assets are not API operations: they come from sitePages, not
// routeTable) plus a method-less fallback per path, so that a wrong method
// gets a JSON 405 with Allow, and a 404 for every other path (an HTML page
// for a browser, JSON for anything else: notFound).
func (h *handler) routes() http.HandlerFunc {
	mux := http.NewServeMux()
	for _, rt := range h.routeTable() {
		mux.Handle(rt.method+" "+rt.path, rt.handler)
		mux.Handle(rt.path, methodNotAllowed(allowHeader(rt.method)))
	}
	for _, p := range sitePages() {
		rt, pattern := p.route(), routePattern(p.path)
		if strings.HasPrefix(p.contentType, "text/html") && bytes.Contains(p.body, []byte(docBaseURL)) {
			rt.handler = h.originPage(p)
		}
		mux.Handle(rt.method+" "+pattern, rt.handler)
		mux.Handle(pattern, methodNotAllowed(allowHeader(rt.method)))
		if bare := strings.TrimSuffix(p.path, "/"); bare != p.path && bare != "" {
			mux.Handle(rt.method+" "+bare, redirectTo(p.path))
			mux.Handle(bare, methodNotAllowed(allowHeader(rt.method)))
		}
	}
	mux.HandleFunc("/", notFound)
	return targetGuard(mux.ServeHTTP)
}

// allowHeader is the Allow value of a route: GET routes answer HEAD too.
func allowHeader(method string) string {
	if method == http.MethodGet {
		return "GET, HEAD"
	}
	return method
}

// methodNotAllowed answers 405 with the route's Allow header. OPTIONS lands
// here too: there is no CORS preflight support.
func methodNotAllowed(allow string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeError(w, r, errMethod)
	})
}

// targetGuard answers what ServeMux would answer in plain text or HTML:
// the request target "*" (OPTIONS * in practice, when the server does not
// answer it itself) gets a JSON 405 instead of a bare 400, and a path that
// is not clean ("/api/../api/scan", "//api/scan", CONNECT's empty path)
// gets a JSON 404 instead of a redirect that echoes the path.
func targetGuard(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.RequestURI == "*":
			w.Header().Set("Allow", "")
			writeError(w, r, errMethod)
		case !isCleanPath(r.URL.Path):
			writeError(w, r, errNotFound)
		default:
			next(w, r)
		}
	}
}

// isCleanPath reports whether p is a path ServeMux would not rewrite: not
// empty, and unchanged by path.Clean apart from one trailing slash (the
// developer pages end in one).
func isCleanPath(p string) bool {
	if p == "" {
		return false
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c == p
}

// knownPaths are the API paths the access log may name (pagePaths adds
// the pages); any other path is logged as "other" because it could carry
// a domain or an address.
var knownPaths = map[string]bool{
	"/api/scan": true, "/api/ptr-check": true, "/api/health": true, "/openapi.json": true,
}

// knownMethods are the methods the access log may name; any other token
// is logged as "OTHER".
var knownMethods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true, http.MethodConnect: true,
	http.MethodOptions: true, http.MethodTrace: true,
}

// logRoute is the path as the access log may show it.
func logRoute(path string) string {
	if knownPaths[path] || pagePaths()[path] {
		return path
	}
	return "other"
}

// logMethod is the method as the access log may show it.
func logMethod(m string) string {
	if knownMethods[m] {
		return m
	}
	return "OTHER"
}
