// Command mailauth diagnoses a domain's email authentication and transport
// configuration (every check of mailauth.CheckOrder) or one sending IP,
// from the command line or as an HTTP service.
//
//	mailauth serve [flags]                  run the HTTP service
//	mailauth scan [flags] DOMAIN...         scan domains (-f FILE, -records)
//	mailauth ptr [flags] IP                 check one sending IP
//	mailauth spf-eval -ip IP (-sender A|-helo H) evaluate SPF for a client IP
//	mailauth stats [flags]                  show the service's analytics
//	mailauth healthcheck [-admin URL]       ask a running service whether it is ready
//
// Every configuration flag has a MAILAUTH_* environment fallback (the flag
// name in upper case with - replaced by _, e.g. -rate-limit-max and
// MAILAUTH_RATE_LIMIT_MAX); a flag on the command line wins. `mailauth
// COMMAND -h` lists the flags.
//
// Exit codes: 0 scanned (or clean shutdown), 1 scanned and at least one
// check failed, 2 usage or input error (healthcheck: 1, as Docker
// reserves 2), 3 service or DNS unavailable or the scan incomplete (more
// than half of its checks undetermined).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mailauth/mailauth"
)

// Exit codes.
const (
	exitOK          = 0 // scanned, nothing failed; clean shutdown
	exitFail        = 1 // scanned, at least one check failed
	exitUsage       = 2 // usage, configuration or input error
	exitUnavailable = 3 // service, DNS or another dependency unavailable; incomplete scan
	exitNonexistent = 4 // scanned, the name does not exist in the DNS: no grade
)

// env reads one environment variable; tests pass a map's lookup.
type env func(string) string

// stdio bundles the process's outputs and what is known about them.
type stdio struct {
	out, err io.Writer
	in       io.Reader  // standard input, for -f -; nil in tests that need none
	tty      bool       // out is a terminal
	cols     func() int // the columns of the terminal out is; 0 or nil when unknown
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, stdio{out: os.Stdout, err: os.Stderr, in: os.Stdin, tty: isTerminal(os.Stdout), cols: stdoutColumns()})
	stop()
	os.Exit(code)
}

// stdoutColumns asks the terminal standard output is for its width, or
// reports 0 when standard output is not a terminal.
func stdoutColumns() func() int {
	if !isTerminal(os.Stdout) {
		return func() int { return 0 }
	}
	return terminalColumns(os.Stdout)
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// topUsage is the command's usage; the list of checks is the scanner's
// table (mailauth.CheckOrder).
var topUsage = fmt.Sprintf(`mailauth diagnoses a domain's email authentication and transport configuration.

Usage:
  mailauth serve [flags]            run the HTTP service
  mailauth scan [flags] DOMAIN...   scan domains (every check below)
  mailauth ptr [flags] IP           check one sending IP (PTR and forward
                                    confirmation)
  mailauth spf-eval -ip IP (-sender ADDRESS | -helo NAME) [flags]
                                    evaluate SPF for a client IP as a
                                    receiver would
  mailauth -version                 print the version
  mailauth stats [flags]            show the service's privacy-preserving
                                    usage figures
  mailauth healthcheck [-admin URL] exit 0 when a running service is
                                    ready, else 1

Checks, in order: %s.

Run "mailauth COMMAND -h" for the flags of a command. Every configuration flag
can also be set through a MAILAUTH_* environment variable; a flag wins.

Exit codes: 0 scanned, 1 scanned with at least one failed check,
2 usage or input error (healthcheck: 1), 3 service or DNS unavailable or
the scan incomplete, 4 the name does not exist in the DNS (no grade).
`, checkNames())

// checkNames lists the scanner's checks in order, in upper case, for
// prose: "MX, SPF, …, CAA".
func checkNames() string {
	ids := mailauth.CheckOrder()
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = strings.ToUpper(string(id))
	}
	return strings.Join(names, ", ")
}

// run dispatches a command and returns the exit code.
func run(ctx context.Context, args []string, getenv env, std stdio) int {
	if len(args) == 0 {
		fmt.Fprint(std.err, topUsage)
		return exitUsage
	}
	switch args[0] {
	case "serve":
		return runServe(ctx, args[1:], getenv, std, serveHooks{})
	case "scan":
		return runScan(ctx, args[1:], getenv, std)
	case "ptr":
		return runPtr(ctx, args[1:], getenv, std)
	case "spf-eval":
		return runSPFEval(ctx, args[1:], getenv, std)
	case "-version", "--version", "version":
		return printVersion(std.out)
	case "stats":
		return runStats(ctx, args[1:], getenv, std)
	case "healthcheck":
		return runHealthcheck(ctx, args[1:], getenv, std)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(std.out, topUsage)
		return exitOK
	}
	fmt.Fprintf(std.err, "mailauth: unknown command %q\n\n%s", args[0], topUsage)
	return exitUsage
}
