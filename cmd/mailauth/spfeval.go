package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"time"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/spf"
)

// spfEvalTimeout bounds one evaluation. RFC 7208 §4.6.4 lets an evaluator
// limit the total time of an evaluation and asks for at least 20 seconds.
const spfEvalTimeout = 20 * time.Second

const spfEvalHead = `Usage: mailauth spf-eval -ip IP (-sender ADDRESS | -helo NAME) [flags]

Evaluates SPF (RFC 7208 check_host) for one client address as a receiver
would: the MAIL FROM identity of -sender, or the HELO identity of -helo
when -sender is empty. Prints the result (none, neutral, pass, fail,
softfail, temperror, permerror) and why, as a code and a sentence; never
record text, names or addresses from DNS.

Exit codes: 0 evaluated (whatever the result), 2 usage or input error,
3 DNS unavailable.
`

// spfEvalConfig is the parsed command line of `mailauth spf-eval`.
type spfEvalConfig struct {
	ip, sender, helo, dns, lang string
	json                        bool

	addr    netip.Addr
	servers []string
}

// parseSPFEval parses and checks `mailauth spf-eval`.
func parseSPFEval(args []string, getenv env, out io.Writer) (spfEvalConfig, error) {
	var c spfEvalConfig
	fs := newFlagSet("spf-eval", spfEvalHead, out)
	fs.StringVar(&c.ip, "ip", "", "client IP address to evaluate (required)")
	fs.StringVar(&c.sender, "sender", "", "MAIL FROM address (local@domain, or a bare domain); empty checks the HELO identity")
	fs.StringVar(&c.helo, "helo", "", "HELO/EHLO name (%{h}; the identity checked when -sender is empty)")
	fs.StringVar(&c.dns, "dns", "", "comma-separated recursive resolvers, IP or IP:port (port 53 by default); empty means the nameservers of /etc/resolv.conf")
	fs.StringVar(&c.lang, "lang", localeLang(getenv), "language of the sentence, zh or en")
	fs.BoolVar(&c.json, "json", false, "print the evaluation as JSON")
	pos, src, err := bindEnv(fs, args, getenv, "dns", "lang")
	if err != nil {
		return c, err
	}
	if len(pos) != 0 {
		fs.Usage()
		return c, fmt.Errorf("spf-eval takes no arguments, only flags (got %d)", len(pos))
	}
	return c, src.blame(c.check())
}

// check validates the flags.
func (c *spfEvalConfig) check() error {
	var err error
	if c.addr, err = netip.ParseAddr(strings.TrimSpace(c.ip)); err != nil || c.addr.Zone() != "" {
		return errors.New("-ip: an IPv4 or IPv6 address is required")
	}
	if c.sender == "" && c.helo == "" {
		return errors.New("-sender or -helo is required")
	}
	if len(c.sender) > spf.MaxSenderLength {
		return fmt.Errorf("-sender: longer than %d octets", spf.MaxSenderLength)
	}
	if len(c.helo) > spf.MaxHELOLength {
		return fmt.Errorf("-helo: longer than %d octets", spf.MaxHELOLength)
	}
	if c.lang != "zh" && c.lang != "en" {
		return errors.New("-lang: must be zh or en")
	}
	if c.servers, err = parseDNSServers(c.dns); err != nil {
		return fmt.Errorf("-dns: %w", err)
	}
	return nil
}

