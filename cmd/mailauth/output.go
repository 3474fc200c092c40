package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mailauth/mailauth"
)

// output prints the results of one run in the chosen -format: reports
// separated by a blank line; the API's JSON (a JSON array of the results
// when the run has several); or CSV, one header and one row per check.
type output struct {
	w     io.Writer
	c     clientFlags
	multi bool     // several results: a JSON array, blank lines between reports
	head  []string // the CSV header
	n     int      // results written
	csv   *csv.Writer
	seen  []overviewRow
}

// overviewRow is one domain of a run, for the overview of a text run
// with several domains: its summary, or the exit code of its failure.
type overviewRow struct {
	domain string
	sum    mailauth.ScanSummary
	failed int // the exit code when the domain was not scanned
}

// CSV headers: one row per check; with -format csv-domains one row per
// domain.
var (
	domainCSVHeader = []string{"domain", "exists", "grade", "score", "pass", "warn", "fail", "info",
		"worst_check", "worst_status", "worst_severity", "worst_summary"}
	scanCSVHeader = []string{"domain", "grade", "score", "check", "status", "severity", "summary", "details"}
	ptrCSVHeader  = []string{"sending_ip", "check", "status", "severity", "summary", "details"}
)

func newOutput(w io.Writer, c clientFlags, multi bool, head []string) *output {
	return &output{w: w, c: c, multi: multi, head: head}
}

// options are the render options of a text report.
func (o *output) options() renderOptions {
	return renderOptions{lang: o.c.lang, color: o.c.color, verbose: o.c.verbose, width: o.c.width, remote: o.c.server != ""}
}

// write prints one result: raw is its API JSON, render prints its
// report, rows gives its CSV rows.
func (o *output) write(raw []byte, render func(renderOptions), rows func() [][]string) {
	defer func() { o.n++ }()
	switch o.c.format {
	case formatJSON:
		o.writeJSON(raw)
	case formatCSV, formatCSVDomains:
		if o.csv == nil {
			o.csv = csv.NewWriter(o.w)
			_ = o.csv.Write(o.head) // errors surface in Flush
		}
		_ = o.csv.WriteAll(rows())
	default:
		if o.n > 0 {
			_, _ = io.WriteString(o.w, "\n")
		}
		render(o.options())
	}
}

// writeJSON prints raw as it is, or as an element of the run's array.
func (o *output) writeJSON(raw []byte) {
	if !o.multi {
		_, _ = o.w.Write(raw)
		return
	}
	sep := "[\n"
	if o.n > 0 {
		sep = ",\n"
	}
	_, _ = io.WriteString(o.w, sep)
	_, _ = o.w.Write(bytes.TrimRight(raw, "\n"))
}

// finish ends the run's output: it closes the JSON array (an empty one
// when no result was printed) and flushes the CSV.
func (o *output) finish() {
	switch {
	case o.c.format == formatJSON && o.multi && o.n == 0:
		_, _ = io.WriteString(o.w, "[]\n")
	case o.c.format == formatJSON && o.multi:
		_, _ = io.WriteString(o.w, "\n]\n")
	case o.csv != nil:
		o.csv.Flush()
	}
}

// note records one domain of the run for the overview.
func (o *output) note(domain string, s mailauth.ScanSummary, failed int) {
	o.seen = append(o.seen, overviewRow{domain: domain, sum: s, failed: failed})
}

// overviewWords are the fixed words of the overview, per language.
var overviewWords = map[string]map[string]string{
	"en": {"head": "Overview (%d domains)", "nx": "does not exist", "nograde": "no grade",
		"error": "not scanned (exit %d, see above)", "grade": "%s %d/100", "counts": "%d fail, %d warn", "worst": "worst: %s %s"},
	"zh": {"head": "总览（%d 个域名）", "nx": "不存在", "nograde": "无法评级",
		"error": "未检查（退出码 %d，见上文）", "grade": "%s %d/100", "counts": "失败 %d，警告 %d", "worst": "最严重：%s %s"},
}

// overview ends a text run of several domains with one line per domain:
// the domain, its grade and score, its fail and warn counts and its
// worst finding's check.
func (o *output) overview(w io.Writer) {
	if o.c.format != formatText || len(o.seen) < 2 {
		return
	}
	words := overviewWords["en"]
	if o.c.lang == "zh" {
		words = overviewWords["zh"]
	}
	p := printer{w, o.options()}
	p.line("")
	p.line("%s", p.style(fmt.Sprintf(words["head"], len(o.seen)), ansiBold))
	for _, r := range o.seen {
		name := cleanText(r.domain)
		var what string
		switch s := r.sum; {
		case r.failed != 0:
			what = fmt.Sprintf(words["error"], r.failed)
		case mailauth.Nonexistent(s):
			what = words["nx"]
		default:
			name = cleanText(s.Domain)
			if s.UnicodeDomain != "" && s.UnicodeDomain != s.Domain {
				name = cleanText(s.UnicodeDomain)
			}
			what = fmt.Sprintf(words["grade"], cleanText(string(s.Grade)), s.Score)
			if s.Incomplete() {
				what = words["nograde"]
			}
			what += ", " + fmt.Sprintf(words["counts"], s.Counts.Fail, s.Counts.Warn)
			if c, ok := worstCheck(s); ok {
				what += ", " + fmt.Sprintf(words["worst"], cleanText(string(c.ID)), p.word(string(c.Status)))
			}
		}
		for i, l := range wrap(name+"  "+what, p.width(), "    ") {
			if i == 0 {
				l = "  " + strings.TrimPrefix(l, "    ")
			}
			p.line("%s", l)
		}
	}
}

