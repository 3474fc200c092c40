package mtasts

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"time"

	"github.com/mailauth/mailauth/internal/gostack"
)

// maxWireBytes bounds everything read from the connection: status line,
// headers and the (possibly chunked) body. The body itself is capped at
// MaxPolicySize; this bound keeps a hostile server from feeding endless
// headers.
const maxWireBytes = 1 << 20

// fetchCurves are the key exchanges the policy fetch offers: the classic
// elliptic curves every HTTPS server supports.
var fetchCurves = []tls.CurveID{tls.X25519, tls.CurveP256}

// fetchProtos is the one application protocol the policy fetch offers
// (ALPN). Like fetchCurves it is shared by every fetch's tls.Config,
// which only reads it.
var fetchProtos = []string{"http/1.1"}

// userAgent identifies the fetch to policy servers.
const userAgent = "mailauth-mtasts/1 (+RFC 8461 policy check)"

// getPolicy runs TLS and one HTTP/1.1 GET over conn, which is already
// connected to a vetted address, and closes conn. Redirects are never
// followed: there is no second request.
func getPolicy(ctx context.Context, conn net.Conn, host, url string, opts Options) fetchResult {
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	cfg := &tls.Config{
		ServerName: host,
		RootCAs:    opts.RootCAs,
		MinVersion: tls.VersionTLS12,
		NextProtos: fetchProtos,
		// A policy is public: a key exchange that resists a future
		// quantum computer (X25519MLKEM768, Go's default first choice)
		// would protect nothing here and costs a third of the handshake.
		CurvePreferences: fetchCurves,
	}
	if opts.Sessions != nil {
		cfg.ClientSessionCache = opts.Sessions
	}
	tc := tls.Client(conn, cfg)
	if err := handshake(ctx, tc); err != nil {
		return failure(ctx, err, CodePolicyTLSFailed)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return failure(ctx, err, CodePolicyHTTPFailed)
	}
	req.Close = true
	req.Header.Set("User-Agent", userAgent)
	// Request.Write wraps a writer that is not buffered in a bufio.Writer
	// of 4 KiB; the request's few hundred bytes need far less. Given a
	// bufio.Writer it does not flush it.
	bw := bufio.NewWriterSize(tc, requestBufSize)
	if err := req.Write(bw); err != nil {
		return failure(ctx, err, CodePolicyHTTPFailed)
	}
	if err := bw.Flush(); err != nil {
		return failure(ctx, err, CodePolicyHTTPFailed)
	}
	resp, err := http.ReadResponse(bufio.NewReader(io.LimitReader(tc, maxWireBytes)), req)
	if err != nil {
		return failure(ctx, err, CodePolicyHTTPFailed)
	}
	defer resp.Body.Close()
	return readPolicy(ctx, resp, opts)
}

// handshake runs tc's handshake apart from the caller's goroutine
// (gostack.Apart: a panic in it is raised again here) and returns its
// error. The handshake (the server's certificate verified, the key
// exchange) goes about 11 KB deep: on the goroutine of the check, which
// reserves 8 KiB for its lookups, it would double that stack to 16 KiB
// for as long as the check then runs (the request, the MX facts it
// waits for).
func handshake(ctx context.Context, tc *tls.Conn) error {
	var err error
	gostack.Apart(func() { err = tc.HandshakeContext(ctx) })
	return err
}

// requestBufSize is the buffer the policy request is written through: a
// GET with a Host of at most 253 bytes, the User-Agent and Connection
// headers fits in one buffer, so in one TLS record; a longer request
// would still be written whole, in two.
const requestBufSize = 512

// readPolicy applies the status, size and media-type rules of RFC 8461
// §3.2 and §3.3 to a response and reads the body.
func readPolicy(ctx context.Context, resp *http.Response, opts Options) fetchResult {
	res := fetchResult{state: Unreachable, status: resp.StatusCode}
	opts.observe(resp.Header.Get("Location"))
	if code := statusCode(resp.StatusCode); code != "" {
		res.add(code)
		return res
	}
	if resp.ContentLength > MaxPolicySize {
		res.add(CodePolicyTooLarge)
		return res
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxPolicySize+1))
	if err != nil {
		f := failure(ctx, err, CodePolicyHTTPFailed)
		f.status = resp.StatusCode
		return f
	}
	if len(body) > MaxPolicySize {
		res.add(CodePolicyTooLarge)
		return res
	}
	if !isTextPlain(resp.Header.Get("Content-Type")) {
		res.add(CodePolicyMediaType)
	}
	res.state, res.body = Fetched, string(body)
	opts.observe(res.body)
	return res
}

// statusCode returns the finding for a status other than 200, or "".
func statusCode(status int) Code {
	switch {
	case status == http.StatusOK:
		return ""
	case status >= 300 && status < 400:
		return CodePolicyRedirect
	case status >= 400 && status < 500:
		return CodePolicyStatusClientError
	case status >= 500 && status < 600:
		return CodePolicyStatusServerError
	default:
		return CodePolicyStatusUnexpected
	}
}

// isTextPlain reports whether a Content-Type header names text/plain;
// parameters are ignored (RFC 8461 §3.2).
func isTextPlain(h string) bool {
	mt, _, err := mime.ParseMediaType(h)
	return err == nil && mt == "text/plain"
}

// failure classifies an error of the TLS or HTTP phase: a timeout is
// inconclusive; certificate problems and everything else make the policy
// unreachable, reported with def unless a more precise code applies.
func failure(ctx context.Context, err error, def Code) fetchResult {
	if isTimeout(ctx, err) {
		return fetchResult{state: Inconclusive, codes: []Code{CodePolicyFetchTimeout}}
	}
	return fetchResult{state: Unreachable, codes: []Code{certCode(err, def)}}
}

// certCode names a certificate verification failure (RFC 8461 §3.3).
func certCode(err error, def Code) Code {
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	var unknown x509.UnknownAuthorityError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &hostErr):
		return CodePolicyCertNameMismatch
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return CodePolicyCertExpired
	case errors.As(err, &unknown):
		return CodePolicyCertUntrusted
	case errors.As(err, &invalid), errors.As(err, &verify):
		return CodePolicyCertInvalid
	}
	return def
}
