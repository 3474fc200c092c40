package main

import (
	"bytes"
	"encoding/csv"
	"io"
	"strconv"

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
}

// CSV headers: one row per check.
var (
	scanCSVHeader = []string{"domain", "grade", "score", "check", "status", "severity", "summary", "details"}
	ptrCSVHeader  = []string{"sending_ip", "check", "status", "severity", "summary", "details"}
)

func newOutput(w io.Writer, c clientFlags, multi bool, head []string) *output {
	return &output{w: w, c: c, multi: multi, head: head}
}

// options are the render options of a text report.
func (o *output) options() renderOptions {
	return renderOptions{lang: o.c.lang, color: o.c.color, verbose: o.c.verbose, width: o.c.width}
}

// write prints one result: raw is its API JSON, render prints its
// report, rows gives its CSV rows.
func (o *output) write(raw []byte, render func(renderOptions), rows func() [][]string) {
	defer func() { o.n++ }()
	switch o.c.format {
	case formatJSON:
		o.writeJSON(raw)
	case formatCSV:
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
