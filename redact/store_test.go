package redact

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// viewOf returns the index of the store block that is text read in place,
// -1 when there is none.
func viewOf(st *valueStore, text string) int {
	for k, b := range st.blocks {
		if len(b) > 0 && unsafe.SliceData(b) == unsafe.StringData(text) {
			return k
		}
	}
	return -1
}

// TestTextViewIsReadOnly checks the store's views: a text already in
// lower-case ASCII is read in place, never written, however many values
// are stored after it; a text with an upper-case letter is copied; a view
// none of whose values is recorded is dropped.
func TestTextViewIsReadOnly(t *testing.T) {
	lower := strings.Repeat("v=spf1 ip4:192.0.2.1 include:_spf.example.net ~all ", 3)
	want := strings.Clone(lower)
	s := NewSet()
	s.AddText(lower)
	k := viewOf(&s.store, lower)
	require.GreaterOrEqual(t, k, 0, "a lower-case text is read in place")
	require.Equal(t, len(lower), cap(s.store.blocks[k]), "a view has no room to write into")
	for i := range 2000 {
		s.Add(strings.Repeat("x", i%50) + ".filler.example")
	}
	s.AddText("another text, mx1.example.org and 198.51.100.7")
	require.Equal(t, want, lower, "the text a view reads is never written")
	require.True(t, s.Contains("see _spf.example.net"))
	require.True(t, s.Contains("ip4:192.0.2.1"))
	require.True(t, s.Contains("MX1.example.ORG"))

	mixed := strings.Repeat("v=spf1 Include:_SPF.Example.net -all ", 2)
	s = NewSet()
	s.AddText(mixed)
	require.Equal(t, -1, viewOf(&s.store, mixed), "a text with upper case is copied lower-cased")
	require.True(t, s.Contains("_spf.example.net"))

	s = NewSet()
	s.AddText(strings.Repeat("12 34 ", 2)) // no value worth recording: digits, short tokens
	require.Empty(t, s.store.blocks, "a view none of whose values is kept is dropped")
	require.Zero(t, s.Len())
}
