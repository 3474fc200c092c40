package main

import (
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/dnsname"
	"github.com/mailauth/mailauth/resolver"
)

// errUsage marks an error whose message the flag package has already
// printed.
var errUsage = errors.New("usage error")

// envName is the environment fallback of a flag: MAILAUTH_ and the flag
// name in upper case with - replaced by _.
func envName(flagName string) string {
	return "MAILAUTH_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// envSources records the flags whose value came from the environment:
// flag name → the variable and its value.
type envSources map[string]envSource

// envSource is one environment variable applied to a flag.
type envSource struct {
	name, value string
}

// secretFlags are the flags whose value may hold a secret (a key, or a
// URL with a password); an error never quotes their value.
var secretFlags = map[string]bool{"analytics-secret": true, "storage": true, "ratelimit": true}

// bindEnv documents the environment fallback of each named flag in its
// usage text, parses args (flags may follow positional arguments), then
// applies the variables that are set (non-empty) to the named flags the
// command line left alone, so a flag on the command line wins. It returns
// the positional arguments and the flags whose value came from the
// environment.
func bindEnv(fs *flag.FlagSet, args []string, getenv env, names ...string) ([]string, envSources, error) {
	for _, name := range names {
		f := fs.Lookup(name)
		if f == nil {
			return nil, nil, fmt.Errorf("internal error: no flag -%s to bind", name)
		}
		f.Usage += " (env " + envName(name) + ")"
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, nil, err
	}
	onCommandLine := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { onCommandLine[f.Name] = true })
	src := envSources{}
	for _, name := range names {
		ev := envName(name)
		v := getenv(ev)
		if v == "" || onCommandLine[name] {
			continue
		}
		f := fs.Lookup(name)
		if err := fs.Set(name, v); err != nil {
			return nil, nil, envError(ev, v, f, err)
		}
		src[name] = envSource{name: ev, value: v}
	}
	return pos, src, nil
}

// blame makes an error about a flag whose value came from the environment
// name the variable instead: "-dns: …" becomes `MAILAUTH_DNS="…": …`. The
// rest of the message says what form the value must take. The value of a
// secret flag is not shown. Other errors pass unchanged.
func (s envSources) blame(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for flagName, src := range s {
		rest, ok := strings.CutPrefix(msg, "-"+flagName+":")
		if !ok {
			continue
		}
		prefix := fmt.Sprintf("%s=%q:", src.name, cleanText(src.value))
		if secretFlags[flagName] {
			prefix = src.name + " (value not shown):"
		}
		return &envBlameError{msg: prefix + rest, err: err}
	}
	return err
}

// envBlameError is an error that names the environment variable a flag's
// value came from; it unwraps to the original error.
type envBlameError struct {
	msg string
	err error
}

func (e *envBlameError) Error() string { return e.msg }
func (e *envBlameError) Unwrap() error { return e.err }

// envError explains an environment variable that does not parse: it
// names the form the value must take. The value is quoted only for the
// plain types (numbers, booleans, durations), never for a string flag's
// own check, whose value may be a secret.
func envError(name, value string, f *flag.Flag, err error) error {
	form := ""
	if g, ok := f.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case bool:
			form = "true or false (also 1, 0, t, f)"
		case int, int64, uint, uint64:
			form = "a whole number such as 8080"
		case float64:
			form = "a number such as 0.5"
		case time.Duration:
			form = "a duration such as 30s, 2m or 1h30m"
		}
	}
	if form == "" {
		return fmt.Errorf("%s: %w (the value must be what -%s takes; see its -h text)", name, err, f.Name)
	}
	return fmt.Errorf("%s=%q: not %s (the form -%s takes)", name, cleanText(value), form, f.Name)
}

