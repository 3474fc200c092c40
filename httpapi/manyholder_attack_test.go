package httpapi

import (
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackNeighbourMakesVisitorHoldMany: an attacker holding 4
// connections anywhere in a visitor's IPv6 /48 (another customer /56 of
// the same ISP block) must not make that visitor's first connection a
// newcomer "holding many": with the rest of the cap filled with slow
// bodies, the visitor, holding no connection of its own, takes a slow
// body's place (as RELIABILITY.md says a source gets its first 4 places
// from slow bodies) rather than being refused.
func TestAttackNeighbourMakesVisitorHoldMany(t *testing.T) {
	t.Parallel()
	long := int64(time.Minute)
	l := LimitListener(nil, ListenerOptions{MaxConns: 16, MaxConnsPerSource: 100})
	admit := func(ip string, slow bool) bool {
		lc, _, ok, _ := l.admit(fromConn{remote: &net.TCPAddr{IP: net.ParseIP(ip), Port: 1}})
		if !ok {
			return false
		}
		l.ConnState(lc, http.StateActive)
		if slow {
			lc.startBody()
			lc.bodySince.Store(monoNow() - long)
		}
		return true
	}
	for range 4 { // the neighbour: 4 progressing connections in the visitor's /48
		require.True(t, admit("2001:db8:0:100::1", false))
	}
	for range 10 { // the slow bodies, from a source holding many, to the places outside the reserve
		require.True(t, admit("203.0.113.1", true))
	}
	require.True(t, admit("198.51.100.1", false)) // the reserve, busy
	require.True(t, admit("198.51.100.2", false))
	require.Equal(t, 16, l.Stats().Open)
	assert.True(t, admit("2001:db8:0:200::1", false),
		"a visitor holding no connection, in another /56 of the neighbour's /48, takes a slow body's place")
	st := l.Stats()
	assert.Equal(t, 1, st.SlowBodies, "%+v", st)
}
