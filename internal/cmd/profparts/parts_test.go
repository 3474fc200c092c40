package main

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

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
	k, got, err := parseTraces(strings.NewReader(traces))
	require.NoError(t, err)
	assert.Equal(t, bytesKind, k, "Type: inuse_space: want bytes")
	want := []sample{
		{0, []string{"runtime/pprof.writeHeapInternal", "main.main"}},
		{1.5e6, []string{"bufio.NewWriterSize", "net/http.newBufioWriterSize", "net/http.(*conn).serve"}},
		{512e3, []string{"github.com/mailauth/mailauth/resolver.newWaiter", "github.com/mailauth/mailauth/resolver.(*Client).newLookup"}},
		{768, []string{"github.com/mailauth/mailauth/resolver.(*upstream).dial", "github.com/mailauth/mailauth/resolver.(*upstream).register", "github.com/mailauth/mailauth/resolver.(*Client).send"}},
		{64, []string{"github.com/mailauth/mailauth/resolver.cloneAnswer", "github.com/mailauth/mailauth/resolver.(*Cache).keep"}},
		{2e9, []string{"main.unknown"}},
	}
	assert.Equal(t, want, got)

	k, got, err = parseTraces(strings.NewReader(cpuTraces))
	require.NoError(t, err)
	assert.Equal(t, timeKind, k, "Type: cpu: want time")
	assert.Equal(t, []sample{
		{0.01, []string{"runtime.futex", "runtime.findRunnable", "runtime.schedule"}},
		{1.5, []string{"crypto/internal/fips140/nistec.p256MulInternal", "crypto/tls.(*Conn).clientHandshake"}},
		{250e-6, []string{"main.f"}},
	}, got)

	const typed = "Type: inuse_space\n" + blockSep + "\n"
	for _, bad := range []string{"", "File: x\nType: inuse_space\n", typed + "   12xB  main.f\n", typed + "   12\n",
		blockSep + "\n   12  main.f\n", "Type: goroutine\n" + blockSep + "\n   12  main.f\n", "Type: cpu\n" + blockSep + "\n   12  main.f\n",
		"Type: cpu\n" + blockSep + "\n   12kB  main.f\n"} {
		_, _, err := parseTraces(strings.NewReader(bad))
		assert.Error(t, err, "%q: want an error", bad)
	}
}

// cpuTraces is what `go tool pprof -traces` prints for a CPU profile.
const cpuTraces = `File: bench
Type: cpu
Time: 2026-11-30 16:20:23 UTC
Duration: 5.10s, Total samples = 6.72s (131.72%)
-----------+-------------------------------------------------------
      10ms   runtime.futex
             runtime.findRunnable
             runtime.schedule
-----------+-------------------------------------------------------
      1.50s   crypto/internal/fips140/nistec.p256MulInternal
             crypto/tls.(*Conn).clientHandshake
-----------+-------------------------------------------------------
     250µs   main.f
`

// TestPartOf: a sample goes to the first part a frame matches, from the
// allocating frame up, so that the more specific part wins (a socket's
// dial under a lookup's send is the sockets'; the answer a cache keeps is
// an answer, not the cache's question).
func TestPartOf(t *testing.T) {
	_, samples, err := parseTraces(strings.NewReader(traces))
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
	_, samples, err = parseTraces(strings.NewReader(cpuTraces))
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"scheduler and network poller": 0.01, "MTA-STS policy fetch (TLS handshake, HTTP GET)": 1.5, otherPart: 250e-6},
		classify(samples, ps), "a CPU profile: the frame on the CPU first, then down its stack")
	assert.Equal(t, "analytics (keyed hashes, SQLite)",
		partOf([]string{"crypto/internal/fips140/sha256.(*Digest).Write", "crypto/hmac.New", "github.com/mailauth/mailauth/internal/keyed.Sum", "github.com/mailauth/mailauth/analytics.(*Hasher).Row"}, ps),
		"a keyed hash is the analytics', not the TLS handshake's")
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
	other := figureOf(t, got, otherPart)
	assert.InDelta(t, 512, other, 64, "%s\nwant about 512 KiB in other: 1 MiB held, over 2", got)
	assert.InDelta(t, other-512, figureOf(t, got, "total less it"), 64, "%s\nwant the total less 1 MiB over 2", got)

	assert.Error(t, run(&out, filepath.Join(dir, "missing.prof"), "", 1, 0), "a missing profile: want an error")
	for _, bad := range []struct{ n, off float64 }{{0, 0}, {-1, 0}, {math.NaN(), 0}, {math.Inf(1), 0}, {2, math.NaN()}, {2, math.Inf(-1)}} {
		out.Reset()
		assert.Error(t, run(&out, prof, base, bad.n, bad.off), "-n %v -off %v: want an error", bad.n, bad.off)
		assert.Empty(t, out.String(), "-n %v -off %v: want nothing written", bad.n, bad.off)
	}

	// A path that begins with "-" is read as a path, not taken for one
	// of pprof's flags.
	t.Chdir(dir)
	require.NoError(t, os.Rename(prof, "-heap.prof"))
	out.Reset()
	require.NoError(t, run(&out, "-heap.prof", base, 2, 0))
	assert.InDelta(t, 512, figureOf(t, out.String(), otherPart), 64, "%s\na path that begins with -", out.String())

	// A CPU profile of this process: its parts add up to its total, in
	// ms, with their shares.
	cpu := filepath.Join(dir, "cpu.prof")
	f, err := os.Create(cpu)
	require.NoError(t, err)
	require.NoError(t, pprof.StartCPUProfile(f))
	sum := 0
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
		sum += spin()
	}
	runtime.KeepAlive(sum)
	pprof.StopCPUProfile()
	require.NoError(t, f.Close())
	out.Reset()
	require.NoError(t, run(&out, cpu, "", 1, 0))
	assert.Contains(t, out.String(), "| part | ms | share |", "a CPU profile: want ms and shares")
	assert.Greater(t, figureOf(t, out.String(), "total"), 0.0, "%s\na CPU profile of 300 ms spinning: want a total", out.String())
	assert.Error(t, run(&out, cpu, "", 1, 1<<20), "-off on a CPU profile: want an error")
	assert.Error(t, run(&out, cpu, base, 1, 0), "a CPU profile against a heap profile: want an error")
}

// spin burns a little CPU where the profiler can see it.
//
//go:noinline
func spin() int {
	x := 0
	for i := range 1 << 16 {
		x += i * i
	}
	return x
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

// figureOf returns the figure run printed for name (KiB or ms).
func figureOf(t *testing.T, table, name string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(name) + ` \| (-?[0-9.]+) \|`).FindStringSubmatch(table)
	require.NotNil(t, m, "%s\nwant a row for %q", table, name)
	v, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	return v
}