// runSPFEval is `mailauth spf-eval`.
func runSPFEval(ctx context.Context, args []string, getenv env, std stdio) int {
	c, err := parseSPFEval(args, getenv, helpOutput(std))
	if err != nil {
		return usageExit(err, std.err)
	}
	r := &resolver.Client{Servers: c.servers}
	ctx, cancel := context.WithTimeout(ctx, spfEvalTimeout)
	defer cancel()
	ev, err := spf.Evaluate(ctx, r, spf.Query{IP: c.addr, Sender: c.sender, HELO: c.helo})
	if err != nil {
		return inputExit(err, std.err)
	}
	if ev.Verdict == spf.VerdictTempError && dnsUnavailable(ctx, r) {
		fmt.Fprintln(std.err, "mailauth: DNS unavailable: the resolver did not answer or refused; "+dnsHint)
		return exitUnavailable
	}
	out := newSPFEvalOutput(c, ev)
	if c.json {
		b, _ := json.MarshalIndent(out, "", "  ") // plain strings and integers: cannot fail
		fmt.Fprintf(std.out, "%s\n", b)
		return exitOK
	}
	renderSPFEval(std.out, out, c.lang)
	return exitOK
}

// dnsUnavailable tells a dead resolver from one domain's failing servers,
// as a scan does: the control question (mailauth.DefaultControlName's
// SOA) fails in transport (resolver.Reason.Transport); any DNS reply,
// even NXDOMAIN, proves the resolver works.
func dnsUnavailable(ctx context.Context, r resolver.Resolver) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), spfProbeTimeout)
	defer cancel()
	return r.Lookup(ctx, mailauth.DefaultControlName, resolver.TypeSOA).Reason.Transport()
}

// spfProbeTimeout bounds the resolver probe of dnsUnavailable.
const spfProbeTimeout = 3 * time.Second

// spfEvalOutput is the -json form of an evaluation: the domain and
// identity the user typed, then codes and counts only.
type spfEvalOutput struct {
	Domain      string  `json:"domain"`
	Identity    string  `json:"identity"`
	Result      string  `json:"result"`
	Reason      string  `json:"reason"`
	Cause       *string `json:"cause"`
	Mechanism   *string `json:"mechanism"`
	Term        *int    `json:"term"`
	Depth       *int    `json:"depth"`
	Lookups     int     `json:"lookups"`
	LookupLimit int     `json:"lookupLimit"`
	VoidLookups int     `json:"voidLookups"`
	VoidLimit   int     `json:"voidLookupLimit"`
}

func newSPFEvalOutput(c spfEvalConfig, ev spf.Evaluation) spfEvalOutput {
	out := spfEvalOutput{
		Domain: checkedDomain(c), Identity: string(ev.Identity), Result: string(ev.Verdict), Reason: string(ev.Reason),
		Lookups: ev.Lookups, LookupLimit: spf.MaxLookups, VoidLookups: ev.VoidLookups, VoidLimit: spf.MaxVoidLookups,
	}
	if ev.Cause != "" {
		out.Cause = new(string(ev.Cause))
	}
	if ev.Reason == spf.ReasonMatched {
		out.Mechanism, out.Term, out.Depth = new(string(ev.Mechanism)), new(ev.Term), new(ev.Depth)
	}
	return out
}

// checkedDomain is the domain of the identity, as the user typed it.
func checkedDomain(c spfEvalConfig) string {
	id := c.sender
	if id == "" {
		id = c.helo
	}
	if at := strings.LastIndexByte(id, '@'); at >= 0 {
		id = id[at+1:]
	}
	return cleanText(id)
}

