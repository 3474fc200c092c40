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

	"github.com/mailauth/mailauth"
)

// Remote client limits.
const (
	remoteTimeout  = 60 * time.Second
	maxRemoteBytes = 1 << 20
)

// serverError is a non-200 answer of the service.
type serverError struct {
	status     int
	msg        string // the service's fixed error message
	retryAfter string // Retry-After of a 429
}

func (e *serverError) Error() string {
	s := fmt.Sprintf("service answered %d: %s", e.status, e.msg)
	if e.retryAfter != "" {
		s += " (retry after " + e.retryAfter + " s)"
	}
	return s
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
	return sum, raw, err
}

// remotePtr asks the service at base to check ip.
func remotePtr(ctx context.Context, base, ip string) (mailauth.PtrCheckSummary, []byte, error) {
	raw, err := post(ctx, base, "/api/ptr-check", map[string]string{"sendingIp": ip})
	if err != nil {
		return mailauth.PtrCheckSummary{}, nil, err
	}
	sum, err := decodePtrCheckSummary(raw)
	return sum, raw, err
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
	resp, err := http.DefaultClient.Do(req)
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

// newServerError reads the service's {"error": "..."} body.
func newServerError(resp *http.Response, raw []byte) *serverError {
	var eb struct {
		Error string `json:"error"`
	}
	e := &serverError{status: resp.StatusCode, msg: "no error message"}
	if json.Unmarshal(raw, &eb) == nil && eb.Error != "" {
		e.msg = eb.Error
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		e.retryAfter = resp.Header.Get("Retry-After")
	}
	return e
}

// The wire forms shadow the interface-typed Diagnostics field (and the
// Checks/Check fields that hold it) with raw JSON, so that the service's
// answer can be decoded into the library's types.
type (
	checkAlias mailauth.CheckSummary
	wireCheck  struct {
		checkAlias
		Diagnostics json.RawMessage `json:"diagnostics"`
	}
	scanAlias mailauth.ScanSummary
	wireScan  struct {
		scanAlias
		Checks []wireCheck `json:"checks"`
	}
	ptrAlias mailauth.PtrCheckSummary
	wirePtr  struct {
		ptrAlias
		Check wireCheck `json:"check"`
	}
)

// decodeScanSummary decodes the service's ScanSummary JSON.
func decodeScanSummary(raw []byte) (mailauth.ScanSummary, error) {
	var w wireScan
	if err := json.Unmarshal(raw, &w); err != nil {
		return mailauth.ScanSummary{}, fmt.Errorf("service answer: %w", err)
	}
	sum := mailauth.ScanSummary(w.scanAlias)
	sum.Checks = make([]mailauth.CheckSummary, len(w.Checks))
	for i, c := range w.Checks {
		cs, err := c.summary()
		if err != nil {
			return mailauth.ScanSummary{}, err
		}
		sum.Checks[i] = cs
	}
	return sum, nil
}

// decodePtrCheckSummary decodes the service's PtrCheckSummary JSON.
func decodePtrCheckSummary(raw []byte) (mailauth.PtrCheckSummary, error) {
	var w wirePtr
	if err := json.Unmarshal(raw, &w); err != nil {
		return mailauth.PtrCheckSummary{}, fmt.Errorf("service answer: %w", err)
	}
	sum := mailauth.PtrCheckSummary(w.ptrAlias)
	cs, err := w.Check.summary()
	sum.Check = cs
	return sum, err
}

// summary converts a wire check, decoding its diagnostics by check id.
func (w wireCheck) summary() (mailauth.CheckSummary, error) {
	cs := mailauth.CheckSummary(w.checkAlias)
	cs.Diagnostics = nil
	if len(w.Diagnostics) == 0 || string(w.Diagnostics) == "null" {
		return cs, nil
	}
	d := newDiagnostics(cs.ID)
	if d == nil {
		return cs, nil // mx and caa have none; ignore unexpected ones
	}
	if err := json.Unmarshal(w.Diagnostics, d); err != nil {
		return cs, fmt.Errorf("service answer: %s diagnostics: %w", cs.ID, err)
	}
	cs.Diagnostics = d
	return cs, nil
}

// newDiagnostics returns the diagnostics type of a check, or nil.
func newDiagnostics(id mailauth.CheckID) mailauth.Diagnostics {
	switch id {
	case mailauth.CheckSPF:
		return &mailauth.SpfDiagnostics{}
	case mailauth.CheckDKIM:
		return &mailauth.DkimDiagnostics{}
	case mailauth.CheckDMARC:
		return &mailauth.DmarcDiagnostics{}
	case mailauth.CheckMTASTS:
		return &mailauth.MtaStsDiagnostics{}
	case mailauth.CheckTLSRPT:
		return &mailauth.TlsRptDiagnostics{}
	case mailauth.CheckPTR:
		return &mailauth.PtrDiagnostics{}
	}
	return nil
}
