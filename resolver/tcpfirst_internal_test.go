package resolver

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heldTCPLookup returns a lookup of example.com A at a server that never
// replies, whose truncated reply's TCP retry has ended with answer, not
// yet taken; with udp (when not nil) queued beside it as a UDP reply to
// the same query.
func heldTCPLookup(t *testing.T, answer, udp *dns.Msg) *lookup {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { pc.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	c := &Client{Servers: []string{pc.LocalAddr().String()}}
	l := c.newLookup(ctx, c.Servers, "example.com.", TypeA, false, c.schedule())
	t.Cleanup(l.end)
	tctx, tstop := context.WithCancel(ctx)
	l.tcp = &tcpRetries{ctx: tctx, stop: tstop, c: make(chan *tcpResult, 2), tries: make([]int, 1)}
	l.tcp.c <- &tcpResult{rep: reply{server: 0, seq: 1}, msg: answer}
	if udp != nil {
		l.w.deliver(reply{server: 0, seq: 1, msg: udp})
	}
	l.running = true
	return l
}

// answerA is the NOERROR reply to example.com A with one record, ip.
func answerA(t *testing.T, ip string) *dns.Msg {
	t.Helper()
	return answerMsg(t, "example.com.", dns.TypeA, "example.com. 60 IN A "+ip)
}

// TestTurnTakesTCPAnswerFirst: a UDP answer a forger matched (port, ID,
// case, cookie) is queued beside the TCP retry's real answer; the lookup
// ends with the TCP one, every time.
func TestTurnTakesTCPAnswerFirst(t *testing.T) {
	t.Parallel()
	for range 20 {
		l := heldTCPLookup(t, answerA(t, "192.0.2.1"), answerA(t, "203.0.113.66"))
		require.True(t, l.turn(), "an answer ends the lookup")
		require.Len(t, l.res.a.Records, 1)
		assert.Equal(t, "192.0.2.1", l.res.a.Records[0].Addr.String(), "the TCP answer")
		assert.Nil(t, l.res.udp, "no UDP reply taken")
	}
}

// TestErrorReplyKeepsTCPAnswer: the only server was already asked again
// after an error reply, and an error reply to that query is queued beside
// the TCP retry's answer. Taken first, the error would fail the last
// server and end the lookup SERVFAIL with the answer unread; the lookup
// ends with the answer.
func TestErrorReplyKeepsTCPAnswer(t *testing.T) {
	t.Parallel()
	servfail := answerMsg(t, "example.com.", dns.TypeA)
	servfail.Rcode = dns.RcodeServerFailure
	for range 20 {
		l := heldTCPLookup(t, answerA(t, "192.0.2.1"), servfail)
		l.reask = []int{1} // query 1 is the one asked again
		for !l.turn() {
		}
		assert.Equal(t, Found, l.res.a.Outcome)
	}
}

// TestFailAllocatesOnce: a lookup keeps its best failure apart from
// itself, made with the first; the later ones allocate nothing.
func TestFailAllocatesOnce(t *testing.T) {
	l := &lookup{}
	assert.Equal(t, result{server: -1}, l.lastFailure(), "no failure yet")
	l.fail(failure(ReasonTimeout, 0))
	require.NotNil(t, l.last)
	allocs := testing.AllocsPerRun(100, func() { l.fail(failure(ReasonRefused, 0)) })
	assert.Zero(t, allocs)
	assert.Equal(t, ReasonRefused, l.lastFailure().a.Reason)
}
