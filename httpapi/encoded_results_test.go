package httpapi

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth"
)

// panicOnFirstAdmit is an Observer whose first "admitted" Admission panics.
type panicOnFirstAdmit struct {
	nopObserver
	n atomic.Int32
}

func (o *panicOnFirstAdmit) Admission(outcome string, _ time.Duration) {
	if outcome == "admitted" && o.n.Add(1) == 1 {
		panic("observer")
	}
}

// TestObserverPanicReleasesSlot: an Observer whose Admission panics
// right after a diagnostic is admitted (recoverPanic answers 500) still
// has the slot given back: with one slot, the next request is served.
func TestObserverPanicReleasesSlot(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, &FakeService{}, Options{MaxInFlight: 1, QueueWait: 200 * time.Millisecond, Observer: &panicOnFirstAdmit{}})
	r := ts.PostJSON(t, "/api/scan", scanBody("example.com"))
	assert.Equal(t, 500, r.StatusCode, "first (observer panics): %s", r.Body)
	r = ts.PostJSON(t, "/api/scan", scanBody("example.org"))
	assert.Equal(t, 200, r.StatusCode, "second: %s (the first request's slot was never released)", r.Body)
}

// nilEncoded is an EncodedService whose Encoded methods return what the
// new signatures allow.
type nilEncoded struct {
	FakeService
	scan func() (*mailauth.ScanSummary, []byte, error)
	ptr  func() (*mailauth.PTRCheckSummary, []byte, error)
}

func (n *nilEncoded) ScanEncoded(context.Context, mailauth.ScanRequest) (*mailauth.ScanSummary, []byte, error) {
	return n.scan()
}

func (n *nilEncoded) CheckIPEncoded(context.Context, netip.Addr) (*mailauth.PTRCheckSummary, []byte, error) {
	return n.ptr()
}

// TestNilSummaryIsInternalError: an EncodedService that returns neither
// a summary nor an error (with or without a body) is answered 500 without
// a Link, and the handler does not panic on it.
func TestNilSummaryIsInternalError(t *testing.T) {
	t.Parallel()
	for _, body := range [][]byte{nil, []byte(`{}` + "\n")} {
		svc := &nilEncoded{
			scan: func() (*mailauth.ScanSummary, []byte, error) { return nil, body, nil },
			ptr:  func() (*mailauth.PTRCheckSummary, []byte, error) { return nil, body, nil },
		}
		ts := NewTestServer(t, svc, Options{MaxInFlight: 1, QueueWait: 200 * time.Millisecond})
		for _, req := range []struct{ path, body string }{{"/api/scan", scanBody("example.com")}, {"/api/ptr-check", ptrBody("8.8.8.8")}} {
			r := ts.PostJSON(t, req.path, req.body)
			assert.Equal(t, 500, r.StatusCode, "%s body %q: %s", req.path, body, r.Body)
			assert.Empty(t, r.Header.Get("Link"), "%s: Link on a 500", req.path)
		}
		assert.False(t, strings.Contains(ts.Log.String(), `"error":"panic"`), "body %q: a nil summary panicked the handler: %s", body, ts.Log.String())
	}
}

// TestErrorWinsOverSummary: an error returned with a summary is
// answered as the error, its text not shown, and the slot is released.
func TestErrorWinsOverSummary(t *testing.T) {
	t.Parallel()
	s, p := SampleScanSummary(), SamplePtrCheckSummary()
	svc := &nilEncoded{
		scan: func() (*mailauth.ScanSummary, []byte, error) { return &s, []byte("{}\n"), errors.New("secret") },
		ptr:  func() (*mailauth.PTRCheckSummary, []byte, error) { return &p, []byte("{}\n"), errors.New("secret") },
	}
	ts := NewTestServer(t, svc, Options{MaxInFlight: 1, QueueWait: 200 * time.Millisecond})
	for range 2 {
		for _, req := range []struct{ path, body string }{{"/api/scan", scanBody("example.com")}, {"/api/ptr-check", ptrBody("8.8.8.8")}} {
			r := ts.PostJSON(t, req.path, req.body)
			assert.Equal(t, 500, r.StatusCode, "%s: %s", req.path, r.Body)
			assert.Empty(t, r.Header.Get("Link"), "%s", req.path)
			assert.NotContains(t, string(r.Body), "secret")
		}
	}
}