// spfReasonText says each reason in a sentence (zh, en).
var spfReasonText = map[spf.EvalReason][2]string{
	spf.ReasonMatched:         {"一条机制匹配了该客户端，结果取其限定符。", "A mechanism matched the client; its qualifier gives the result."},
	spf.ReasonNoMatch:         {"没有机制匹配，记录也没有 redirect，结果为中性。", "No mechanism matched and the record has no redirect, so the result is neutral."},
	spf.ReasonNoRecord:        {"该域名没有 SPF 记录。", "The domain has no SPF record."},
	spf.ReasonInvalidDomain:   {"该身份的域名不是合法的多标签域名，无法检查。", "The identity's domain is not a valid multi-label domain name, so it cannot be checked."},
	spf.ReasonMultiple:        {"该域名有多条 SPF 记录。", "The domain has more than one SPF record."},
	spf.ReasonSyntax:          {"某条 SPF 记录有语法错误。", "An SPF record has a syntax error."},
	spf.ReasonIncludeNone:     {"include 引用的域名没有 SPF 记录。", "An include points to a domain without an SPF record."},
	spf.ReasonRedirectNone:    {"redirect 指向的域名没有 SPF 记录。", "The redirect points to a domain without an SPF record."},
	spf.ReasonLookupLimit:     limitText("评估需要超过 %d 次 DNS 查询。", "The evaluation needs more than %d DNS lookups.", spf.MaxLookups),
	spf.ReasonVoidLimit:       limitText("超过 %d 次查询没有返回记录。", "More than %d lookups returned no records.", spf.MaxVoidLookups),
	spf.ReasonMXLimit:         limitText("某个 mx 机制的目标有超过 %d 条 MX 记录。", "An mx mechanism's target has more than %d MX records.", spf.MaxMXNames),
	spf.ReasonDNSError:        {"一次 DNS 查询失败或超时。", "A DNS lookup failed or timed out."},
	spf.ReasonRecordLookupErr: {"查询 SPF 记录时 DNS 失败或超时。", "The DNS lookup of an SPF record failed or timed out."},
}

// limitText is a reason's sentence pair with the limit it names filled in
// from the spf package's constant, so that text and rule cannot drift.
func limitText(zh, en string, limit int) [2]string {
	return [2]string{fmt.Sprintf(zh, limit), fmt.Sprintf(en, limit)}
}

// renderSPFEval prints the evaluation for a person.
func renderSPFEval(w io.Writer, o spfEvalOutput, lang string) {
	zh := lang == "zh"
	say := func(r string) string {
		t := spfReasonText[spf.EvalReason(r)]
		if zh {
			return t[0]
		}
		return t[1]
	}
	if zh {
		fmt.Fprintf(w, "%s 的 SPF 评估结果（%s 身份）：%s\n", o.Domain, o.Identity, o.Result)
		fmt.Fprintf(w, "原因：%s（%s）\n", say(o.Reason), o.Reason)
	} else {
		fmt.Fprintf(w, "SPF result for %s (%s identity): %s\n", o.Domain, o.Identity, o.Result)
		fmt.Fprintf(w, "Reason: %s (%s)\n", say(o.Reason), o.Reason)
	}
	if o.Cause != nil {
		fmt.Fprintf(w, "  %s\n", *o.Cause)
	}
	if o.Mechanism != nil {
		if zh {
			fmt.Fprintf(w, "匹配的机制：第 %d 项（%s），位于第 %d 层记录（0 为该域名自身的记录）\n", *o.Term, *o.Mechanism, *o.Depth)
		} else {
			fmt.Fprintf(w, "Matched: term %d (%s) of the record at depth %d (0 is the domain's own record)\n", *o.Term, *o.Mechanism, *o.Depth)
		}
	}
	if zh {
		fmt.Fprintf(w, "DNS 查询：%d 次（上限 %d）；无结果查询：%d 次（上限 %d）\n", o.Lookups, o.LookupLimit, o.VoidLookups, o.VoidLimit)
	} else {
		fmt.Fprintf(w, "DNS lookups: %d (limit %d); void lookups: %d (limit %d)\n", o.Lookups, o.LookupLimit, o.VoidLookups, o.VoidLimit)
	}
	if spf.EvalReason(o.Reason) == spf.ReasonLookupLimit || o.Lookups > o.LookupLimit {
		if zh {
			fmt.Fprintf(w, "评估在第 %d 次查询时停止（RFC 7208 §4.6.4），所以上面的次数到此为止；mailauth scan 的 SPF 检查会统计整棵记录树的全部查询，显示的次数可能更多。\n", o.LookupLimit+1)
		} else {
			fmt.Fprintf(w, "Evaluation stops at lookup %d (RFC 7208 §4.6.4), so the count above ends there; the SPF check of mailauth scan counts every lookup of the whole record tree and may show a higher number.\n", o.LookupLimit+1)
		}
	}
}
