package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"strings"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
)

const scanHead = `Usage: mailauth scan [flags] DOMAIN

Scans DOMAIN (a bare domain; an http(s) URL or a mailbox is reduced to its
domain) with the eight checks mx, spf, dmarc, dkim, mta-sts, tls-rpt, ptr
and caa, locally or, with -server, on a running mailauth service.
DKIM is checked only with -selector, PTR forward confirmation only with -ip.

Exit codes: 0 scanned, 1 scanned with at least one failed check,
2 usage or input error, 3 service or DNS unavailable, or the scan
incomplete (more than half of the checks could not be determined).
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
	verbose bool
	lang    string
	server  string
	scanner scannerFlags

	cfg   mailauth.Config // from scanner, set by check
	color bool            // set by the caller: stdout is a TTY and NO_COLOR is unset
}

// clientEnvNames are the flags of scan and ptr with environment fallbacks.
var clientEnvNames = append([]string{"lang", "server"}, scannerFlagNames...)

func (c *clientFlags) register(fs *flag.FlagSet, getenv env) {
	fs.BoolVar(&c.json, "json", false, "print exactly the API's JSON instead of the report")
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
	c.register(fs, getenv)
	if err := bindEnv(fs, getenv, clientEnvNames...); err != nil {
		return "", err
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 {
		fs.Usage()
		return "", fmt.Errorf("%s needs exactly one %s", fs.Name(), arg)
	}
	return pos[0], c.check()
}

// check validates the flags.
func (c *clientFlags) check() error {
	if c.lang != "zh" && c.lang != "en" {
		return errors.New("-lang: must be zh or en")
	}
	if c.server != "" {
		if err := checkServerURL(c.server); err != nil {
			return fmt.Errorf("-server: %w", err)
		}
	}
	var err error
	c.cfg, err = c.scanner.config()
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
	domain, selector, ip string
}

// parseScan parses `mailauth scan`.
func parseScan(args []string, getenv env, out io.Writer) (scanConfig, error) {
	var c scanConfig
	fs := newFlagSet("scan", scanHead, out)
	fs.StringVar(&c.selector, "selector", "", "DKIM selector to check (from the mail provider or a message's DKIM-Signature s= tag)")
	fs.StringVar(&c.ip, "ip", "", "actual public outbound IP of the domain's mail, for PTR forward confirmation")
	var err error
	c.domain, err = c.parse(fs, args, getenv, "DOMAIN")
	return c, err
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
	return c, err
}

// runScan is `mailauth scan`.
func runScan(ctx context.Context, args []string, getenv env, std stdio) int {
	c, err := parseScan(args, getenv, std.err)
	if err != nil {
		return usageExit(err, std.err)
	}
	c.color = useColor(std.tty, getenv)
	req := mailauth.ScanRequest{Domain: c.domain, DKIMSelector: c.selector, SendingIP: c.ip}
	if err := validateScan(req); err != nil {
		return inputExit(err, std.err)
	}
	var sum mailauth.ScanSummary
	var raw []byte
	if c.server != "" {
		sum, raw, err = remoteScan(ctx, c.server, req)
	} else {
		sum, raw, err = localScan(ctx, c.cfg, req)
	}
	if err != nil {
		return failureExit(err, std.err)
	}
	return report(std, c.clientFlags, raw, func(o renderOptions) { renderScan(std.out, sum, o) }, outcome{failed: sum.Counts.Fail > 0, incomplete: sum.Incomplete()})
}

// runPtr is `mailauth ptr`.
func runPtr(ctx context.Context, args []string, getenv env, std stdio) int {
	c, err := parsePtr(args, getenv, std.err)
	if err != nil {
		return usageExit(err, std.err)
	}
	c.color = useColor(std.tty, getenv)
	ip, err := mailauth.PTRCheckSendingIP.Normalize(c.ip)
	if err != nil {
		return inputExit(err, std.err)
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
	return report(std, c.clientFlags, raw, func(o renderOptions) { renderPtr(std.out, sum, o) }, outcome{failed: sum.Check.Status == mailauth.StatusFail, incomplete: sum.Check.Undetermined()})
}

// validateScan checks a scan request with the same validators as the
// service, before any DNS traffic.
func validateScan(req mailauth.ScanRequest) error {
	if _, err := mailauth.NormalizeDomain(req.Domain); err != nil {
		return err
	}
	if req.DKIMSelector != "" {
		if err := mailauth.ValidateSelector(req.DKIMSelector); err != nil {
			return err
		}
	}
	if req.SendingIP != "" {
		if _, err := mailauth.ScanSendingIP.Normalize(req.SendingIP); err != nil {
			return err
		}
	}
	return nil
}

// localScan runs the scan in this process.
func localScan(ctx context.Context, cfg mailauth.Config, req mailauth.ScanRequest) (mailauth.ScanSummary, []byte, error) {
	sum, err := mailauth.New(cfg).Scan(ctx, req)
	if err != nil {
		return sum, nil, err
	}
	raw, err := httpapi.Encode(sum)
	return sum, raw, err
}

// localPtr checks the IP in this process.
func localPtr(ctx context.Context, cfg mailauth.Config, ip netip.Addr) (mailauth.PTRCheckSummary, []byte, error) {
	sum, err := mailauth.New(cfg).CheckIP(ctx, ip)
	if err != nil {
		return sum, nil, err
	}
	raw, err := httpapi.Encode(sum)
	return sum, raw, err
}

// outcome is what a printed result means for the exit code.
type outcome struct {
	failed     bool // a check failed
	incomplete bool // most checks could not be determined: no grade to trust
}

// report prints the result (JSON or the rendered report) and returns the
// exit code: an incomplete result is exit 3 (DNS unavailable for the
// domain; repeat later) even when a check failed.
func report(std stdio, c clientFlags, raw []byte, render func(renderOptions), o outcome) int {
	if c.json {
		_, _ = std.out.Write(raw)
	} else {
		render(renderOptions{lang: c.lang, color: c.color, verbose: c.verbose})
	}
	switch {
	case o.incomplete:
		fmt.Fprintln(std.err, "mailauth: incomplete result: most DNS lookups gave no conclusive answer; repeat later")
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
	case errors.Is(err, mailauth.ErrResolverUnavailable):
		fmt.Fprintln(w, "mailauth: DNS unavailable: no resolver answered; "+dnsHint)
		return exitUnavailable
	}
	fmt.Fprintf(w, "mailauth: %s\n", cleanText(err.Error())) // may quote the service's answer
	return exitUnavailable
}