// parseInterspersed parses args allowing flags after positional
// arguments ("scan example.com -json"), and returns the positionals.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	if out, ok := fs.Output().(cliOutput); ok && helpRequested(args) {
		fs.SetOutput(out.help) // asked for: standard output, exit 0
		fs.Usage()
		return nil, flag.ErrHelp
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, fmt.Errorf("%w: %w", errUsage, err) // already printed by fs
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumedDashDash(args, rest) {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// helpRequested reports a -h, -help, --h or --help argument before "--":
// the flag package's help flags.
func helpRequested(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--h", "--help":
			return true
		}
	}
	return false
}

// consumedDashDash reports whether the flag package stopped at "--":
// everything after it is positional.
func consumedDashDash(args, rest []string) bool {
	i := len(args) - len(rest) - 1
	return i >= 0 && args[i] == "--"
}

// newFlagSet returns a ContinueOnError flag set whose usage prints head,
// then the flags.
func newFlagSet(name, head string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), head)
		fmt.Fprintln(fs.Output(), "\nFlags:")
		printFlags(fs)
	}
	return fs
}

// helpWidth is the width of -h output (product choice: a terminal's
// traditional 80 columns, whatever the window).
const helpWidth = 80

// labFlags are the flags for tests and the loopback lab only: -h lists
// them apart, after the everyday flags.
var labFlags = map[string]bool{"https-port": true, "ca-file": true, "allow-loopback-targets": true}

// hiddenFlags are, per command, flags it accepts (they are shared, and
// their MAILAUTH_* variables may be set) but that do nothing for it: its
// -h does not list them. ptr fetches no MTA-STS policy.
var hiddenFlags = map[string]map[string]bool{
	"ptr": {"https-port": true, "ca-file": true, "allow-loopback-targets": true},
}

// printFlags is fs.PrintDefaults with each usage text wrapped at
// helpWidth columns, indented by eight spaces instead of a tab; the lab
// flags come last under their own heading, and the command's hidden
// flags not at all.
func printFlags(fs *flag.FlagSet) {
	var lab []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		switch {
		case hiddenFlags[fs.Name()][f.Name]:
		case labFlags[f.Name]:
			lab = append(lab, f)
		default:
			printFlag(fs, f)
		}
	})
	if len(lab) == 0 {
		return
	}
	fmt.Fprintln(fs.Output(), "\nLab and test flags (the loopback lab only, not for everyday use):")
	for _, f := range lab {
		printFlag(fs, f)
	}
}

// printFlag prints one flag and its usage.
func printFlag(fs *flag.FlagSet, f *flag.Flag) {
	kind, usage := flag.UnquoteUsage(f)
	head := "  -" + f.Name
	if kind != "" {
		head += " " + kind
	}
	fmt.Fprintln(fs.Output(), head)
	if def := defaultNote(f); def != "" {
		usage += " " + def
	}
	for _, l := range wrap(usage, helpWidth, "        ") {
		fmt.Fprintln(fs.Output(), l)
	}
}

// defaultNote is "(default …)" as flag.PrintDefaults writes it, or ""
// for a zero default.
func defaultNote(f *flag.Flag) string {
	switch f.DefValue {
	case "", "0", "false", "0s":
		return ""
	}
	if g, ok := f.Value.(flag.Getter); ok {
		if _, isString := g.Get().(string); isString {
			return fmt.Sprintf("(default %q)", f.DefValue)
		}
	}
	return "(default " + f.DefValue + ")"
}

// scannerFlags are the resolver and fetch flags shared by every command.
type scannerFlags struct {
	dns           string
	httpsPort     int
	caFile        string
	allowLoopback bool
}

// scannerFlagNames are the flags defined by scannerFlags.register.
var scannerFlagNames = []string{"dns", "https-port", "ca-file", "allow-loopback-targets"}

func (s *scannerFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.dns, "dns", "", "comma-separated recursive resolvers, IP or IP:port (port 53 by default), or tls://HOST[:port] for DNS over TLS (port 853 by default; HOST a name or an IP address its certificate is valid for); empty means the nameservers of /etc/resolv.conf")
	fs.IntVar(&s.httpsPort, "https-port", 443, "port of the MTA-STS policy fetch (test and lab use only)")
	fs.StringVar(&s.caFile, "ca-file", "", "PEM file of extra roots trusted by the MTA-STS policy fetch and by a tls:// resolver (test and lab use only)")
	fs.BoolVar(&s.allowLoopback, "allow-loopback-targets", false, "let the MTA-STS fetch reach 127.0.0.0/8 and ::1 (test and lab use only; every other non-public range stays refused)")
}

