package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// The developer pages' examples are rendered once with docBaseURL; each
// request gets them with the origin that served it (see requestOrigin),
// so that an example runs as pasted against the service the reader is
// looking at.

// hostPattern is a Host (or X-Forwarded-Host) value the pages may show:
// a DNS name or an IPv4 address, or an IPv6 literal in brackets, with an
// optional port. Anything else (an attempt to put markup in the page)
// leaves the examples on docBaseURL.
var hostPattern = regexp.MustCompile(`^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?$`)

// CheckPublicURL validates Options.PublicURL: an http or https URL with a
// host, and nothing after it but an optional "/".
func CheckPublicURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("public URL: %w", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("public URL: must start with http:// or https://")
	case !hostPattern.MatchString(u.Host):
		return errors.New("public URL: needs a host name or address, with an optional port")
	case u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "":
		return errors.New("public URL: must be scheme and host only, such as https://mailauth.example.org")
	}
	return nil
}

// requestOrigin is the origin the examples of a page answered to r name:
// publicURL when set; else the scheme and Host of r, where a trusted
// proxy's X-Forwarded-Proto and X-Forwarded-Host override what the
// service itself sees. A value that is not a plain host gives docBaseURL.
func (h *handler) requestOrigin(r *http.Request) string {
	if h.publicURL != "" {
		return strings.TrimSuffix(h.publicURL, "/")
	}
	scheme, host := "http", r.Host
	if r.TLS != nil {
		scheme = "https"
	}
	if len(h.proxies) > 0 && inPrefixes(peerAddr(r), h.proxies) {
		if p := strings.ToLower(strings.TrimSpace(r.Header.Get("X-Forwarded-Proto"))); p == "http" || p == "https" {
			scheme = p
		}
		if fh := strings.TrimSpace(r.Header.Get("X-Forwarded-Host")); fh != "" {
			host = fh
		}
	}
	if !hostPattern.MatchString(host) {
		return docBaseURL
	}
	return scheme + "://" + host
}

// originPage serves p, a page whose examples name docBaseURL, with the
// request's origin in their place. The page of each origin is sealed
// (entity tag, gzip) once and kept, for at most maxOriginPages origins
// per page: the Host header is the client's to choose, so beyond that a
// page is sealed for the one request.
func (h *handler) originPage(p page) http.Handler {
	plain := servePage(p)
	var mu sync.Mutex
	sealed := map[string]http.Handler{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := h.requestOrigin(r)
		if origin == docBaseURL {
			plain.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		serve, ok := sealed[origin]
		mu.Unlock()
		if !ok {
			q := page{path: p.path, contentType: p.contentType, body: bytes.ReplaceAll(p.body, []byte(docBaseURL), []byte(origin))}
			if err := q.seal(); err != nil {
				q.gz = nil // serve it uncompressed; the entity tag is set first
			}
			serve = servePage(q)
			mu.Lock()
			if len(sealed) < maxOriginPages {
				sealed[origin] = serve
			}
			mu.Unlock()
		}
		serve.ServeHTTP(w, r)
	})
}

// maxOriginPages bounds the origins a page is kept for.
const maxOriginPages = 16

// peerAddr is the TCP peer address of r, the zero Addr when it cannot be
// parsed.
func peerAddr(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap().WithZone("")
}
