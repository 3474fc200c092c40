package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/lookalike"
)

// scanUsageHead is scanHead with the checks named from the checks table.
func scanUsageHead() string {
	ids := make([]string, 0, len(mailauth.CheckOrder()))
	for _, id := range mailauth.CheckOrder() {
		ids = append(ids, string(id))
	}
	return strings.Replace(scanHead, "CHECKS", strings.Join(ids, ", "), 1)
}

const scanHead = `Usage: mailauth scan [flags] DOMAIN... [-f FILE]

Scans each DOMAIN (a bare domain; an http(s) URL or a mailbox is reduced to
its domain, and a URL's leading www. is dropped) with the checks
CHECKS,
locally or, with -server, on a running mailauth service. -f FILE adds the
domains of FILE, one per line (blank lines and # comments are skipped;
- reads standard input).
DKIM is checked only with -selector, PTR forward confirmation only with -ip.

-records (local scans only) also prints your own records as your resolver
returns them: SPF with its include tree and what each include costs, DMARC
and where it was found, MTA-STS (TXT and policy), TLS-RPT, DKIM (key
elided), MX, PTR and CAA. The service never returns such raw data.

Exit codes: 0 scanned, 1 scanned with at least one failed check,
2 usage or input error, 3 service or DNS unavailable, or the scan
incomplete (more than half of the checks could not be determined),
4 the name does not exist in the DNS (no grade: check the spelling).
With several domains the exit code is the highest of theirs.
`

const ptrHead = `Usage: mailauth ptr [flags] IP

Checks one public sending IP: its PTR records, then A or AAAA lookups of the
returned hostnames (forward confirmation), locally or, with -server, on a
running mailauth service.

Exit codes: 0 checked, 1 the check failed, 2 usage or input error,
3 service or DNS unavailable, or the check could not be determined.
`

// clientFlags are the output and transport flags of scan and ptr.
type clientFlags struct {
	json    bool
	format  string // text, json or csv; -json sets json
	verbose bool
	lang    string
	server  string
	timeout time.Duration
	width   int
	scanner scannerFlags

	cfg   mailauth.Config // from scanner, set by check
	color bool            // set by the caller: stdout is a TTY and NO_COLOR is unset
}

// clientEnvNames are the flags of scan and ptr with environment fallbacks.
var clientEnvNames = append([]string{"lang", "server", "format", "timeout"}, scannerFlagNames...)

// Output formats of -format.
const (
	formatText = "text"
	formatJSON = "json"
	formatCSV  = "csv"
	// formatCSVDomains is CSV with one row per domain (scan only).
	formatCSVDomains = "csv-domains"
)

func (c *clientFlags) register(fs *flag.FlagSet, getenv env) {
	fs.BoolVar(&c.json, "json", false, "print exactly the API's JSON instead of the report (the same as -format json)")
	fs.StringVar(&c.format, "format", formatText, "output: text (the report; several domains end with a one-line-per-domain overview), json (exactly the API's JSON; with several domains, a JSON array of them), csv (a header, then one row per check) or csv-domains (scan only: a header, then one row per domain: domain, exists, grade, score, counts, worst finding)")
	fs.DurationVar(&c.timeout, "timeout", 0, "bound on each scan, such as 30s or 2m (0: 15s locally, 60s with -server)")
	fs.IntVar(&c.width, "width", 0, "columns the summary and the -v details wrap at (0: the terminal's width, else the COLUMNS environment variable, else 80)")
	fs.BoolVar(&c.verbose, "v", false, "print each check's details too")
	fs.StringVar(&c.lang, "lang", localeLang(getenv), "report language, zh or en; the default comes from LC_ALL, LC_MESSAGES or LANG (zh* gives zh, anything else en)")
	fs.StringVar(&c.server, "server", "", "base URL of a running mailauth service (e.g. http://127.0.0.1:8080) to ask instead of scanning locally")
	c.scanner.register(fs)
}

