package httpapi

import (
	"bufio"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNewServerOptionsStar: the server `mailauth serve` runs hands
// OPTIONS * to the handler, which answers the JSON 405, instead of
// net/http's own empty 200.
func TestNewServerOptionsStar(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ln := LimitListener(raw, ListenerOptions{})
	srv := NewServer(New(&FakeService{}, Options{}), ln, log.New(io.Discard, "", 0))
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	c, err := net.Dial("tcp", raw.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = io.WriteString(c, "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode, "OPTIONS *: %q %s", resp.Header.Get("Content-Type"), body)
	assert.Contains(t, resp.Header.Get("Content-Type"), "application/json", "OPTIONS *: %d %s", resp.StatusCode, body)
	assert.Contains(t, string(body), `"error"`, "OPTIONS *: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	assert.Equal(t, ServerWriteTimeout, srv.WriteTimeout, "server settings")
	assert.Equal(t, ServerMaxHeaderBytes, srv.MaxHeaderBytes, "server settings")
}

// TestNewServerWithholdsErrorDetails: without an error log of its own,
// the server does not print net/http's messages, which name client
// addresses.
func TestNewServerWithholdsErrorDetails(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer raw.Close()
	srv := NewServer(New(&FakeService{}, Options{}), LimitListener(raw, ListenerOptions{}), nil)
	require.NotNil(t, srv.ErrorLog, "nil ErrorLog: net/http would print its messages whole")
	require.IsType(t, withheldLog{}, srv.ErrorLog.Writer(), "ErrorLog writes to %T", srv.ErrorLog.Writer())
	var b strings.Builder
	log.New(withheldLog{&b}, "", 0).Printf("http: TLS handshake error from 203.0.113.9:41000: EOF")
	out := b.String()
	assert.NotContains(t, out, "203.0.113", "logged %q", out)
	assert.Contains(t, out, "withheld", "logged %q", out)
}
