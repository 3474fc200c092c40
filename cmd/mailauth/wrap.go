package main

import (
	"strconv"
	"strings"
	"unicode"
)

// Terminal width (product choices): the details of -v wrap at the width
// of -width, else of the terminal standard output is (when it is one),
// else of the COLUMNS variable, else defaultWidth; a width below minWidth
// is raised to it so that the indented text keeps room.
const (
	defaultWidth = 80
	minWidth     = 20
)

// terminalWidth is the wrapping width: flag (when positive), else what
// cols reports (the terminal's columns; 0 when standard output is not a
// terminal, and cols may be nil), else COLUMNS (when it is a positive
// integer), else defaultWidth.
func terminalWidth(flag int, cols func() int, getenv env) int {
	w := flag
	if w <= 0 && cols != nil {
		w = cols()
	}
	if w <= 0 {
		if n, err := strconv.Atoi(strings.TrimSpace(getenv("COLUMNS"))); err == nil && n > 0 {
			w = n
		}
	}
	if w <= 0 {
		w = defaultWidth
	}
	return max(w, minWidth)
}

// wrap breaks s into lines of at most width columns after indent (which
// prefixes every line), at spaces and, in Chinese, Japanese or Korean
// text, between any two wide characters. A wide character takes two
// columns. Punctuation that must not open a line (，。）, .) stays with
// what precedes it, and an opening bracket with what follows. A word
// longer than the line stands alone on its line.
func wrap(s string, width int, indent string) []string {
	avail := max(width-len(indent), 1)
	var lines []string
	var line strings.Builder
	lineW := 0
	for _, u := range breakUnits(s) {
		need := u.width
		if lineW > 0 && u.space {
			need++
		}
		if lineW > 0 && lineW+need > avail {
			lines = append(lines, indent+line.String())
			line.Reset()
			lineW, need = 0, u.width
		}
		if lineW > 0 && u.space {
			line.WriteByte(' ')
		}
		line.WriteString(u.text)
		lineW += need
	}
	if lineW > 0 {
		lines = append(lines, indent+line.String())
	}
	return lines
}

// unit is text that is never broken, with its width in columns and
// whether a space separates it from the unit before.
type unit struct {
	text  string
	width int
	space bool
}

// breakUnits splits s at its break opportunities: runs of white space,
// and the boundary on either side of a wide character, except before
// punctuation that may not open a line and after one that may not close
// it.
func breakUnits(s string) []unit {
	var out []unit
	space := false
	var last rune
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		w := runeWidth(r)
		glue := len(out) > 0 && !space &&
			(!isWide(r) && !isWide(last) || noLineStart(r) || noLineEnd(last))
		if glue {
			u := &out[len(out)-1]
			u.text += string(r)
			u.width += w
		} else {
			out = append(out, unit{text: string(r), width: w, space: space && len(out) > 0})
		}
		space, last = false, r
	}
	return out
}

// textWidth is the number of terminal columns s takes.
func textWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

// runeWidth is the number of terminal columns r takes.
func runeWidth(r rune) int {
	if isWide(r) {
		return 2
	}
	return 1
}

// isWide reports an East Asian wide or full-width character: CJK
// ideographs, kana, Hangul, CJK punctuation and full-width forms.
func isWide(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r <= 0x115f, // Hangul Jamo
		r >= 0x2e80 && r <= 0xa4cf, // CJK radicals … Yi, with CJK punctuation and kana
		r >= 0xac00 && r <= 0xd7a3, // Hangul syllables
		r >= 0xf900 && r <= 0xfaff, // CJK compatibility ideographs
		r >= 0xfe30 && r <= 0xfe4f, // CJK compatibility forms
		r >= 0xff00 && r <= 0xff60, // full-width forms
		r >= 0xffe0 && r <= 0xffe6,
		r >= 0x20000 && r <= 0x3fffd: // CJK extensions
		return true
	}
	return false
}

// noLineStart reports punctuation that must not begin a line.
func noLineStart(r rune) bool {
	return strings.ContainsRune("，。、；：？！）」』】》〉”’・…%,.;:!?)]}", r)
}

// noLineEnd reports punctuation that must not end a line.
func noLineEnd(r rune) bool {
	return strings.ContainsRune("（「『【《〈“‘([{", r)
}
