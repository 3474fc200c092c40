package httpapi

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeveloperExamplesUseServingOrigin: the examples of /developers/api/
// and /developers/cli/ name the origin the page was served from: the
// request's Host, a trusted proxy's X-Forwarded-Host and -Proto, or
// PublicURL; a Host that is not a plain host name leaves the examples on
// the default, and an untrusted peer's forwarded headers are ignored.
func TestDeveloperExamplesUseServingOrigin(t *testing.T) {
	t.Parallel()
	get := func(opts Options, path, host, peer string, hdr map[string]string) (string, http.Header) {
		h := New(&FakeService{}, opts)
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.Host = host
		r.RemoteAddr = peer
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		require.Equal(t, http.StatusOK, w.Code)
		b, err := io.ReadAll(w.Result().Body)
		require.NoError(t, err)
		return string(b), w.Result().Header
	}
	for _, path := range []string{"/developers/api/", "/developers/cli/"} {
		body, hdr := get(Options{}, path, "mailauth.example.net:8443", "192.0.2.1:5000", nil)
		has(t, body, "http://mailauth.example.net:8443", "%s", path)
		hasNot(t, body, docBaseURL, "%s", path)
		plain, plainHdr := get(Options{}, path, "127.0.0.1:8080", "192.0.2.1:5000", nil)
		assert.NotEqual(t, plainHdr.Get("ETag"), hdr.Get("ETag"), "%s: two origins, one entity tag", path)
		has(t, plain, docBaseURL, "%s", path)

		body, _ = get(Options{}, path, `evil"><script>`, "192.0.2.1:5000", nil)
		hasNot(t, body, "<script>", "%s", path)
		has(t, body, docBaseURL, "%s: a Host that is not a host name", path)

		fwd := map[string]string{"X-Forwarded-Host": "mailauth.example.org", "X-Forwarded-Proto": "https"}
		body, _ = get(Options{}, path, "10.0.0.5:8080", "192.0.2.1:5000", fwd)
		has(t, body, "http://10.0.0.5:8080", "%s: an untrusted peer's forwarded headers are ignored", path)
		trusted := Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("192.0.2.1/32")}}
		body, _ = get(trusted, path, "10.0.0.5:8080", "192.0.2.1:5000", fwd)
		has(t, body, "https://mailauth.example.org", "%s: a trusted proxy's forwarded headers", path)

		body, _ = get(Options{PublicURL: "https://public.example.com/"}, path, "10.0.0.5:8080", "192.0.2.1:5000", fwd)
		has(t, body, "https://public.example.com", "%s: PublicURL wins", path)
		hasNot(t, body, "10.0.0.5", "%s", path)
	}
	assert.Error(t, CheckPublicURL("ftp://x.example"))
	assert.Error(t, CheckPublicURL("https://x.example/path"))
	assert.NoError(t, CheckPublicURL("https://x.example:8443"))
}

// has and hasNot are Contains and NotContains without the page in the
// failure message.
func has(t *testing.T, body, want, format string, args ...any) {
	t.Helper()
	assert.True(t, strings.Contains(body, want), "want %q in the page: %s", want, fmt.Sprintf(format, args...))
}

func hasNot(t *testing.T, body, unwanted, format string, args ...any) {
	t.Helper()
	assert.False(t, strings.Contains(body, unwanted), "%q in the page: %s", unwanted, fmt.Sprintf(format, args...))
}

// FuzzRequestOrigin: whatever the Host, X-Forwarded-* and Accept headers
// hold, the origin put into a page has no character that could leave an
// HTML text or attribute, and wantsHTML does not panic.
func FuzzRequestOrigin(f *testing.F) {
	for _, s := range [][3]string{
		{"mailauth.example.net:8443", "https", "text/html"},
		{`evil"><script>`, "javascript", "text/html;q=0"},
		{"[::1]:8080", "http", "*/*"},
		{"", "", ""},
	} {
		f.Add(s[0], s[1], s[2])
	}
	h := &handler{proxies: []netip.Prefix{netip.MustParsePrefix("192.0.2.1/32")}}
	f.Fuzz(func(t *testing.T, host, proto, accept string) {
		r := httptest.NewRequest(http.MethodGet, "/developers/api/", nil)
		r.RemoteAddr = "192.0.2.1:5000"
		r.Host = host
		r.Header.Set("X-Forwarded-Host", host)
		r.Header.Set("X-Forwarded-Proto", proto)
		r.Header.Set("Accept", accept)
		_ = wantsHTML(r)
		o := h.requestOrigin(r)
		if strings.ContainsAny(o, "<>\"'& \t\n") {
			t.Fatalf("origin %q from host %q", o, host)
		}
		if o != docBaseURL && !strings.HasPrefix(o, "http://") && !strings.HasPrefix(o, "https://") {
			t.Fatalf("origin %q", o)
		}
	})
}
