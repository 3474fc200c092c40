package httpapi

import (
	"bufio"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestNewServerOptionsStar: the server `mailauth serve` runs hands
// OPTIONS * to the handler, which answers the JSON 405, instead of
// net/http's own empty 200.
func TestNewServerOptionsStar(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := LimitListener(raw, ListenerOptions{})
	srv := NewServer(New(&FakeService{}, Options{}), ln, log.New(io.Discard, "", 0))
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	c, err := net.Dial("tcp", raw.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(resp.Header.Get("Content-Type"), "application/json") || !strings.Contains(string(body), `"error"`) {
		t.Errorf("OPTIONS *: %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if srv.WriteTimeout != ServerWriteTimeout || srv.MaxHeaderBytes != ServerMaxHeaderBytes {
		t.Errorf("server settings %v %d", srv.WriteTimeout, srv.MaxHeaderBytes)
	}
}

// TestNewServerWithholdsErrorDetails: without an error log of its own,
// the server does not print net/http's messages, which name client
// addresses.
func TestNewServerWithholdsErrorDetails(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	srv := NewServer(New(&FakeService{}, Options{}), LimitListener(raw, ListenerOptions{}), nil)
	if srv.ErrorLog == nil {
		t.Fatal("nil ErrorLog: net/http would print its messages whole")
	}
	if _, ok := srv.ErrorLog.Writer().(withheldLog); !ok {
		t.Fatalf("ErrorLog writes to %T", srv.ErrorLog.Writer())
	}
	var b strings.Builder
	log.New(withheldLog{&b}, "", 0).Printf("http: TLS handshake error from 203.0.113.9:41000: EOF")
	if out := b.String(); strings.Contains(out, "203.0.113") || !strings.Contains(out, "withheld") {
		t.Errorf("logged %q", out)
	}
}
