package httpapi

import (
	"cmp"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// notFoundHTML is the 404 a browser gets: a page in both languages with
// the way back, instead of the API's JSON. It names nothing of the
// request.
const notFoundHTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Page not found — mailauth</title>
<link rel="icon" href="/static/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/app.css">
</head>
<body>
<main id="main">
<h1>Page not found <span lang="zh-CN">（页面不存在）</span></h1>
<p>There is no page at this address. Check it for a typing mistake, or start again from one of these pages.</p>
<p lang="zh-CN">这个地址没有页面。请检查地址是否输错，或从下列页面重新开始。</p>
<ul>
<li><a href="/">Check a domain <span lang="zh-CN">（检查域名）</span></a></li>
<li><a href="/help/">Help <span lang="zh-CN">（帮助）</span></a></li>
<li><a href="/developers/api/">API documentation <span lang="zh-CN">（API 文档）</span></a></li>
<li><a href="/developers/cli/">Command-line client <span lang="zh-CN">（命令行客户端）</span></a></li>
</ul>
</main>
</body>
</html>
`

// notFound answers a path that does not exist: an HTML page to a browser
// (a GET or HEAD outside /api/ whose Accept lists text/html), the API's
// JSON 404 to anything else.
func notFound(w http.ResponseWriter, r *http.Request) {
	if !wantsHTML(r) {
		writeError(w, r, errNotFound)
		return
	}
	noteError(r, errNotFound.class)
	h := w.Header()
	setPageHeaders(h)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(notFoundHTML)))
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusNotFound)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(notFoundHTML))
	}
}

// wantsHTML reports a browser's request for a page: GET or HEAD, a path
// outside /api/, and text/html among the accepted media types (not with
// q=0).
func wantsHTML(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead || strings.HasPrefix(r.URL.Path, "/api/") {
		return false
	}
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || mt != "text/html" {
			continue
		}
		q, err := strconv.ParseFloat(cmp.Or(strings.TrimSpace(params["q"]), "1"), 64)
		return err == nil && q > 0
	}
	return false
}
