package mtasts

import (
	"context"
	"crypto/tls"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestSessionCache: a session is returned until MaxSessionAge has
// passed, a nil Put forgets it, and the bookkeeping stays bounded.
func TestSessionCache(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	c := NewSessionCache(4)
	c.now = func() time.Time { return now }
	cs := &tls.ClientSessionState{}
	c.Put("a", cs)
	got, ok := c.Get("a")
	require.True(t, ok, "a fresh session must be returned")
	require.Same(t, cs, got, "a fresh session must be returned")
	now = now.Add(MaxSessionAge - time.Second)
	_, ok = c.Get("a")
	require.True(t, ok, "a session younger than MaxSessionAge must be returned")
	now = now.Add(time.Second)
	_, ok = c.Get("a")
	require.False(t, ok, "a session of MaxSessionAge must not be resumed")
	c.Put("b", cs)
	c.Put("b", nil)
	_, ok = c.Get("b")
	require.False(t, ok, "a session removed by Put(nil) was returned")
	for i := range 100 {
		c.Put(fmt.Sprint("k", i), cs)
		n, _ := c.Len()
		require.LessOrEqual(t, n, c.capacity, "sessions kept for capacity %d", c.capacity)
	}
	_, ok = c.Get("k99")
	require.True(t, ok, "the most recent session must be returned")
	_, ok = c.Get("k0")
	require.False(t, ok, "the oldest of 100 sessions must be gone from a cache of 4")
}

// TestFetchUsesSessions: a fetch with Options.Sessions stores the policy
// host's TLS session, and the next fetch of the host still succeeds.
func TestFetchUsesSessions(t *testing.T) {
	e := newTestEnv(t)
	r := dnstest.NewResolver(e.zones)
	opts := Options{Port: e.srv.Port, RootCAs: e.srv.CA.pool, AllowLoopback: true, Timeout: dnstest.PatientTimeout, Sessions: NewSessionCache(8)} // a bound on a hang
	for i := range 2 {
		res := Check(context.Background(), r, "pass"+zoneSuffix, opts)
		require.Equal(t, Fetched, res.FetchState, "fetch %d: state", i+1)
		n, bytes := opts.Sessions.Len()
		assert.Greater(t, bytes, 2*sessionOverhead, "a real session is counted with its certificates")
		require.Equal(t, 1, n, "after fetch %d: sessions stored, want the host's one", i+1)
	}
}

// TestSessionCacheByteBound: the byte bound, not the count, limits the
// sessions held; the most recent stay.
func TestSessionCacheByteBound(t *testing.T) {
	cs := &tls.ClientSessionState{} // not serializable: counted as 4 KB
	one := sessionSize("k00", cs)
	c := NewSessionCacheBytes(100, 3*one)
	for i := range 10 {
		c.Put(fmt.Sprintf("k%02d", i), cs)
		_, bytes := c.Len()
		require.LessOrEqual(t, bytes, 3*one)
	}
	n, _ := c.Len()
	assert.Equal(t, 3, n)
	for i, want := range map[int]bool{9: true, 8: true, 7: true, 6: false, 0: false} {
		_, ok := c.Get(fmt.Sprintf("k%02d", i))
		assert.Equal(t, want, ok, "session %d", i)
	}
}
