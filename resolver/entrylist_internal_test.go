package resolver

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// order returns the names of l's entries front to back, checking the
// links both ways and the count.
func (l *entryList) order(t *testing.T) []string {
	t.Helper()
	var names []string
	var prev *cacheEntry
	for e := l.front; e != nil; e = e.next {
		assert.Same(t, prev, e.prev, "%s: its prev link", e.q.name)
		names = append(names, e.q.name)
		prev = e
	}
	assert.Same(t, prev, l.back, "the back")
	assert.Len(t, names, l.n, "the count")
	return names
}

// TestEntryList: the Cache's own list of entries keeps its order and
// links through pushes, moves and removals at the front, the middle
// and the back, and an entry taken out holds no link.
func TestEntryList(t *testing.T) {
	var l entryList
	assert.Empty(t, l.order(t))
	es := map[string]*cacheEntry{}
	for _, n := range []string{"a", "b", "c", "d"} {
		es[n] = &cacheEntry{q: question{name: n}}
		l.pushFront(es[n])
	}
	assert.Equal(t, []string{"d", "c", "b", "a"}, l.order(t))
	l.moveToFront(es["b"])
	assert.Equal(t, []string{"b", "d", "c", "a"}, l.order(t))
	l.moveToFront(es["a"])
	assert.Equal(t, []string{"a", "b", "d", "c"}, l.order(t))
	l.moveToFront(es["a"])
	assert.Equal(t, []string{"a", "b", "d", "c"}, l.order(t), "the front moved to the front")
	for _, n := range []string{"d", "a", "c"} { // middle, front, back
		l.remove(es[n])
		assert.Nil(t, es[n].prev, "%s: prev after removal", n)
		assert.Nil(t, es[n].next, "%s: next after removal", n)
	}
	assert.Equal(t, []string{"b"}, l.order(t))
	l.remove(es["b"])
	assert.Empty(t, l.order(t))
	assert.Nil(t, l.front)
	l.pushFront(es["c"])
	assert.Equal(t, []string{"c"}, l.order(t), "a list emptied takes entries again")
}
