package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/report"
)

// Remote client limits (product choices).
const (
	// remoteTimeout bounds one request to the service, answer included.
	// The service ends a scan after mailauth.DefaultScanTimeout (15 s),
	// having waited at most httpapi.DefaultQueueWait (2 s) for a slot; 60 s
	// leaves ample room for a slow network or a service run with longer
	// limits, and still ends a connection that hangs.
	remoteTimeout = 60 * time.Second
	// maxRemoteBytes bounds the service's answer read into memory. A
	// ScanSummary is a few KiB (a few checks with short texts); 1 MiB is
	// far above any real answer and stops a wrong or hostile server from
	// exhausting memory.
	maxRemoteBytes = 1 << 20
)

// remoteClient sends the -server requests. It never follows a redirect:
// the service answers its endpoints directly, and following one would
// send the request (domain, selector, IP) to a host the user did not
// name. A 3xx answer is therefore a *serverError (exit 3).
var remoteClient = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// serverError is a non-200 answer of the service.
type serverError struct {
	status     int
	msg        string // the service's fixed error message
	retryAfter string // Retry-After of a 429
}

func (e *serverError) Error() string {
	s := fmt.Sprintf("service answered %d: %s", e.status, e.msg)
	if e.retryAfter == "" {
		return s
	}
	// The service's 429 messages end by pointing at Retry-After: say the
	// number there instead of saying "retry" twice.
	const pointer = "retry after the number of seconds in Retry-After"
	if strings.HasSuffix(s, pointer) {
		return strings.TrimSuffix(s, pointer) + "retry after " + e.retryAfter + " s"
	}
	return s + " (retry after " + e.retryAfter + " s)"
}

// checkServerURL accepts an http or https base URL with a host and no
// query or fragment.
func checkServerURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return errors.New("not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("must be an http:// or https:// URL")
	case u.Host == "":
		return errors.New("has no host")
	case u.User != nil:
		return errors.New("must not carry credentials")
	case u.RawQuery != "" || u.Fragment != "":
		return errors.New("must not carry a query or fragment")
	}
	return nil
}

// remoteScan asks the service at base to scan req.
func remoteScan(ctx context.Context, base string, req mailauth.ScanRequest) (mailauth.ScanSummary, []byte, error) {
	body := map[string]string{"domain": req.Domain}
	if req.DKIMSelector != "" {
		body["dkimSelector"] = req.DKIMSelector
	}
	if req.SendingIP != "" {
		body["sendingIp"] = req.SendingIP
	}
	raw, err := post(ctx, base, "/api/scan", body)
	if err != nil {
		return mailauth.ScanSummary{}, nil, err
	}
	sum, err := decodeScanSummary(raw)
	return sum, escapeJSONControls(raw), err
}

// remotePtr asks the service at base to check ip.
func remotePtr(ctx context.Context, base, ip string) (mailauth.PTRCheckSummary, []byte, error) {
	raw, err := post(ctx, base, "/api/ptr-check", map[string]string{"sendingIp": ip})
	if err != nil {
		return mailauth.PTRCheckSummary{}, nil, err
	}
	sum, err := decodePtrCheckSummary(raw)
	return sum, escapeJSONControls(raw), err
}

// escapeJSONControls rewrites, in the service's answer as printed by
// -json, the characters a terminal may act on that JSON allows raw inside
// strings (DEL and the C1 controls U+0080..U+009F) as \u escapes, and
// each invalid UTF-8 byte as \ufffd (what a JSON decoder reads there).
// raw must be valid JSON (it has been decoded): such characters can then
// only be inside strings, so the escapes keep its meaning, and C0 controls
// cannot occur raw at all. Other answers are returned unchanged.
func escapeJSONControls(raw []byte) []byte {
	if !bytes.ContainsFunc(raw, isControl) {
		return raw
	}
	var b bytes.Buffer
	for i := 0; i < len(raw); {
		r, n := utf8.DecodeRune(raw[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\ufffd`)
		case isControl(r) && r >= 0x7f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.Write(raw[i : i+n])
		}
		i += n
	}
	return b.Bytes()
}

// post sends body as JSON and returns the 200 body, or a *serverError.
func post(ctx context.Context, base, path string, body map[string]string) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, remoteTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(base, "/")+path, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := remoteClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("service unreachable: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxRemoteBytes))
	if err != nil {
		return nil, fmt.Errorf("reading the service's answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, newServerError(resp, raw)
	}
	return raw, nil
}

// newServerError reads the service's {"error": "..."} body. Its texts
// come from the remote side, so control characters are removed before
// they can reach a terminal. A redirect is never followed (see
// remoteClient) and is reported as such.
func newServerError(resp *http.Response, raw []byte) *serverError {
	var eb report.Error
	e := &serverError{status: resp.StatusCode, msg: "no error message"}
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		e.msg = "redirect not followed"
	case json.Unmarshal(raw, &eb) == nil && eb.Error != "":
		e.msg = cleanText(eb.Error)
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		e.retryAfter = cleanText(resp.Header.Get("Retry-After"))
	}
	return e
}

// decodeScanSummary decodes the service's ScanSummary JSON (the
// contract's types decode their own diagnostics) and restores which
// checks could not be determined, which the JSON says only in words.
func decodeScanSummary(raw []byte) (mailauth.ScanSummary, error) {
	var sum mailauth.ScanSummary
	if err := json.Unmarshal(raw, &sum); err != nil {
		return mailauth.ScanSummary{}, fmt.Errorf("service answer: %w", err)
	}
	mailauth.RestoreDetermination(sum.Checks)
	return sum, nil
}

// decodePtrCheckSummary decodes the service's PtrCheckSummary JSON.
func decodePtrCheckSummary(raw []byte) (mailauth.PTRCheckSummary, error) {
	var sum mailauth.PTRCheckSummary
	if err := json.Unmarshal(raw, &sum); err != nil {
		return mailauth.PTRCheckSummary{}, fmt.Errorf("service answer: %w", err)
	}
	checks := []mailauth.CheckSummary{sum.Check}
	mailauth.RestoreDetermination(checks)
	sum.Check = checks[0]
	return sum, nil
}