// parse registers the client flags on fs (after the command's own), parses
// args with the environment fallbacks, and checks the flags. It returns the
// one positional argument the command takes; arg names it in the error
// when there is not exactly one.
func (c *clientFlags) parse(fs *flag.FlagSet, args []string, getenv env, arg string) (string, error) {
	pos, err := c.parseAll(fs, args, getenv)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 {
		fs.Usage()
		return "", fmt.Errorf("%s needs exactly one %s", fs.Name(), arg)
	}
	return pos[0], nil
}

// parseAll is parse for a command that takes any number of positional
// arguments: it returns them all.
func (c *clientFlags) parseAll(fs *flag.FlagSet, args []string, getenv env) ([]string, error) {
	c.register(fs, getenv)
	pos, src, err := bindEnv(fs, args, getenv, clientEnvNames...)
	if err != nil {
		return nil, err
	}
	return pos, src.blame(c.check())
}

// check validates the flags.
func (c *clientFlags) check() error {
	if c.lang != "zh" && c.lang != "en" {
		return errors.New("-lang: must be zh or en")
	}
	switch {
	case c.format != formatText && c.format != formatJSON && c.format != formatCSV && c.format != formatCSVDomains:
		return errors.New("-format: must be text, json, csv or csv-domains")
	case c.json && (c.format == formatCSV || c.format == formatCSVDomains):
		return errors.New("-json is -format json; it cannot be combined with -format " + c.format)
	case c.json:
		c.format = formatJSON
	}
	if c.timeout < 0 {
		return errors.New("-timeout: must not be negative")
	}
	if c.width < 0 {
		return errors.New("-width: must not be negative")
	}
	if c.server != "" {
		if err := checkServerURL(c.server); err != nil {
			return fmt.Errorf("-server: %w", err)
		}
	}
	var err error
	c.cfg, err = c.scanner.config()
	c.cfg.ScanTimeout = c.timeout
	return err
}

// useColor reports whether the report may use ANSI colours: only on a
// terminal, and not when NO_COLOR is set (no-color.org) or TERM is dumb.
func useColor(tty bool, getenv env) bool {
	return tty && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// localeLang picks the report language from the locale variables: the
// first set of LC_ALL, LC_MESSAGES, LANG decides; zh* gives zh.
func localeLang(getenv env) string {
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if s := getenv(v); s != "" {
			if strings.HasPrefix(strings.ToLower(s), "zh") {
				return "zh"
			}
			return "en"
		}
	}
	return "en"
}

// scanConfig is the parsed command line of `mailauth scan`.
type scanConfig struct {
	clientFlags
	domains      []string // the positional arguments
	file         string   // -f
	selector, ip string
	records      bool
}

// parseScan parses `mailauth scan`.
func parseScan(args []string, getenv env, out io.Writer) (scanConfig, error) {
	var c scanConfig
	fs := newFlagSet("scan", scanUsageHead(), out)
	fs.StringVar(&c.selector, "selector", "", "DKIM selector to check (from the mail provider or a message's DKIM-Signature s= tag)")
	fs.StringVar(&c.ip, "ip", "", "actual public outbound IP of the domain's mail, for PTR forward confirmation")
	fs.StringVar(&c.file, "f", "", "file of domains to scan, one per line (# starts a comment; - is standard input)")
	fs.BoolVar(&c.records, "records", false, "also print your own records as your resolver returns them (local scans only; raw data, never from the service)")
	var err error
	if c.domains, err = c.parseAll(fs, args, getenv); err != nil {
		return c, err
	}
	switch {
	case len(c.domains) == 0 && c.file == "":
		fs.Usage()
		return c, errors.New("scan needs a DOMAIN or -f FILE")
	case c.records && c.server != "":
		return c, errors.New("-records shows raw records from your own resolver and works only for local scans; the service (-server) never returns records")
	case c.records && c.format != formatText:
		return c, errors.New("-records prints a text section; it cannot be combined with -format json or csv")
	}
	return c, nil
}

