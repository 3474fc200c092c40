package httpapi

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
)

// eventLog is a Recorder that keeps the events.
type eventLog struct {
	mu     sync.Mutex
	events []Event
}

func (l *eventLog) Record(e Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

// TestRecorder: each diagnostic answered 200 gives one Event with the
// summary's domain, grade and statuses, the client and the utm_source;
// refused requests (400, 415, 429) give none.
func TestRecorder(t *testing.T) {
	t.Parallel()
	rec := &eventLog{}
	ts := NewTestServer(t, &FakeService{}, Options{Recorder: rec})
	sum := SampleScanSummary()
	for _, r := range []struct {
		path, body string
		status     int
	}{
		{"/api/scan?utm_source=web", scanBody("example.com"), http.StatusOK},
		{"/api/ptr-check", ptrBody("8.8.8.8"), http.StatusOK},
		{"/api/scan", `{"domain":"-bad-"}`, http.StatusBadRequest},
		{"/api/scan?utm_source=BAD", scanBody("example.com"), http.StatusBadRequest},
	} {
		require.Equal(t, r.status, ts.PostJSON(t, r.path, r.body).StatusCode, r.path)
	}
	require.Len(t, rec.events, 2, "events")
	scan, ptr := rec.events[0], rec.events[1]
	assert.Equal(t, EndpointScan, scan.Endpoint, "scan event %+v", scan)
	assert.Equal(t, sum.Domain, scan.Domain, "scan event %+v", scan)
	assert.Equal(t, string(sum.Grade), scan.Grade, "scan event %+v", scan)
	assert.Equal(t, "web", scan.UTMSource, "scan event %+v", scan)
	assert.Equal(t, "127.0.0.1", scan.Client, "scan event %+v", scan)
	assert.True(t, scan.Time.Equal(ts.Clock.Now()), "scan event %+v", scan)
	if assert.Len(t, scan.Checks, len(mailauth.CheckOrder()), "scan event %+v", scan) {
		assert.Equal(t, CheckStatus{string(sum.Checks[0].ID), string(sum.Checks[0].Status)}, scan.Checks[0], "scan event %+v", scan)
	}
	assert.Equal(t, Event{Time: ptr.Time, Endpoint: EndpointPtrCheck, Client: "127.0.0.1", Checks: ptr.Checks}, ptr, "ptr-check event")
	if assert.Len(t, ptr.Checks, 1, "ptr-check event %+v", ptr) {
		assert.Equal(t, "ptr", ptr.Checks[0].ID, "ptr-check event %+v", ptr)
	}
}

// TestRecorderUndetermined: a check that reached no conclusion is
// recorded as undetermined (not as the warn it is reported as); a scan
// too incomplete to be graded is answered 500 and recorded not at all.
func TestRecorderUndetermined(t *testing.T) {
	t.Parallel()
	rec := &eventLog{}
	sum := SampleScanSummary()
	var svc FakeService
	svc.ScanFunc = func(context.Context, mailauth.ScanRequest) (mailauth.ScanSummary, error) { return sum, nil }
	ts := NewTestServer(t, &svc, Options{Recorder: rec})

	undetermined := -1
	for i, c := range sum.Checks {
		if c.Status != mailauth.StatusInfo && undetermined < 0 {
			undetermined = i
			sum.Checks[i].Status, sum.Checks[i].Determination = mailauth.StatusWarn, mailauth.UndeterminedLookup
		}
	}
	require.False(t, sum.Incomplete(), "precondition: one check undetermined")
	require.Equal(t, http.StatusOK, ts.PostJSON(t, "/api/scan", scanBody("example.com")).StatusCode)
	require.Len(t, rec.events, 1)
	e := rec.events[0]
	assert.Equal(t, string(sum.Grade), e.Grade)
	for i, c := range e.Checks {
		want := string(sum.Checks[i].Status)
		if i == undetermined {
			want = StatusUndetermined
		}
		assert.Equal(t, want, c.Status, c.ID)
	}

	for i := range sum.Checks {
		if sum.Checks[i].Status != mailauth.StatusInfo {
			sum.Checks[i].Status, sum.Checks[i].Determination = mailauth.StatusWarn, mailauth.UndeterminedLookup
		}
	}
	require.True(t, sum.Incomplete(), "precondition: every evaluated check undetermined")
	r := ts.PostJSON(t, "/api/scan", scanBody("example.com"))
	assert.Equal(t, http.StatusInternalServerError, r.StatusCode, "no 200 carries a grade its summary calls meaningless")
	assert.Contains(t, string(r.Body), errScanIncomplete.msg)
	assert.Len(t, rec.events, 1, "an unanswered scan is not recorded")

	// Left incomplete by slowness: the message says the domain's name
	// servers were too slow, not that the answers were unusable.
	for i := range sum.Checks {
		if sum.Checks[i].Status != mailauth.StatusInfo {
			sum.Checks[i].Determination = mailauth.UndeterminedSlow
		}
	}
	require.True(t, sum.Incomplete() && sum.Slow(), "precondition: every evaluated check slow")
	r = ts.PostJSON(t, "/api/scan", scanBody("example.com"))
	assert.Equal(t, http.StatusInternalServerError, r.StatusCode)
	assert.Contains(t, string(r.Body), errScanSlow.msg)
	assert.NotContains(t, string(r.Body), "unusable")
	assert.Len(t, rec.events, 1, "an unanswered scan is not recorded")
}
