package testlab

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeadline: a Deadline passes when Pass is called, once, whatever
// its parent's deadline, and keeps its parent's values.
func TestDeadline(t *testing.T) {
	type key struct{}
	parent := context.WithValue(t.Context(), key{}, "v")
	d := NewDeadline(parent)
	require.NoError(t, d.Err())
	select {
	case <-d.Done():
		t.Fatal("Done before Pass")
	default:
	}
	d.Pass()
	d.Pass()
	<-d.Done()
	assert.ErrorIs(t, d.Err(), context.DeadlineExceeded)
	assert.Equal(t, "v", d.Value(key{}))
}