// ptrConfig is the parsed command line of `mailauth ptr`.
type ptrConfig struct {
	clientFlags
	ip string
}

// parsePtr parses `mailauth ptr`.
func parsePtr(args []string, getenv env, out io.Writer) (ptrConfig, error) {
	var c ptrConfig
	fs := newFlagSet("ptr", ptrHead, out)
	var err error
	c.ip, err = c.parse(fs, args, getenv, "IP")
	if err == nil && c.format == formatCSVDomains {
		return c, errors.New("-format csv-domains is for scan; ptr prints one row with -format csv")
	}
	return c, err
}

// runScan is `mailauth scan`.
func runScan(ctx context.Context, args []string, getenv env, std stdio) int {
	c, err := parseScan(args, getenv, helpOutput(std))
	if err != nil {
		return usageExit(err, std.err)
	}
	c.color = useColor(std.tty, getenv)
	c.width = terminalWidth(c.width, std.cols, getenv)
	domains, err := scanTargets(c, std.in)
	if err != nil {
		return usageExit(err, std.err)
	}
	head := scanCSVHeader
	if c.format == formatCSVDomains {
		head = domainCSVHeader
	}
	out := newOutput(std.out, c.clientFlags, len(domains) > 1, head)
	code := exitOK
	for _, d := range domains {
		code = max(code, scanOne(ctx, c, d, std, out, len(domains) > 1))
	}
	out.overview(std.out)
	out.finish()
	return code
}

