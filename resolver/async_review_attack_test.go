package resolver_test

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
)

// heldTXT serves a TXT answer for every question, each reply held until
// release is closed.
func heldTXT(t *testing.T, release <-chan struct{}) string {
	t.Helper()
	return startHandler(t, func(w dns.ResponseWriter, r *dns.Msg) {
		<-release
		m := new(dns.Msg)
		m.SetReply(r)
		m.Answer = append(m.Answer, &dns.TXT{Hdr: dns.RR_Header{Name: r.Question[0].Name, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 60}, Txt: []string{"v"}})
		_ = w.WriteMsg(m)
	}, false)
}

// TestAsyncReviewPanicInWaiterStrandsFlight: a panic in the done of one
// caller waiting on a Cache flight, run on the socket's reader when the
// reply lands, stays that caller's: the waiters after it in the
// flight's list get the answer, and so does the sender (an attacker's
// review found the landing cut short there, the sender never answered).
func TestAsyncReviewPanicInWaiterStrandsFlight(t *testing.T) {
	release := make(chan struct{})
	addr := heldTXT(t, release)
	c := resolver.NewCache(&resolver.Client{Servers: []string{addr}, Attempts: 1, Timeout: 10 * time.Second}, 0)

	senderCtx, cancelSender := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelSender()
	waiterCtx, cancelWaiter := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelWaiter()

	sender := make(chan resolver.Answer, 1)
	c.Start(senderCtx, "held.test", resolver.TypeTXT, func(a resolver.Answer) { sender <- a })
	panicked := make(chan struct{})
	c.Start(waiterCtx, "held.test", resolver.TypeTXT, func(resolver.Answer) {
		close(panicked)
		panic("a bug above the Cache")
	})
	later := make(chan resolver.Answer, 1)
	c.Start(waiterCtx, "held.test", resolver.TypeTXT, func(a resolver.Answer) { later <- a })
	require.Equal(t, uint64(2), c.Stats().Shared, "both waiters joined the flight")

	close(release)
	<-panicked
	// A landing cut short would leave the later waiter to end only with
	// its context; its context is not canceled here, since a cancel
	// while the landing goes on may take the waiter's turn first (and
	// rightly answer it canceled).
	select {
	case a := <-later:
		assert.Equal(t, resolver.Found, a.Outcome, "the waiter after the panicking one lost the answer: %s", show(a))
	case <-time.After(spoofTimeout): // a bound on a hang: a correct Cache answers at once
		require.FailNow(t, "the waiter after the panicking one was never answered")
	}
	cancelWaiter()
	cancelSender()
	select {
	case a := <-sender:
		require.Equal(t, resolver.Found, a.Outcome, "sender got %s", show(a))
	case <-time.After(spoofTimeout): // a bound on a hang: a correct Cache answers at once
		require.FailNow(t, "the sender's done was never called")
	}
}

// TestAsyncReviewPanicOnAfterFuncEndsProcess: a panic in a done that
// the Cache calls from the context's AfterFunc goroutine (a wait its
// context ended) does not end the process. Run in a child process.
func TestAsyncReviewPanicOnAfterFuncEndsProcess(t *testing.T) {
	if os.Getenv("ASYNC_REVIEW_CHILD") == "1" {
		release := make(chan struct{})
		addr := heldTXT(t, release)
		defer close(release)
		c := resolver.NewCache(&resolver.Client{Servers: []string{addr}, Attempts: 1, Timeout: 10 * time.Second}, 0)
		senderCtx, cancelSender := context.WithCancel(context.Background())
		defer cancelSender()
		c.Start(senderCtx, "held.test", resolver.TypeTXT, func(resolver.Answer) {})
		waiterCtx, cancelWaiter := context.WithCancel(context.Background())
		c.Start(waiterCtx, "held.test", resolver.TypeTXT, func(resolver.Answer) { panic("a bug above the Cache") })
		cancelWaiter()
		time.Sleep(2 * time.Second) // the AfterFunc goroutine runs meanwhile
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAsyncReviewPanicOnAfterFuncEndsProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ASYNC_REVIEW_CHILD=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the child process died:\n%s", out)
}

// TestAsyncReviewCanceledWaiterKeptByFlight: a caller that joined
// another scan's Cache flight and whose context ended lets go of what
// its done holds (in a scan: the Scan's call, the Scan, its log of
// answers) at once, not when the sender's lookup ends, which may be its
// deadline.
func TestAsyncReviewCanceledWaiterKeptByFlight(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	addr := heldTXT(t, release)
	c := resolver.NewCache(&resolver.Client{Servers: []string{addr}, Attempts: 1, Timeout: 10 * time.Second}, 0)
	senderCtx, cancelSender := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelSender()
	c.Start(senderCtx, "held.test", resolver.TypeTXT, func(resolver.Answer) {})

	type scanState struct{ log [1 << 20]byte }
	state := new(scanState)
	kept := weak.Make(state)
	waiterCtx, cancelWaiter := context.WithCancel(context.Background())
	got := make(chan resolver.Answer, 1)
	held := state // what the waiter's done holds (in a scan: the Scan)
	c.Start(waiterCtx, "held.test", resolver.TypeTXT, func(a resolver.Answer) {
		_ = held.log[0]
		got <- a
	})
	state = nil
	cancelWaiter()
	require.Equal(t, resolver.ReasonCanceled, (<-got).Reason)
	for range 5 {
		runtime.GC()
	}
	assert.True(t, kept.Value() == nil, "a canceled waiter's state is kept by the flight until the sender's lookup ends")
}

// TestAsyncReviewPanicInScanWaiterStrandsOwner: the same at the Scan
// layer: a panic in the done of a caller waiting on a Scan's call, run
// on the reader, does not keep the caller that asked the question from
// its answer (a check's Pending.Wait has no context: it would wait for
// ever).
func TestAsyncReviewPanicInScanWaiterStrandsOwner(t *testing.T) {
	release := make(chan struct{})
	addr := heldTXT(t, release)
	s := resolver.NewScan(&resolver.Client{Servers: []string{addr}, Attempts: 1, Timeout: 10 * time.Second}, 0)
	ownerCtx, cancelOwner := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelOwner()
	waiterCtx, cancelWaiter := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelWaiter()

	owner := resolver.Begin(ownerCtx, s, "held.test", resolver.TypeTXT)
	panicked := make(chan struct{})
	s.Start(waiterCtx, "held.test", resolver.TypeTXT, func(resolver.Answer) {
		close(panicked)
		panic("a bug above the Scan")
	})
	close(release)
	<-panicked
	cancelOwner()
	got := make(chan resolver.Answer, 1)
	go func() { got <- owner.Wait() }()
	select {
	case a := <-got:
		require.Equal(t, resolver.Found, a.Outcome, "owner got %s", show(a))
	case <-time.After(spoofTimeout): // a bound on a hang: a correct Scan answers at once
		require.FailNow(t, "the owner's Pending never landed, even after its context ended")
	}
}
