package main

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// traces is what `go tool pprof -traces` prints for a heap profile: a
// header, then blocks with a value and unit, size buckets and inlined
// frames.
const traces = `File: bench
Build ID: 0123
Type: inuse_space
Time: 2026-11-30 16:38:00 UTC
-----------+-------------------------------------------------------
         0   runtime/pprof.writeHeapInternal
             main.main
-----------+-------------------------------------------------------
     bytes:  4kB
    1.50MB   bufio.NewWriterSize (inline)
             net/http.newBufioWriterSize
             net/http.(*conn).serve
-----------+-------------------------------------------------------
     bytes:  96B
     512kB   github.com/mailauth/mailauth/resolver.newWaiter (inline)
             github.com/mailauth/mailauth/resolver.(*Client).newLookup
-----------+-------------------------------------------------------
      768B   github.com/mailauth/mailauth/resolver.(*upstream).dial
             github.com/mailauth/mailauth/resolver.(*upstream).register
             github.com/mailauth/mailauth/resolver.(*Client).send
-----------+-------------------------------------------------------
        64   github.com/mailauth/mailauth/resolver.cloneAnswer
             github.com/mailauth/mailauth/resolver.(*Cache).keep
-----------+-------------------------------------------------------
       2GB   main.unknown
`

func TestParseTraces(t *testing.T) {
	got, err := parseTraces(strings.NewReader(traces))
	require.NoError(t, err)
	want := []sample{
		{0, []string{"runtime/pprof.writeHeapInternal", "main.main"}},
		{1.5e6, []string{"bufio.NewWriterSize", "net/http.newBufioWriterSize", "net/http.(*conn).serve"}},
		{512e3, []string{"github.com/mailauth/mailauth/resolver.newWaiter", "github.com/mailauth/mailauth/resolver.(*Client).newLookup"}},
		{768, []string{"github.com/mailauth/mailauth/resolver.(*upstream).dial", "github.com/mailauth/mailauth/resolver.(*upstream).register", "github.com/mailauth/mailauth/resolver.(*Client).send"}},
		{64, []string{"github.com/mailauth/mailauth/resolver.cloneAnswer", "github.com/mailauth/mailauth/resolver.(*Cache).keep"}},
		{2e9, []string{"main.unknown"}},
	}
	assert.Equal(t, want, got)

	for _, bad := range []string{"", "File: x\nType: inuse_space\n", blockSep + "\n   12xB  main.f\n", blockSep + "\n   12\n"} {
		_, err := parseTraces(strings.NewReader(bad))
		assert.Error(t, err, "%q: want an error", bad)
	}
}

// TestPartOf: a sample goes to the first part a frame matches, from the
// allocating frame up, so that the more specific part wins (a socket's
// dial under a lookup's send is the sockets'; the answer a cache keeps is
// an answer, not the cache's question).
func TestPartOf(t *testing.T) {
	samples, err := parseTraces(strings.NewReader(traces))
	require.NoError(t, err)
	ps := parts()
	sums := classify(samples, ps)
	assert.Equal(t, map[string]float64{
		otherPart: 2e9 + 0,
		"HTTP server (connection, request, answer)":                       1.5e6,
		"DNS client: lookups in flight and the tombstones of those ended": 512e3,
		"DNS client: UDP sockets and the tombstones' queue":               768,
		answersPart: 64,
	}, sums)
	assert.Equal(t, "shared DNS cache: the questions it asks",
		partOf([]string{"github.com/mailauth/mailauth/resolver.(*cacheAsk).send", "github.com/mailauth/mailauth/resolver.(*Client).StartTTL"}, ps))
	assert.Equal(t, "contexts and timers", partOf([]string{"context.AfterFunc", "github.com/mailauth/mailauth/resolver.(*Client).startAttempts"}, ps),
		"a lookup's context hook: contexts and timers, the frame that allocated it")
	assert.Equal(t, "DNS client: lookups in flight and the tombstones of those ended",
		partOf([]string{"github.com/mailauth/mailauth/resolver.(*socket).handle"}, ps), "a socket's reply handling is the lookups', not the sockets'")
}

// TestRun: on a real heap profile of this process, what was allocated
// between the base profile and the other (a megabyte, held) is found, in
// "other", and -off and -n apply.
func TestRun(t *testing.T) {
	keep := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	t.Cleanup(func() { runtime.MemProfileRate = keep })
	dir := t.TempDir()
	base, prof := filepath.Join(dir, "base.prof"), filepath.Join(dir, "heap.prof")
	writeProfile(t, base)
	held := make([][]byte, 0, 16)
	for range 16 {
		held = append(held, make([]byte, 64<<10))
	}
	writeProfile(t, prof)
	runtime.KeepAlive(held)

	var out strings.Builder
	require.NoError(t, run(&out, prof, base, 2, 1<<20))
	got := out.String()
	other := kibOf(t, got, otherPart)
	assert.InDelta(t, 512, other, 64, "%s\nwant about 512 KiB in other: 1 MiB held, over 2", got)
	assert.InDelta(t, other-512, kibOf(t, got, "total less it"), 64, "%s\nwant the total less 1 MiB over 2", got)

	assert.Error(t, run(&out, filepath.Join(dir, "missing.prof"), "", 1, 0), "a missing profile: want an error")
}

// writeProfile writes this process's heap profile to path, after two
// collections (a heap profile is published a cycle late).
func writeProfile(t *testing.T, path string) {
	t.Helper()
	runtime.GC()
	runtime.GC()
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, pprof.Lookup("heap").WriteTo(f, 0))
	require.NoError(t, f.Close())
}

// kibOf returns the KiB run printed for name.
func kibOf(t *testing.T, table, name string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(name) + ` \| (-?[0-9.]+) \|$`).FindStringSubmatch(table)
	require.NotNil(t, m, "%s\nwant a row for %q", table, name)
	v, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	return v
}
