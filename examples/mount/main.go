// Command mount serves the mailauth API and web page from your own
// http.ServeMux, next to your own routes and behind your own middleware.
//
//	go run ./examples/mount -listen 127.0.0.1:8080
//
// It prints "listening on http://ADDR/" once it accepts connections and
// stops gracefully on SIGINT or SIGTERM.
package main

import (
	"context"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "address to listen on")
	dns := flag.String("dns", "", "comma-separated recursive resolvers, IP:port; empty means /etc/resolv.conf")
	httpsPort := flag.Int("https-port", 0, "port of the MTA-STS policy fetch (lab use)")
	caFile := flag.String("ca-file", "", "PEM roots trusted by the MTA-STS policy fetch (lab use)")
	loopback := flag.Bool("allow-loopback-targets", false, "let the MTA-STS fetch reach loopback (lab use)")
	flag.Parse()

	cfg := mailauth.Config{HTTPSPort: *httpsPort, AllowLoopbackTargets: *loopback}
	if *dns != "" {
		cfg.DNSServers = strings.Split(*dns, ",")
	}
	if *caFile != "" {
		pem, err := os.ReadFile(*caFile)
		if err != nil {
			fail(err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			fail(errors.New("-ca-file: no certificate"))
		}
	}

	var requests atomic.Int64
	mux := http.NewServeMux()
	// Your own routes: the most specific pattern wins, so they coexist
	// with the mailauth handler mounted at "/".
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello; %d requests so far\n", requests.Load())
	})
	// The API (/api/scan, /api/ptr-check, /api/health, /openapi.json), the
	// page at / and the developer pages, with their own rate limiter.
	// The handler and the listener share one return of memory to the
	// system after a flood.
	mem := &httpapi.MemoryReturner{}
	mux.Handle("/", httpapi.New(mailauth.New(cfg), httpapi.Options{MemoryReturner: mem}))

	// Your own middleware around everything.
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		mux.ServeHTTP(w, r)
	})

	raw, err := net.Listen("tcp", *listen)
	if err != nil {
		fail(err)
	}
	// The connection caps and the server's timeouts and sizes of `mailauth
	// serve`: without them one client can hold thousands of idle
	// connections or send a megabyte of headers, and net/http's error log
	// would print client addresses.
	ln := httpapi.LimitListener(raw, httpapi.ListenerOptions{MemoryReturner: mem})
	srv := httpapi.NewServer(counted, ln, nil)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	fmt.Printf("listening on http://%s/\n", ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		fail(err)
	}
	fmt.Println("stopped")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mount:", err)
	os.Exit(1)
}
