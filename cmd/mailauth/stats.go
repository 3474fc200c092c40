package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mailauth/mailauth/analytics"
	"github.com/mailauth/mailauth/httpapi"
)

// statsTimeout bounds opening the store, the roll-up and the report.
const statsTimeout = time.Minute

// maxStatsDays bounds -days (ten years of daily rows).
const maxStatsDays = 3660

const statsHead = `Usage: mailauth stats [flags]

Prints the service's analytics of the last N UTC days (today included):
scans and ptr-checks per day, distinct domains and visitors per day, the
grade distribution, each check's fail rate, and the sources. It first brings
the daily aggregates up to date. It reads only hashes and counters: the
store holds no domain, address or selector.
`

// statsConfig is the parsed configuration of `mailauth stats`.
type statsConfig struct {
	storage string
	days    int
	json    bool
}

// parseStats parses the flags of `mailauth stats`.
func parseStats(args []string, getenv env, out io.Writer) (statsConfig, error) {
	var c statsConfig
	fs := newFlagSet("stats", statsHead, out)
	fs.StringVar(&c.storage, "storage", defaultStorage(getenv), "analytics store to read: sqlite:PATH or postgres://user:password@host/db, as given to serve")
	fs.IntVar(&c.days, "days", 7, "number of UTC days to show, ending today")
	fs.BoolVar(&c.json, "json", false, "print the report as JSON")
	pos, src, err := bindEnv(fs, args, getenv, "storage")
	if err != nil {
		return c, err
	}
	switch {
	case len(pos) > 0:
		return c, errors.New("stats takes no arguments")
	case c.days < 1 || c.days > maxStatsDays:
		return c, fmt.Errorf("-days: must be 1..%d", maxStatsDays)
	case c.storage == analytics.StorageNone:
		return c, src.blame(errors.New("-storage: none keeps no analytics to show"))
	}
	return c, src.blame(checkStorage(c.storage))
}

// runStats is `mailauth stats`.
func runStats(ctx context.Context, args []string, getenv env, std stdio) int {
	c, err := parseStats(args, getenv, helpOutput(std))
	if err != nil {
		return usageExit(err, std.err)
	}
	rep, err := readReport(ctx, c, time.Now())
	if err != nil {
		fmt.Fprintf(std.err, "mailauth stats: %v\n", err)
		return exitUnavailable
	}
	if c.json {
		b, err := httpapi.Encode(rep)
		if err != nil {
			fmt.Fprintf(std.err, "mailauth stats: %v\n", err)
			return exitUnavailable
		}
		_, _ = std.out.Write(b)
		return exitOK
	}
	writeReport(std.out, rep)
	return exitOK
}

// readReport opens the store (a SQLite file must exist already), rolls up
// and reads the days of c ending on now's UTC day.
func readReport(ctx context.Context, c statsConfig, now time.Time) (analytics.Report, error) {
	ctx, cancel := context.WithTimeout(ctx, statsTimeout)
	defer cancel()
	if p, ok := strings.CutPrefix(c.storage, "sqlite:"); ok {
		if _, err := os.Stat(p); err != nil {
			return analytics.Report{}, fmt.Errorf("no analytics store at %s (serve creates it): %w", p, err)
		}
	}
	store, err := analytics.Open(ctx, c.storage)
	if err != nil {
		return analytics.Report{}, fmt.Errorf("-storage %s: %w", analytics.Describe(c.storage), err)
	}
	defer store.Close()
	today := analytics.Day(now)
	if err := store.Rollup(ctx, today); err != nil {
		return analytics.Report{}, err
	}
	return store.Report(ctx, analytics.Day(now.AddDate(0, 0, 1-c.days)), today)
}

// writeReport prints rep as aligned tables.
func writeReport(w io.Writer, rep analytics.Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "Analytics %s to %s (UTC)\n\n", rep.From, rep.To)
	fmt.Fprintln(tw, "day\tscans\tptr-checks\tdomains\tvisitors\t")
	var scans, ptrs int64
	for _, d := range rep.Days {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t\n", d.Day, d.Scans, d.PtrChecks, d.Domains, d.Visitors)
		scans, ptrs = scans+d.Scans, ptrs+d.PtrChecks
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t\t\t\n", scans, ptrs)
	_ = tw.Flush()
	fmt.Fprintln(w, "\n(domains and visitors are distinct per day; a visitor hash changes every day)")
	writeCounts(w, "grade", rep.Grades)
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "check\treported\tundetermined\tfailed\tfail rate\t")
	for _, c := range rep.Checks {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1f%%\t\n", c.Check, c.Total, c.Undetermined, c.Failed, 100*c.FailRate)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "\n(the fail rate is of the determined checks: an undetermined one is neither a pass nor a fail)")
	writeCounts(w, "source", rep.Sources)
}

// writeCounts prints a label table with shares.
func writeCounts(w io.Writer, title string, cs []analytics.Count) {
	var total int64
	for _, c := range cs {
		total += c.N
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tcount\tshare\t\n", title)
	for _, c := range cs {
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t\n", c.Label, c.N, 100*float64(c.N)/float64(total))
	}
	_ = tw.Flush()
}
