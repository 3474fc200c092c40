package mx

import (
	"context"
	"net/netip"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth/resolver"
)

// TestCheckAsksExchangesAtOnce: once the MX answer is in, the A and AAAA
// questions of every exchange are all asked before any is answered (no
// exchange waits for another's), and each exchange is judged from its
// own answers.
func TestCheckAsksExchangesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var mu sync.Mutex
		var asked []string
		r := resolver.Func(func(_ context.Context, name string, qtype resolver.Type) resolver.Answer {
			if qtype == resolver.TypeMX {
				return resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{
					{Type: resolver.TypeMX, Target: "a.example", Preference: 10},
					{Type: resolver.TypeMX, Target: "b.example", Preference: 20},
					{Type: resolver.TypeMX, Target: "c.example", Preference: 30},
				}}
			}
			mu.Lock()
			asked = append(asked, name+"/"+qtype.String())
			mu.Unlock()
			<-release
			if name == "b.example" && qtype == resolver.TypeA {
				return resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{
					{Type: resolver.TypeA, Addr: netip.MustParseAddr("11.0.0.1")},
				}}
			}
			return resolver.Answer{Outcome: resolver.NoData}
		})
		got := make(chan Result, 1)
		go func() { got <- Check(context.Background(), r, "example") }()
		synctest.Wait()
		mu.Lock()
		assert.ElementsMatch(t, []string{"a.example/A", "a.example/AAAA", "b.example/A", "b.example/AAAA", "c.example/A", "c.example/AAAA"}, asked)
		mu.Unlock()
		close(release)
		res := <-got
		assert.Equal(t, KindExplicit, res.Kind)
		assert.Equal(t, 3, res.Counts.Checked)
		assert.Equal(t, 1, res.Counts.Usable)
		assert.Equal(t, 2, res.Counts.NoAddress)
	})
}
