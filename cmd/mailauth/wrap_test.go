package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/httpapi"
)

// columns is the display width of s (wide characters take two).
func columns(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

// TestWrapEnglish: words wrap at the width, every line indented, no word
// broken, nothing lost.
func TestWrapEnglish(t *testing.T) {
	s := "Evaluating the SPF record takes 12 DNS lookups, more than the limit of 10, so receivers treat it as a permanent error."
	lines := wrap(s, 40, "    ")
	require.Greater(t, len(lines), 2)
	for _, l := range lines {
		assert.LessOrEqual(t, columns(l), 40, l)
		assert.True(t, strings.HasPrefix(l, "    ") && !strings.HasPrefix(l, "     "), l)
	}
	var words []string
	for _, l := range lines {
		words = append(words, strings.Fields(l)...)
	}
	assert.Equal(t, strings.Fields(s), words)
	assert.Equal(t, []string{"    Evaluating the SPF record takes 12", "    DNS lookups, more than the limit of"}, lines[:2])
}

// TestWrapChinese: Chinese text, which has no spaces, wraps between
// characters at the width (each character two columns), never puts a
// full-width comma or stop at the start of a line, and loses nothing.
func TestWrapChinese(t *testing.T) {
	s := "评估 SPF 需要 12 次 DNS 查询，超过了 10 次的上限，接收方会将其视为永久错误（permerror）。记录中第一个有问题的是第 3 个标签。"
	for _, width := range []int{20, 24, 31, 40} {
		lines := wrap(s, width, "  ")
		require.Greater(t, len(lines), 1, "width %d", width)
		var joined strings.Builder
		for i, l := range lines {
			assert.LessOrEqual(t, columns(l), width, "width %d line %d %q", width, i, l)
			body := strings.TrimPrefix(l, "  ")
			assert.False(t, strings.HasPrefix(body, "，") || strings.HasPrefix(body, "。") || strings.HasPrefix(body, "）"), "width %d line %q", width, l)
			joined.WriteString(body)
		}
		assert.Equal(t, strings.ReplaceAll(s, " ", ""), strings.ReplaceAll(joined.String(), " ", ""), "width %d", width)
	}
	assert.Equal(t, []string{"评估 SPF 需要 12 次", "DNS 查询，超过了 10"}, wrap(s, 20, "")[:2])
}

// TestWrapLongWord: a word longer than the line stands alone.
func TestWrapLongWord(t *testing.T) {
	assert.Equal(t, []string{"> a", "> " + strings.Repeat("x", 30), "> b"}, wrap("a "+strings.Repeat("x", 30)+" b", 10, "> "))
	assert.Empty(t, wrap("   ", 10, ""))
}

// TestTerminalWidth: -width wins, then the terminal's size, then
// COLUMNS, then 80; tiny widths are raised to the minimum.
func TestTerminalWidth(t *testing.T) {
	cols := func(n int) func() int { return func() int { return n } }
	columns60 := mapEnv(map[string]string{"COLUMNS": "60"})
	assert.Equal(t, 100, terminalWidth(100, cols(120), columns60), "-width first")
	assert.Equal(t, 120, terminalWidth(0, cols(120), columns60), "then the terminal")
	assert.Equal(t, 60, terminalWidth(0, cols(0), columns60), "then COLUMNS (not a terminal)")
	assert.Equal(t, 60, terminalWidth(0, nil, columns60), "then COLUMNS (no size function)")
	assert.Equal(t, defaultWidth, terminalWidth(0, cols(0), mapEnv(map[string]string{"COLUMNS": "wide"})))
	assert.Equal(t, defaultWidth, terminalWidth(0, nil, mapEnv(nil)))
	assert.Equal(t, minWidth, terminalWidth(5, nil, mapEnv(nil)))
	assert.Equal(t, minWidth, terminalWidth(0, cols(8), columns60), "a tiny terminal is raised too")
}

// TestScanWrapsAtTerminal: `scan -v` asks the terminal standard output is
// for its width (the injected size function) before COLUMNS, and -width
// beats both.
func TestScanWrapsAtTerminal(t *testing.T) {
	t.Parallel()
	srv := service(t, &fakeService{}, httpapi.Options{})
	scan := func(cols int, args ...string) string {
		var out, errOut strings.Builder
		args = append([]string{"scan", "-v", "-server", srv.URL}, append(args, "example.com")...)
		code := run(t.Context(), args, mapEnv(map[string]string{"COLUMNS": "200"}),
			stdio{out: &out, err: &errOut, tty: true, cols: func() int { return cols }})
		require.Equal(t, exitFail, code, "stderr %q", errOut.String())
		return out.String()
	}
	widest := func(report string) int {
		w := 0
		for _, l := range strings.Split(report, "\n") {
			if strings.HasPrefix(l, detailsIndent) {
				w = max(w, columns(l))
			}
		}
		return w
	}
	unwrapped := widest(scan(0)) // not a terminal: COLUMNS=200
	require.Greater(t, unwrapped, 26, "the sample's details are long enough to wrap")
	assert.LessOrEqual(t, widest(scan(26)), 26, "the terminal's 26 columns")
	assert.Greater(t, widest(scan(26)), 20, "the details fill the line")
	assert.LessOrEqual(t, widest(scan(120, "-width", "22")), 22, "-width beats the terminal")
}

// TestRenderWrapsDetails: -v details wrap at the given width in both
// languages.
func TestRenderWrapsDetails(t *testing.T) {
	s := sampleScan()
	s.Checks[1].Details = lt(strings.Repeat("这是一段很长的中文说明，没有空格。", 6), strings.Repeat("This is a long English explanation. ", 6))
	for _, lang := range []string{"en", "zh"} {
		var b strings.Builder
		renderScan(&b, s, renderOptions{lang: lang, verbose: true, width: 40})
		n := 0
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(l, detailsIndent) {
				n++
				assert.LessOrEqual(t, columns(l), 40, "%s: %q", lang, l)
			}
		}
		assert.Greater(t, n, len(s.Checks)+2, "%s: the long details take several lines", lang)
	}
}

