package main

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/testlab"
)

// deadlineTransport notes the deadline of each request it carries, then
// sends it on.
type deadlineTransport struct {
	next http.RoundTripper

	mu        sync.Mutex
	deadlines []time.Time // the zero time: a request without one
}

func (d *deadlineTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	dl, _ := req.Context().Deadline()
	d.mu.Lock()
	d.deadlines = append(d.deadlines, dl)
	d.mu.Unlock()
	return d.next.RoundTrip(req)
}

// take returns the deadlines noted since the last call.
func (d *deadlineTransport) take() []time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	got := d.deadlines
	d.deadlines = nil
	return got
}

// TestRemoteDefaultTimeout: with -server and no -timeout, a scan and a
// sending-IP check give their request to the service remoteTimeout, from
// a moment within the command's run; that bound covers the longest the
// service itself may take (a slot's queue wait, then a scan's default
// deadline); -timeout replaces it. The deadlines are read from the
// requests as they leave; the window is read from the clock around the
// run, so load only widens it.
//
// Not parallel: it swaps the transport of the CLI's one HTTP client, and
// no parallel test runs until the sequential ones are over.
func TestRemoteDefaultTimeout(t *testing.T) {
	require.GreaterOrEqual(t, remoteTimeout, httpapi.DefaultQueueWait+mailauth.DefaultScanTimeout,
		"the client would give up before the service's own bounds")
	rec := &deadlineTransport{next: http.DefaultTransport}
	was := remoteClient.Transport
	remoteClient.Transport = rec
	t.Cleanup(func() { remoteClient.Transport = was })
	srv := service(t, &fakeService{}, httpapi.Options{})
	for _, c := range []struct {
		args []string
		want time.Duration
	}{
		{[]string{"scan", "-server", srv.URL, "example.com"}, remoteTimeout},
		{[]string{"ptr", "-server", srv.URL, "8.8.8.8"}, remoteTimeout},
		{[]string{"scan", "-timeout", "7s", "-server", srv.URL, "example.com"}, 7 * time.Second},
		{[]string{"ptr", "-timeout", "7s", "-server", srv.URL, "8.8.8.8"}, 7 * time.Second},
	} {
		before := time.Now()
		code, out, errOut := runCLI(t, nil, c.args...)
		after := time.Now()
		require.NotEqual(t, exitUnavailable, code, "%q: stdout %q stderr %q", c.args, out, errOut)
		got := rec.take()
		require.Len(t, got, 1, "%q: requests to the service", c.args)
		require.False(t, got[0].IsZero(), "%q: the request had no deadline", c.args)
		testlab.RequireDeadlinesWithin(t, got, before, after, c.want)
	}
}
