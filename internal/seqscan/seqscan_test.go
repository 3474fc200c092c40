package seqscan

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestObserver: an unmarked context has no observer (the scanner calls
// nothing); a marked one has an observer that waits for the check to
// end, and a marked context keeps its mark through derived contexts.
func TestObserver(t *testing.T) {
	assert.Nil(t, Observer(context.Background()), "an unmarked context")
	ctx, cancel := context.WithCancel(With(context.Background()))
	defer cancel()
	observe := Observer(ctx)
	require.NotNil(t, observe, "a marked context, derived")

	done := make(chan struct{})
	returned := make(chan struct{})
	go func() {
		observe(done)
		close(returned)
	}()
	close(done)
	<-returned // the observer returns once the check has ended
}
