package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mailauth/mailauth"
)

// renderOptions say how a report is printed.
type renderOptions struct {
	lang    string // "zh" or "en"
	color   bool   // ANSI colours
	verbose bool   // each check's details too
	width   int    // columns the details wrap at; 0 means defaultWidth
	remote  bool   // the result came from a service (-server)
}

// ANSI styles.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

// labels are the fixed words of the report, per language.
var labels = map[string]map[string]string{
	"en": {
		"scanHead": "Mail authentication report for %s",
		"ptrHead":  "Sending IP check for %s",
		"grade":    "Grade %s, score %d/100",
		"noGrade":  "No grade: %d of the %d evaluated checks could not be determined",
		"nxGrade":  "No grade: the name does not exist",
		"covers":   "The score covers %d of the %d evaluated checks (the others could not be determined)",
		"counts":   "%d pass, %d warn, %d fail, %d info",
		"selector": "DKIM selector: %s",
		"ip":       "Sending IP: %s",
		"pass":     "PASS", "warn": "WARN", "fail": "FAIL", "info": "INFO",
		"sep":    ": ",
		"cached": "Answers may be up to 5 minutes old: the service caches DNS, so a rescan right after a fix may still see the old record.",
	},
	"zh": {
		"scanHead": "邮件认证检查报告：%s",
		"ptrHead":  "发信 IP 检查：%s",
		"grade":    "等级 %s，得分 %d/100",
		"noGrade":  "无法评级：参与评估的 %[2]d 项检查中，有 %[1]d 项无法确定",
		"nxGrade":  "没有等级：该名称不存在",
		"covers":   "得分只涵盖参与评估的 %[2]d 项检查中的 %[1]d 项（其余无法确定）",
		"counts":   "通过 %d，警告 %d，失败 %d，信息 %d",
		"selector": "DKIM 选择器：%s",
		"ip":       "发信 IP：%s",
		"pass":     "通过", "warn": "警告", "fail": "失败", "info": "信息",
		"sep":    "：",
		"cached": "应答可能是最多 5 分钟前的：服务会缓存 DNS，修复后立即重新检查可能仍看到旧的记录。",
	},
}

// printer writes one report.
type printer struct {
	w io.Writer
	o renderOptions
}

func (p printer) word(key string) string {
	if m, ok := labels[p.o.lang]; ok {
		return m[key]
	}
	return labels["en"][key]
}

// text is the report language's side of t, without control characters.
func (p printer) text(t mailauth.LocalizedText) string {
	return cleanText(p.raw(t))
}

// raw is the report language's side of t as it came.
func (p printer) raw(t mailauth.LocalizedText) string {
	if p.o.lang == "zh" {
		return t.ZH
	}
	return t.EN
}

// isControl reports whether r is a C0 control, DEL or a C1 control: the
// characters a terminal may act on (ESC starts colour, cursor and title
// sequences; U+009B is a one-character CSI), U+FFFD, which stands for
// bytes that are not UTF-8 (a lone 0x9B is CSI to an 8-bit terminal),
// or a bidirectional formatting character (U+061C, U+200E, U+200F,
// U+202A–U+202E, U+2066–U+2069), which reorders what the terminal shows
// so that a record reads other than it is.
func isControl(r rune) bool {
	return r < 0x20 || r >= 0x7f && r <= 0x9f || r == utf8.RuneError || isBidiControl(r)
}

// isBidiControl reports a bidirectional formatting character.
func isBidiControl(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// cleanText replaces every control character of s (see isControl) with
// U+FFFD, so that text from a report, which may come from a remote
// service, cannot drive the terminal. Every text the report prints passes
// through it; the report's own ANSI styles are added afterwards.
func cleanText(s string) string {
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return utf8.RuneError
		}
		return r
	}, s)
}

func (p printer) style(s, code string) string {
	if !p.o.color || code == "" {
		return s
	}
	return code + s + ansiReset
}

func (p printer) line(format string, args ...any) {
	fmt.Fprintf(p.w, format+"\n", args...)
}

