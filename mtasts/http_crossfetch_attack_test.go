package mtasts

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawFetch runs getPolicy against a TLS server over a pipe that answers
// the request with raw, the server's bytes as they are.
func rawFetch(t *testing.T, ca *testCA, cert *tls.Certificate, raw string) fetchResult {
	t.Helper()
	client, server := net.Pipe()
	go func() {
		defer server.Close()
		ts := tls.Server(server, &tls.Config{Certificates: []tls.Certificate{*cert}})
		if _, err := http.ReadRequest(bufio.NewReader(ts)); err != nil {
			return
		}
		_, _ = ts.Write([]byte(raw))
		_ = ts.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a bound on a hang
	defer cancel()
	return getPolicy(ctx, client, "mta-sts.pool.test", "https://mta-sts.pool.test/.well-known/mta-sts.txt",
		Options{RootCAs: ca.pool})
}

// TestNoCrossFetchLeak: hostile servers whose responses end
// in every error path (truncated headers, bad chunk lines, over-long
// chunk-size lines, bodies cut short, bodies past the wire bound) run
// concurrently with good fetches, each with a body of its own; every good
// fetch reads exactly its own body, and every hostile one fails without
// a body.
func TestNoCrossFetchLeak(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t, "pool CA")
	now := time.Now()
	cert := ca.leaf(t, []string{"mta-sts.pool.test"}, now.Add(-time.Hour), now.Add(time.Hour))
	hostile := []string{
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Len",
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nsecret\r\n",
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n" + strings.Repeat("0", 5000) + "5\r\nLEAKY\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 500\r\n\r\nversion: STSv1\nmode: enforce\nmx: LEAK.example\n",
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Pad: " + strings.Repeat("L", 1<<20) + "\r\n\r\nversion: STSv1\n",
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n" + strings.Repeat("8000\r\n"+strings.Repeat("L", 0x8000)+"\r\n", 40) + "0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nLEAK",
	}
	var wg sync.WaitGroup
	for round := range 6 {
		for i, raw := range hostile {
			wg.Go(func() {
				res := rawFetch(t, ca, cert, raw)
				if res.state == Fetched || strings.Contains(res.body, "LEAK") {
					t.Errorf("hostile %d: %+v", i, res)
				}
			})
		}
		for i := range 6 {
			wg.Go(func() {
				want := fmt.Sprintf("version: STSv1\nmode: testing\nmx: good-%d-%d.example\nmax_age: 86400\n", round, i)
				raw := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s", len(want), want)
				if i%2 == 1 {
					raw = fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(want), want)
				}
				res := rawFetch(t, ca, cert, raw)
				if res.state != Fetched || res.body != want {
					t.Errorf("good %d/%d: %+v", round, i, res)
				}
			})
		}
	}
	wg.Wait()
}