// scanOne scans one domain, prints its result and returns its exit code.
// With several domains (multi) a failure names the domain it is about.
func scanOne(ctx context.Context, c scanConfig, domain string, std stdio, out *output, multi bool) int {
	req := mailauth.ScanRequest{Domain: domain, DKIMSelector: c.selector, SendingIP: c.ip}
	errOut := std.err
	if multi {
		errOut = prefixWriter{w: std.err, prefix: "mailauth: " + cleanText(domain) + ":\n  "}
	}
	d, err := validateScan(req)
	if err != nil {
		out.note(domain, mailauth.ScanSummary{}, exitUsage)
		return inputExit(err, errOut)
	}
	if f, ok := lookalike.Check(d.Unicode); ok {
		en, zh := f.Message()
		msg := en
		if c.lang == "zh" {
			msg = zh
		}
		fmt.Fprintf(std.err, "mailauth: %s (%s): %s\n", cleanText(d.Unicode), cleanText(d.ASCII), cleanText(msg))
	}
	if d.WWWDropped {
		fmt.Fprintf(std.err, "mailauth: scanning %s: the leading www. of the web address is dropped (mail is set up for the domain, not for its web server)\n", cleanText(d.Unicode))
	}
	if c.timeout > 0 && c.server != "" {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	var sum mailauth.ScanSummary
	var raw []byte
	start := time.Now()
	if c.server != "" {
		sum, raw, err = remoteScan(ctx, c.server, req)
	} else {
		sum, raw, err = localScan(ctx, c.cfg, req)
	}
	if err != nil && userTimedOut(c.timeout, start, err) {
		fmt.Fprintf(errOut, "mailauth: the scan did not finish within the -timeout %s you set; give it longer (for example -timeout 30s)\n", c.timeout)
		out.note(domain, mailauth.ScanSummary{}, exitUnavailable)
		return exitUnavailable
	}
	if err != nil {
		code := failureExit(err, errOut)
		out.note(domain, mailauth.ScanSummary{}, code)
		return code
	}
	rows := func() [][]string { return scanCSVRows(sum, c.lang) }
	if c.format == formatCSVDomains {
		rows = func() [][]string { return [][]string{domainCSVRow(sum, c.lang)} }
	}
	out.write(raw, func(o renderOptions) { renderScan(std.out, sum, o) }, rows)
	out.note(domain, sum, 0)
	if c.records {
		recs, err := collectRecords(ctx, c.cfg, req)
		if err != nil {
			return failureExit(err, errOut)
		}
		renderRecords(std.out, recs, out.options())
	}
	if sum.Incomplete() && userTimedOut(c.timeout, start, nil) {
		fmt.Fprintf(errOut, "mailauth: incomplete result: the scan ran out of the -timeout %s you set before most checks had their answers; give it longer (for example -timeout 30s)\n", c.timeout)
		return exitUnavailable
	}
	return exitCode(errOut, outcome{failed: sum.Counts.Fail > 0, incomplete: sum.Incomplete(), nonexistent: mailauth.Nonexistent(sum), slow: sum.Slow()})
}

// userTimedOut reports whether a scan that failed with err (or gave an
// incomplete result, err nil) ran into the -timeout the user set: one was
// set, and the scan took at least that long or ended on its deadline.
// The message then names the time-out, not DNS or the service.
func userTimedOut(timeout time.Duration, start time.Time, err error) bool {
	if timeout <= 0 {
		return false
	}
	return time.Since(start) >= timeout || errors.Is(err, context.DeadlineExceeded)
}

// scanTargets lists the domains to scan: the arguments, then the lines
// of -f (from in when the file is -), without blanks and # comments.
func scanTargets(c scanConfig, in io.Reader) ([]string, error) {
	out := append([]string(nil), c.domains...)
	if c.file == "" {
		return out, nil
	}
	var r io.Reader
	if c.file == "-" {
		if in == nil {
			return nil, errors.New("-f -: no standard input")
		}
		r = in
	} else {
		f, err := os.Open(c.file)
		if err != nil {
			return nil, fmt.Errorf("-f: %w", err)
		}
		defer f.Close()
		r = f
	}
	lines, err := domainLines(r)
	if err != nil {
		return nil, fmt.Errorf("-f %s: %w", c.file, err)
	}
	out = append(out, lines...)
	if len(out) == 0 {
		return nil, fmt.Errorf("-f %s: no domain in the file", c.file)
	}
	return out, nil
}

// maxDomainFile bounds a -f file: far more domains than one run should
// scan, and a guard against reading a wrong (huge) file into memory.
const maxDomainFile = 1 << 20

// domainLines reads one domain per line; blank lines and everything from
// a # on are skipped.
func domainLines(r io.Reader) ([]string, error) {
	sc := bufio.NewScanner(io.LimitReader(r, maxDomainFile+1))
	sc.Buffer(make([]byte, 0, 4096), maxDomainFile+1)
	var out []string
	read := 0
	for sc.Scan() {
		line := sc.Text()
		read += len(line) + 1
		if read > maxDomainFile {
			return nil, fmt.Errorf("longer than %d bytes", maxDomainFile)
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// runPtr is `mailauth ptr`.
func runPtr(ctx context.Context, args []string, getenv env, std stdio) int {
	c, err := parsePtr(args, getenv, helpOutput(std))
	if err != nil {
		return usageExit(err, std.err)
	}
	c.color = useColor(std.tty, getenv)
	c.width = terminalWidth(c.width, std.cols, getenv)
	ip, err := mailauth.PTRCheckSendingIP.Normalize(c.ip)
	if err != nil {
		return inputExit(err, std.err)
	}
	if c.timeout > 0 && c.server != "" {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	var sum mailauth.PTRCheckSummary
	var raw []byte
	if c.server != "" {
		sum, raw, err = remotePtr(ctx, c.server, c.ip)
	} else {
		sum, raw, err = localPtr(ctx, c.cfg, ip)
	}
	if err != nil {
		return failureExit(err, std.err)
	}
	out := newOutput(std.out, c.clientFlags, false, ptrCSVHeader)
	out.write(raw, func(o renderOptions) { renderPtr(std.out, sum, o) }, func() [][]string { return ptrCSVRows(sum, c.lang) })
	out.finish()
	return exitCode(std.err, outcome{failed: sum.Check.Status == mailauth.StatusFail, incomplete: sum.Check.Undetermined(),
		slow: sum.Check.Determination == mailauth.UndeterminedSlow || sum.Check.Determination == mailauth.UndeterminedTimeout})
}

// validateScan checks a scan request with the same validators as the
// service, before any DNS traffic, and returns the domain to scan.
func validateScan(req mailauth.ScanRequest) (mailauth.Domain, error) {
	in, err := req.Validate()
	return in.Domain, err
}

// localScan runs the scan in this process. The JSON is the scanner's own,
// encoded once and verified by its leak guard: the bytes printed are the
// bytes the guard checked, as the service's are.
func localScan(ctx context.Context, cfg mailauth.Config, req mailauth.ScanRequest) (mailauth.ScanSummary, []byte, error) {
	sum, body, err := mailauth.New(cfg).ScanEncoded(ctx, req)
	if err != nil {
		return mailauth.ScanSummary{}, nil, err
	}
	return *sum, body, nil
}

// localPtr checks the IP in this process, with the scanner's verified
// JSON (see localScan).
func localPtr(ctx context.Context, cfg mailauth.Config, ip netip.Addr) (mailauth.PTRCheckSummary, []byte, error) {
	sum, body, err := mailauth.New(cfg).CheckIPEncoded(ctx, ip)
	if err != nil {
		return mailauth.PTRCheckSummary{}, nil, err
	}
	return *sum, body, nil
}

// outcome is what a printed result means for the exit code.
type outcome struct {
	failed      bool // a check failed
	incomplete  bool // most checks could not be determined: no grade to trust
	nonexistent bool // the name does not exist: no grade at all
	slow        bool // some checks ran out of time (mailauth.ScanSummary.Slow)
}

// exitCode returns the exit code of a printed result: a name that does
// not exist is exit 4 (check the spelling; repeating will not help),
// whatever else; an incomplete result is exit 3 (DNS unavailable for the
// domain; repeat later) even when a check failed; its message says when
// the scan ran out of time waiting for the domain's servers rather than
// the answers were unusable.
func exitCode(errOut io.Writer, o outcome) int {
	switch {
	case o.nonexistent:
		return exitNonexistent
	case o.incomplete && o.slow:
		fmt.Fprintln(errOut, "mailauth: incomplete result: the scan ran out of time waiting for the domain's servers, so no grade can be given; scan again")
		return exitUnavailable
	case o.incomplete:
		fmt.Fprintln(errOut, "mailauth: incomplete result: DNS answers were unusable for most checks, so no grade can be given; retry later")
		return exitUnavailable
	case o.failed:
		return exitFail
	}
	return exitOK
}

// inputExit reports an invalid argument.
func inputExit(err error, w io.Writer) int {
	fmt.Fprintf(w, "mailauth: invalid input: %v\n", err)
	return exitUsage
}

// failureExit reports a failed scan: invalid input is exit 2, anything
// else (DNS, the service, the network, a redirect) exit 3. Text that came
// from the service is printed without control characters.
func failureExit(err error, w io.Writer) int {
	var ie *mailauth.InputError
	var se *serverError
	switch {
	case errors.As(err, &ie):
		return inputExit(err, w)
	case errors.As(err, &se) && se.status == 400:
		fmt.Fprintf(w, "mailauth: invalid input: %s\n", se.msg)
		return exitUsage
	case errors.Is(err, mailauth.ErrResolverNotRecursive):
		fmt.Fprintln(w, "mailauth: DNS unavailable: the resolver does not offer recursion (an authoritative-only server?): it answers only its own zones; give -dns a recursive resolver")
		return exitUnavailable
	case errors.Is(err, mailauth.ErrResolverUnavailable):
		fmt.Fprintln(w, "mailauth: DNS unavailable: the resolver did not answer, or failed a control question any working resolver answers; "+dnsHint)
		return exitUnavailable
	}
	fmt.Fprintf(w, "mailauth: %s\n", cleanText(err.Error())) // may quote the service's answer
	return exitUnavailable
}