// TestRenderWrapsSummary: the overall summary wraps at the width like the
// details, in both languages, and loses nothing.
func TestRenderWrapsSummary(t *testing.T) {
	s := sampleScan()
	s.Summary = lt(strings.Repeat("这是一段很长的总体结论，没有空格。", 5), strings.Repeat("This is a long overall summary of the scan. ", 5))
	for _, lang := range []string{"en", "zh"} {
		render := func(width int) []string {
			var b strings.Builder
			renderScan(&b, s, renderOptions{lang: lang, width: width})
			return strings.Split(b.String(), "\n")
		}
		wide, narrow := render(1000), render(40)
		want := s.Summary.EN
		if lang == "zh" {
			want = s.Summary.ZH
		}
		at := slices.Index(wide, strings.TrimSpace(want))
		require.GreaterOrEqual(t, at, 0, "%s: one summary line at width 1000:\n%s", lang, strings.Join(wide, "\n"))
		atN := slices.IndexFunc(narrow, func(l string) bool { return l != "" && strings.HasPrefix(want, l[:min(len(l), 12)]) })
		require.GreaterOrEqual(t, atN, 0, "%s: the summary at width 40:\n%s", lang, strings.Join(narrow, "\n"))
		end := atN + slices.Index(narrow[atN:], "")
		summary := narrow[atN:end]
		assert.Greater(t, len(summary), 2, "%s: the summary takes several lines", lang)
		for _, l := range summary {
			assert.LessOrEqual(t, columns(l), 40, "%s: %q", lang, l)
		}
		sep := " "
		if lang == "zh" {
			sep = ""
		}
		assert.Equal(t, strings.Join(strings.Fields(want), sep), strings.Join(strings.Fields(strings.Join(summary, sep)), sep), "%s: nothing lost", lang)
		heads := func(ls []string) int {
			n := 0
			for _, l := range ls {
				if strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, detailsIndent) {
					n++
				}
			}
			return n
		}
		assert.Equal(t, heads(wide[at+1:]), heads(narrow[end:]), "%s: one line starts each check at any width", lang)
		for _, l := range narrow[end:] {
			assert.LessOrEqual(t, columns(l), 40, "%s: %q", lang, l)
		}
	}
}
