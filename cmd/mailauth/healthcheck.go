package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/mailauth/mailauth/internal/ops"
)

// healthcheckTimeout bounds the whole check.
const healthcheckTimeout = 5 * time.Second

const healthcheckHead = `Usage: mailauth healthcheck [-admin URL]

Asks a running "mailauth serve" for its readiness (GET URL/readyz on the
admin listener) and exits 0 when it is ready (ok or degraded), 1 when it
is not or does not answer, and 1 on a usage error too (Docker reserves
exit status 2 of a health check). For container health checks (the
distroless image has no shell or curl) and systemd's ExecStartPost.
Prints the readiness report.
`

// runHealthcheck is `mailauth healthcheck`.
func runHealthcheck(ctx context.Context, args []string, getenv env, std stdio) int {
	fs := newFlagSet("healthcheck", healthcheckHead, std.err)
	admin := fs.String("admin", defaultAdminURL(getenv), "base URL of the admin listener (default from MAILAUTH_ADMIN_LISTEN)")
	if pos, err := parseInterspersed(fs, args); err != nil || len(pos) > 0 {
		if err == nil {
			err = errors.New("healthcheck takes no arguments")
		}
		if code := usageExit(err, std.err); code != exitUsage {
			return code // -h
		}
		return exitFail // not exitUsage: Docker reserves 2
	}
	ctx, cancel := context.WithTimeout(ctx, healthcheckTimeout)
	defer cancel()
	body, err := fetchReadiness(ctx, strings.TrimSuffix(*admin, "/")+"/readyz")
	if err != nil {
		fmt.Fprintf(std.err, "mailauth healthcheck: %v\n", err)
		return exitFail
	}
	fmt.Fprint(std.out, body)
	return exitOK
}

// fetchReadiness returns the readiness report, or an error when the
// service does not answer 200, or when what answers is not a mailauth
// admin listener (no ops.AdminHeader): another program on the port.
func fetchReadiness(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", fmt.Errorf("-admin: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("not answering: %w", err)
	}
	defer resp.Body.Close()
	if resp.Header.Get(ops.AdminHeader) == "" {
		return "", errors.New("not a mailauth admin listener: the address answers without its mark (another program holds the port? check -admin-listen and -admin)")
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("not ready (%d): %s", resp.StatusCode, strings.TrimSpace(string(b)))
	}
	return string(b), nil
}

// defaultAdminURL is http:// and MAILAUTH_ADMIN_LISTEN (an unspecified
// host becomes loopback), else the default admin address.
func defaultAdminURL(getenv env) string {
	addr := getenv("MAILAUTH_ADMIN_LISTEN")
	if addr == "" || addr == adminOff {
		addr = defaultAdminListen
	}
	return strings.TrimSuffix(pageURL(addr), "/")
}
