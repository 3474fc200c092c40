package resolver

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
)

// TestAttackDeliverRacesDecide: readers deliver replies (agreeing,
// contradicting, nil) while the lookup decides and frees its queue. Under
// -race: no race on w.queue, no reader blocked,
// and a contradiction that came before or after the decision calls
// conflict exactly once.
func TestAttackDeliverRacesDecide(t *testing.T) {
	mk := func(ip string) *dns.Msg {
		m := new(dns.Msg)
		m.SetQuestion("a.example.", dns.TypeA)
		m.Response = true
		rr, _ := dns.NewRR("a.example. 60 IN A " + ip)
		m.Answer = []dns.RR{rr}
		return m
	}
	taken, forged := mk("192.0.2.1"), mk("192.0.2.66")
	for range 200 {
		w := newWaiter()
		var calls atomic.Int32
		w.conflict = conflictFunc(func() { calls.Add(1) })
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for i := range 20 {
					switch {
					case g == 0 && i == 19:
						w.deliver(reply{msg: forged})
					case i%3 == 0:
						w.deliver(reply{})
					default:
						w.deliver(reply{msg: taken})
					}
				}
			})
		}
		w.decide(taken, 0)
		wg.Wait()
		// The contradiction either was queued and compared in decide, was
		// compared on delivery, or was dropped from a full queue (the
		// queue holds replyQueue).
		assert.LessOrEqual(t, calls.Load(), int32(1))
		assert.Nil(t, w.queue)
	}
}