// worstCheck is the check of s most in need of a fix: a fail before a
// warn, then the higher severity, then the contract's order.
func worstCheck(s mailauth.ScanSummary) (mailauth.CheckSummary, bool) {
	rank := map[mailauth.Status]int{mailauth.StatusFail: 2, mailauth.StatusWarn: 1}
	sev := map[mailauth.Severity]int{mailauth.SeverityCritical: 4, mailauth.SeverityHigh: 3, mailauth.SeverityMedium: 2, mailauth.SeverityLow: 1}
	best, found := mailauth.CheckSummary{}, false
	for _, c := range s.Checks {
		if rank[c.Status] == 0 {
			continue
		}
		if !found || rank[c.Status] > rank[best.Status] || rank[c.Status] == rank[best.Status] && sev[c.Severity] > sev[best.Severity] {
			best, found = c, true
		}
	}
	return best, found
}

// domainCSVRow is the one row of a scan with -format csv-domains.
func domainCSVRow(s mailauth.ScanSummary, lang string) []string {
	exists, grade, score := "yes", cleanText(string(s.Grade)), strconv.Itoa(s.Score)
	switch {
	case mailauth.Nonexistent(s):
		exists, grade, score = "no", "nonexistent", ""
	case s.Incomplete():
		grade, score = "", ""
	}
	row := []string{cleanText(s.Domain), exists, grade, score, strconv.Itoa(s.Counts.Pass), strconv.Itoa(s.Counts.Warn),
		strconv.Itoa(s.Counts.Fail), strconv.Itoa(s.Counts.Info), "", "", "", ""}
	if c, ok := worstCheck(s); ok && !mailauth.Nonexistent(s) {
		copy(row[8:], []string{cleanText(string(c.ID)), cleanText(string(c.Status)), cleanText(string(c.Severity)), localized(c.Summary, lang)})
	}
	return row
}

// localized is the -lang side of t, without control characters.
func localized(t mailauth.LocalizedText, lang string) string {
	if lang == "zh" {
		return cleanText(t.ZH)
	}
	return cleanText(t.EN)
}

// scanCSVRows are the CSV rows of a scan: one per check.
func scanCSVRows(s mailauth.ScanSummary, lang string) [][]string {
	rows := make([][]string, 0, len(s.Checks))
	grade, score := cleanText(string(s.Grade)), strconv.Itoa(s.Score)
	switch {
	case mailauth.Nonexistent(s):
		grade, score = "nonexistent", "" // the name does not exist: no grade at all
	case s.Incomplete():
		grade, score = "", "" // no grade to trust (the service answers 500)
	}
	for _, c := range s.Checks {
		rows = append(rows, []string{cleanText(s.Domain), grade, score, cleanText(string(c.ID)),
			cleanText(string(c.Status)), cleanText(string(c.Severity)), localized(c.Summary, lang), localized(c.Details, lang)})
	}
	return rows
}

// ptrCSVRows are the CSV rows of a sending-IP check: one.
func ptrCSVRows(s mailauth.PTRCheckSummary, lang string) [][]string {
	c := s.Check
	return [][]string{{cleanText(s.SendingIP), cleanText(string(c.ID)), cleanText(string(c.Status)), cleanText(string(c.Severity)),
		localized(c.Summary, lang), localized(c.Details, lang)}}
}

// prefixWriter writes prefix before each write (each message): the
// errors of one domain among several name it.
type prefixWriter struct {
	w      io.Writer
	prefix string
}

func (p prefixWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, p.prefix); err != nil {
		return 0, err
	}
	return p.w.Write(b)
}

// helpOutput is where a command's flag set prints: standard error, except
// that the usage asked for with -h goes to standard output.
func helpOutput(std stdio) io.Writer { return cliOutput{err: std.err, help: std.out} }

// cliOutput is the output of a flag set: errors and usage after an error
// go to err, requested help to help (see parseInterspersed).
type cliOutput struct {
	err, help io.Writer
}

func (c cliOutput) Write(b []byte) (int, error) { return c.err.Write(b) }
