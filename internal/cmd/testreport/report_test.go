package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stream is a test2json stream of two packages: one passes (a fast and a
// slow test), one fails (a test with a failing subtest), and one did not
// build; a line of the go command's own is not JSON.
const stream = `{"Action":"start","Package":"example.com/a"}
{"Action":"run","Package":"example.com/a","Test":"TestFast"}
{"Action":"output","Package":"example.com/a","Test":"TestFast","Output":"=== RUN   TestFast\n"}
{"Action":"output","Package":"example.com/a","Test":"TestFast","Output":"quiet noise of a passing test\n"}
{"Action":"pass","Package":"example.com/a","Test":"TestFast","Elapsed":0.01}
{"Action":"run","Package":"example.com/a","Test":"TestSlow"}
{"Action":"pass","Package":"example.com/a","Test":"TestSlow","Elapsed":42.5}
{"Action":"output","Package":"example.com/a","Output":"ok  \texample.com/a\t42.6s\n"}
{"Action":"pass","Package":"example.com/a","Elapsed":42.6}
{"Action":"run","Package":"example.com/b","Test":"TestBroken"}
{"Action":"run","Package":"example.com/b","Test":"TestBroken/case"}
{"Action":"output","Package":"example.com/b","Test":"TestBroken/case","Output":"    b_test.go:9: the reason it broke\n"}
{"Action":"fail","Package":"example.com/b","Test":"TestBroken/case","Elapsed":1.5}
{"Action":"output","Package":"example.com/b","Test":"TestBroken","Output":"--- FAIL: TestBroken (2.00s)\n"}
{"Action":"fail","Package":"example.com/b","Test":"TestBroken","Elapsed":2}
{"Action":"run","Package":"example.com/b","Test":"TestSkipped"}
{"Action":"skip","Package":"example.com/b","Test":"TestSkipped","Elapsed":99}
{"Action":"output","Package":"example.com/b","Output":"FAIL\texample.com/b\t2.1s\n"}
{"Action":"fail","Package":"example.com/b","Elapsed":2.1}
{"ImportPath":"example.com/c","Action":"build-output","Output":"c.go:1:1: expected 'package'\n"}
{"ImportPath":"example.com/c","Action":"build-fail"}
go: warning: a line that is not JSON
`

func TestReport(t *testing.T) {
	var out bytes.Buffer
	res, err := report(strings.NewReader(stream), &out, 2)
	require.NoError(t, err)
	assert.True(t, res.failed)
	text := out.String()
	assert.Contains(t, text, "ok  \texample.com/a\t42.6s\n")
	assert.Contains(t, text, "FAIL\texample.com/b\t2.1s\n")
	assert.Contains(t, text, "the reason it broke", "a failing test's output, its subtests' included")
	assert.Contains(t, text, "--- FAIL: TestBroken")
	assert.Contains(t, text, "expected 'package'", "a package that did not build")
	assert.Contains(t, text, "go: warning: a line that is not JSON")
	assert.NotContains(t, text, "quiet noise", "a passing test's output is not repeated")
	i := strings.Index(text, "== the 2 slowest tests")
	require.GreaterOrEqual(t, i, 0, text)
	slow := text[i:]
	assert.Regexp(t, `(?s)42\.50s  example\.com/a TestSlow\n.*2\.00s  example\.com/b TestBroken \(FAIL\)\n$`, slow)
	assert.NotContains(t, slow, "TestFast", "only the 2 slowest")
	assert.NotContains(t, slow, "TestSkipped", "a skipped test took no time worth listing")
	assert.NotContains(t, slow, "TestBroken/case", "top-level tests only")
}

func TestReportPassing(t *testing.T) {
	var out bytes.Buffer
	pass := strings.SplitAfterN(stream, "\n", 10)
	res, err := report(strings.NewReader(strings.Join(pass[:9], "")), &out, 0)
	require.NoError(t, err)
	assert.False(t, res.failed)
	assert.NotContains(t, out.String(), "slowest", "-slowest 0 lists none")
}

// FuzzReport: any input is read without a panic, and a stream that has
// no fail in it is not a failure.
func FuzzReport(f *testing.F) {
	f.Add(stream)
	f.Add(`{"Action":"fail","Package":"p"}`)
	f.Add(`{"Action":"output","Package":"p","Test":"T/x","Output":"y"}` + "\n" + `{"Action":"pass","Package":"p","Test":"T"}`)
	f.Add("{not json\n\n{}")
	f.Fuzz(func(t *testing.T, in string) {
		var out bytes.Buffer
		res, err := report(strings.NewReader(in), &out, 3)
		if err != nil {
			return // a line longer than the scanner's buffer
		}
		if res.failed {
			assert.Contains(t, in, "fail")
		}
	})
}