// config turns the flags into a scanner configuration.
func (s *scannerFlags) config() (mailauth.Config, error) {
	servers, err := parseDNSServers(s.dns)
	if err != nil {
		return mailauth.Config{}, fmt.Errorf("-dns: %w", err)
	}
	if s.httpsPort < 1 || s.httpsPort > 65535 {
		return mailauth.Config{}, errors.New("-https-port: must be 1..65535")
	}
	cfg := mailauth.Config{DNSServers: servers, HTTPSPort: s.httpsPort, AllowLoopbackTargets: s.allowLoopback}
	if s.caFile != "" {
		if cfg.RootCAs, err = loadRoots(s.caFile); err != nil {
			return mailauth.Config{}, fmt.Errorf("-ca-file: %w", err)
		}
		cfg.DNSRootCAs = cfg.RootCAs
	}
	return cfg, nil
}

// parseDNSServers reads "ip[,ip:port,[v6],[v6]:port,...]" into host:port
// addresses; an address without a port means port 53. Resolvers must be
// IP addresses: naming one would need DNS. The exception is DNS over TLS,
// "tls://host[:port]" (port 853 by default), whose host may be a name:
// the certificate, valid for that name, proves the server whatever the
// name resolved to.
func parseDNSServers(s string) ([]string, error) {
	var out []string
	for _, f := range splitList(s) {
		if rest, ok := strings.CutPrefix(f, resolver.TLSPrefix); ok {
			addr, err := parseDoTServer(rest)
			if err != nil {
				return nil, err
			}
			out = append(out, resolver.TLSPrefix+addr)
			continue
		}
		bare := f
		if strings.HasPrefix(f, "[") && strings.HasSuffix(f, "]") {
			bare = f[1 : len(f)-1] // [v6] without a port
		}
		if a, err := netip.ParseAddr(bare); err == nil {
			out = append(out, net.JoinHostPort(a.String(), "53"))
			continue
		}
		ap, err := netip.ParseAddrPort(f)
		if err != nil || ap.Port() == 0 {
			return nil, fmt.Errorf("%q is not an IP address or IP:port (such as 9.9.9.9, 127.0.0.1:5353 or [2620:fe::fe]:53)", f)
		}
		out = append(out, ap.String())
	}
	return out, nil
}

// parseDoTServer reads the host[:port] of a tls:// resolver into
// host:port.
func parseDoTServer(s string) (string, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		host, port = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"), resolver.DefaultTLSPort
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("tls://%s: not a port", cleanText(s))
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return net.JoinHostPort(a.String(), port), nil
	}
	if !dnsname.IsLDHName(host) || !strings.Contains(host, ".") && !strings.EqualFold(host, "localhost") {
		return "", fmt.Errorf("tls://%s: not an IP address or host name (such as tls://9.9.9.9, tls://dns.quad9.net or tls://[2620:fe::fe]:853)", cleanText(s))
	}
	return net.JoinHostPort(strings.ToLower(host), port), nil
}

// parseProxies reads comma-separated CIDR prefixes or single addresses.
func parseProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range splitList(s) {
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR prefix or an IP address", f)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// splitList splits a comma-separated list, dropping empty elements.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// loadRoots returns the system roots plus the PEM certificates of path.
func loadRoots(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s: no PEM certificate found", path)
	}
	return pool, nil
}

// positiveInt checks a flag value that must be at least 1.
func positiveInt(name string, v int) error {
	if v < 1 {
		return fmt.Errorf("-%s: must be at least 1, got %s", name, strconv.Itoa(v))
	}
	return nil
}