// renderScan prints a scan report: heading, grade and score, the overall
// summary, one line per check (with details when verbose), the disclaimer.
func renderScan(w io.Writer, s mailauth.ScanSummary, o renderOptions) {
	p := printer{w, o}
	name := cleanText(s.Domain)
	if s.UnicodeDomain != "" && s.UnicodeDomain != s.Domain {
		name = cleanText(s.UnicodeDomain) + " (" + name + ")"
	}
	for _, l := range wrap(fmt.Sprintf(p.word("scanHead"), name), p.width(), "") {
		p.line("%s", p.style(l, ansiBold))
	}
	if s.DKIMSelector != nil {
		p.line(p.word("selector"), cleanText(*s.DKIMSelector))
	}
	if s.SendingIP != nil {
		p.line(p.word("ip"), cleanText(*s.SendingIP))
	}
	p.grade(s)
	p.line(p.word("counts"), s.Counts.Pass, s.Counts.Warn, s.Counts.Fail, s.Counts.Info)
	p.wrapped(p.raw(s.Summary), "")
	if p.o.verbose && p.o.remote {
		p.wrapped(p.word("cached"), "")
	}
	p.line("")
	for _, c := range s.Checks {
		p.check(c)
	}
	p.disclaimer(s.Disclaimer)
}

// disclaimer prints the closing disclaimer wrapped at the report's width.
func (p printer) disclaimer(t mailauth.LocalizedText) {
	p.line("")
	for _, l := range wrap(p.text(t), p.width(), "") {
		p.line("%s", p.style(l, ansiDim))
	}
}

// width is the report's wrapping width.
func (p printer) width() int {
	if p.o.width <= 0 {
		return defaultWidth
	}
	return p.o.width
}

// grade prints the grade and score, and how many checks the score
// covers when some could not be determined. An incomplete result gets no
// grade at all: its own summary says the grade would mean nothing (the
// service answers it 500).
func (p printer) grade(s mailauth.ScanSummary) {
	evaluated, undetermined := determinedCounts(s)
	if mailauth.Nonexistent(s) {
		p.line("%s", p.word("nxGrade"))
		return
	}
	if s.Incomplete() {
		p.line(p.word("noGrade"), undetermined, evaluated)
		return
	}
	grade := p.style(cleanText(string(s.Grade)), ansiBold+gradeColor(s.Grade))
	p.line(p.word("grade"), grade, s.Score)
	if undetermined > 0 {
		p.line(p.word("covers"), evaluated-undetermined, evaluated)
	}
}

// determinedCounts returns how many checks of s were evaluated (not
// info) and how many of those could not be determined.
func determinedCounts(s mailauth.ScanSummary) (evaluated, undetermined int) {
	for _, c := range s.Checks {
		if c.Status == mailauth.StatusInfo {
			continue
		}
		evaluated++
		if c.Undetermined() {
			undetermined++
		}
	}
	return evaluated, undetermined
}

// renderPtr prints a sending-IP report.
func renderPtr(w io.Writer, s mailauth.PTRCheckSummary, o renderOptions) {
	p := printer{w, o}
	p.line("%s", p.style(fmt.Sprintf(p.word("ptrHead"), cleanText(s.SendingIP)), ansiBold))
	p.line("")
	p.check(s.Check)
	p.disclaimer(s.Disclaimer)
}

// check prints one check: status word, title, summary, wrapped at the
// report's width with a hanging indent under the title; details indented
// below when verbose.
func (p printer) check(c mailauth.CheckSummary) {
	word := cleanText(p.word(string(c.Status)))
	hang := strings.Repeat(" ", textWidth("  "+word+"  "))
	title := p.text(c.Title)
	lines := wrap(title+p.word("sep")+p.text(c.Summary), p.width(), hang)
	for i, l := range lines {
		if i == 0 {
			l = strings.TrimPrefix(l, hang)
			if rest, ok := strings.CutPrefix(l, title); ok {
				l = p.style(title, ansiBold) + rest
			}
			l = "  " + p.style(word, statusColor(c.Status)) + "  " + l
		}
		p.line("%s", l)
	}
	if !p.o.verbose {
		return
	}
	p.wrapped(p.raw(c.Details), detailsIndent)
}

// wrapped prints text (raw, from the service or the scanner) wrapped at
// the report's width, each line after indent, each "\n" a new paragraph.
func (p printer) wrapped(text, indent string) {
	width := p.width()
	for _, para := range strings.Split(text, "\n") {
		for _, l := range wrap(cleanText(para), width, indent) {
			p.line("%s", l)
		}
	}
}

// detailsIndent starts every line of a check's details.
const detailsIndent = "        "

// statusColor is the colour of a status word.
func statusColor(s mailauth.Status) string {
	switch s {
	case mailauth.StatusPass:
		return ansiGreen
	case mailauth.StatusWarn:
		return ansiYellow
	case mailauth.StatusFail:
		return ansiRed
	}
	return ansiCyan
}

// gradeColor is the colour of a grade letter.
func gradeColor(g mailauth.Grade) string {
	switch g {
	case mailauth.GradeA, mailauth.GradeB:
		return ansiGreen
	case mailauth.GradeC, mailauth.GradeD:
		return ansiYellow
	}
	return ansiRed
}
