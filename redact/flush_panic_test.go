package redact

import (
	"context"
	"errors"
	"testing"

	"github.com/mailauth/mailauth/resolver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlushPanicFailsClosed: a panic while the queue is recorded (forced
// here by a hash directory said to be deeper than it is; in the service it
// would take a bug in the recording code) neither escapes to the reader nor leaves
// the Set's lock held: the queue is emptied, the Set is unguarded, and
// Verify refuses every output. Through a read (rlockSettled) and through
// a write (AddText) alike.
func TestFlushPanicFailsClosed(t *testing.T) {
	s := brokenQueue(t)
	require.NotPanics(t, func() { s.Contains("anything.example") })
	require.True(t, s.mu.TryLock(), "the Set's lock is free after the failed flush")
	s.mu.Unlock()
	assert.Zero(t, s.pendingValues, "the queue is empty")
	assert.True(t, errors.Is(s.Verify([]byte(`{"a":"b"}`)), ErrUnguarded), "every output is refused")

	// Verify, the first read: it refuses the output.
	s2 := brokenQueue(t)
	var err error
	require.NotPanics(t, func() { err = s2.Verify([]byte(`{"a":"b"}`)) })
	assert.True(t, errors.Is(err, ErrUnguarded), "every output is refused")

	// A value added: the flush fails closed; the add itself then panics on
	// the broken table, and its deferred unlock frees the lock.
	s3 := brokenQueue(t)
	require.Panics(t, func() { s3.AddText("added.example") })
	require.True(t, s3.mu.TryLock(), "the Set's lock is free")
	s3.mu.Unlock()
	assert.True(t, s3.unguarded)
}

// brokenQueue returns a Set with an answer queued whose recording panics:
// its hash directory is said to be 8 levels deep and has one segment.
func brokenQueue(t *testing.T) *Set {
	s := NewSet()
	r := s.ScanResolverThen(resolver.Func(func(context.Context, string, resolver.Type) resolver.Answer {
		return resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{{Type: resolver.TypeMX, Target: "mx1.queued.example"}}}
	}), nil)
	r.Lookup(context.Background(), "queued.example", resolver.TypeMX)
	s.mu.Lock()
	queued := s.pendingValues
	s.store.hashDepth = 8
	s.mu.Unlock()
	require.Positive(t, queued, "the answer is queued, not recorded")
	return s
}
