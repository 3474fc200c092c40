package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mailauth/mailauth/dane"
)

// recordLabels are the fixed words of the -records section, per language.
var recordLabels = map[string]map[string]string{
	"en": {
		"head":     "Your records, as your own resolver returns them",
		"note":     "Raw data for you only: the mailauth service never returns records. Do not paste it where others can see it if it is private.",
		"none":     "(none)",
		"unknown":  "(lookup inconclusive: no conclusive answer, so whether there is a record is unknown)",
		"dmarcUnk": "DMARC (policy discovery inconclusive: a lookup gave no conclusive answer)",
		"caaUnk":   "CAA (lookup inconclusive: the relevant set is unknown)",
		"nodeUnk":  "lookup inconclusive",
		"spf":      "SPF (TXT at %s)",
		"lookups":  "DNS lookups: %d of at most %d",
		"tree":     "Include tree (lookups each include or redirect costs, itself and everything behind it):",
		"cost":     "%d lookup",
		"costs":    "%d lookups",
		"problem":  "problem: %s",
		"dmarc":    "DMARC (found at %s)",
		"dmarcNo":  "DMARC (no record found at _dmarc of the domain or its parents)",
		"mtasts":   "MTA-STS (TXT at _mta-sts.%s)",
		"policy":   "Policy: version %s, mode %s, max_age %s",
		"policyMX": "Policy mx: %s",
		"noPolicy": "Policy: not fetched",
		"tlsrpt":   "TLS-RPT (TXT at _smtp._tls.%s)",
		"dkim":     "DKIM (TXT at %s; the key p= is elided)",
		"mx":       "MX",
		"nullMX":   "(null MX: accepts no mail)",
		"tlsa":     "DANE TLSA (_25._tcp.<mail server>; the association data is elided)",
		"tlsaUnk":  "(a TLSA lookup was inconclusive: records may be missing here)",
		"tlsaData": "(%d octets elided)",
		"tlsaOK":   "DNSSEC-validated",
		"tlsaNoAD": "not DNSSEC-validated",
		"tlsaLine": "%s, %s",
		"ptr":      "PTR of %s",
		"caa":      "CAA (found at %s)",
		"caaNo":    "CAA (none at the domain or its parents)",
	},
	"zh": {
		"head":     "你的记录（来自你自己的解析器）",
		"note":     "这些原始数据只显示给你：mailauth 服务从不返回记录。如涉及隐私，请勿粘贴到他人可见之处。",
		"none":     "（无）",
		"unknown":  "（查询没有明确结果，无法确定是否有记录）",
		"dmarcUnk": "DMARC（查找策略时有查询没有得到明确应答，无法确定）",
		"caaUnk":   "CAA（查询没有明确结果，无法确定适用的记录）",
		"nodeUnk":  "查询没有明确结果",
		"spf":      "SPF（%s 的 TXT 记录）",
		"lookups":  "DNS 查询：%d 次（上限 %d 次）",
		"tree":     "include 树（每个 include 或 redirect 占用的查询次数，含其本身及其后的全部内容）：",
		"cost":     "%d 次查询",
		"costs":    "%d 次查询",
		"problem":  "问题：%s",
		"dmarc":    "DMARC（位于 %s）",
		"dmarcNo":  "DMARC（该域名及其上级域名的 _dmarc 下都没有记录）",
		"mtasts":   "MTA-STS（_mta-sts.%s 的 TXT 记录）",
		"policy":   "策略：version %s，mode %s，max_age %s",
		"policyMX": "策略 mx：%s",
		"noPolicy": "策略：未获取到",
		"tlsrpt":   "TLS-RPT（_smtp._tls.%s 的 TXT 记录）",
		"dkim":     "DKIM（%s 的 TXT 记录；公钥 p= 已省略）",
		"mx":       "MX",
		"nullMX":   "（空 MX：不接收邮件）",
		"tlsa":     "DANE TLSA（_25._tcp.<收件服务器>；关联数据已省略）",
		"tlsaUnk":  "（有 TLSA 查询没有明确结果，这里可能缺少记录）",
		"tlsaData": "（已省略 %d 字节）",
		"tlsaOK":   "已通过 DNSSEC 验证",
		"tlsaNoAD": "未经 DNSSEC 验证",
		"tlsaLine": "%s，%s",
		"ptr":      "%s 的 PTR",
		"caa":      "CAA（位于 %s）",
		"caaNo":    "CAA（该域名及其上级域名都没有）",
	},
}

// recordPrinter writes the -records section. Every value comes from DNS
// or HTTPS, so each passes through cleanText before it reaches the
// terminal.
type recordPrinter struct {
	printer
}

func (p recordPrinter) label(key string, args ...any) string {
	m, ok := recordLabels[p.o.lang]
	if !ok {
		m = recordLabels["en"]
	}
	return fmt.Sprintf(m[key], args...)
}

// heading prints a sub-heading.
func (p recordPrinter) heading(s string) {
	p.line("  %s", p.style(s, ansiBold))
}

// values prints raw values, or (none), or, when the lookup was
// inconclusive and gave nothing, says so: unknown is not absent.
func (p recordPrinter) values(vs []string, inconclusive bool) {
	switch {
	case len(vs) == 0 && inconclusive:
		p.line("    %s", p.label("unknown"))
	case len(vs) == 0:
		p.line("    %s", p.label("none"))
	}
	for _, v := range vs {
		p.line("    %s", cleanText(v))
	}
}

// renderRecords prints the raw records of a local scan, marked as raw
// data from the user's own resolver.
func renderRecords(w io.Writer, r rawRecords, o renderOptions) {
	p := recordPrinter{printer{w, o}}
	name := cleanText(r.Domain)
	p.line("")
	p.line("%s", p.style(p.label("head")+": "+name, ansiBold))
	p.line("%s", p.style(p.label("note"), ansiDim))
	p.spf(r)
	unk := r.Inconclusive
	switch {
	case r.DMARCAt != "":
		p.heading(p.label("dmarc", cleanText(r.DMARCAt)))
		p.values(r.DMARC, false)
	case unk.DMARC:
		p.heading(p.label("dmarcUnk"))
	default:
		p.heading(p.label("dmarcNo"))
	}
	p.mtasts(r)
	p.heading(p.label("tlsrpt", name))
	p.values(r.TLSRPT, unk.TLSRPT)
	if r.DKIMAt != "" {
		p.heading(p.label("dkim", cleanText(r.DKIMAt)))
		p.values(r.DKIM, unk.DKIM)
	}
	p.heading(p.label("mx"))
	p.values(mxLines(r.MX, p.label("nullMX")), unk.MX)
	p.tlsa(r)
	if r.PTRFor != "" {
		p.heading(p.label("ptr", cleanText(r.PTRFor)))
		p.values(r.PTR, unk.PTR)
	}
	switch {
	case r.CAAAt != "":
		p.heading(p.label("caa", cleanText(r.CAAAt)))
		p.values(caaLines(r.CAA), false)
	case unk.CAA:
		p.heading(p.label("caaUnk"))
	default:
		p.heading(p.label("caaNo"))
	}
}

// spf prints the SPF records, the lookup count and the include tree.
func (p recordPrinter) spf(r rawRecords) {
	p.heading(p.label("spf", cleanText(r.Domain)))
	p.values(r.SPF, r.Inconclusive.SPF)
	if r.SPFLookups != nil {
		p.line("    %s", p.label("lookups", *r.SPFLookups, r.SPFLookupLimit))
	}
	if len(r.SPFIncludes) > 0 {
		p.line("    %s", p.label("tree"))
		p.includes(r.SPFIncludes, "      ")
	}
}

// includes prints one level of the include tree, numbered by position.
func (p recordPrinter) includes(incs []spfNode, indent string) {
	for i, inc := range incs {
		cost := p.label("costs", inc.Lookups)
		if inc.Lookups == 1 {
			cost = p.label("cost", inc.Lookups)
		}
		term := "include:"
		if inc.Redirect {
			term = "redirect="
		}
		line := fmt.Sprintf("%s%d. %s%s — %s", indent, i+1, term, cleanText(inc.Target), cost)
		if inc.Problem != "" {
			line += "; " + p.label("problem", cleanText(string(inc.Problem)))
		}
		if inc.Inconclusive {
			line += "; " + p.label("nodeUnk")
		}
		p.line("%s", line)
		p.includes(inc.Includes, indent+"   ")
	}
}

// tlsa prints the mail servers' TLSA records, when the domain has mail
// servers: usage, selector and matching type as numbers and RFC 7218
// mnemonics, the association data elided like a DKIM key.
func (p recordPrinter) tlsa(r rawRecords) {
	hosts := false
	for _, m := range r.MX {
		hosts = hosts || m.Host != ""
	}
	if !hosts {
		return
	}
	p.heading(p.label("tlsa"))
	lines := make([]string, 0, len(r.TLSA))
	for _, t := range r.TLSA {
		ad := p.label("tlsaNoAD")
		if t.Validated {
			ad = p.label("tlsaOK")
		}
		kind := dane.UsageName(t.Usage) + " " + dane.SelectorName(t.Selector) + " " + dane.MatchingName(t.MatchingType)
		lines = append(lines, fmt.Sprintf("_25._tcp.%s TLSA %d %d %d %s — %s", t.Host, t.Usage, t.Selector, t.MatchingType,
			p.label("tlsaData", t.DataLength), p.label("tlsaLine", kind, ad)))
	}
	p.values(lines, r.Inconclusive.TLSA)
	if len(lines) > 0 && r.Inconclusive.TLSA {
		p.line("    %s", p.label("tlsaUnk"))
	}
}

// mtasts prints the announcement records and the fetched policy.
func (p recordPrinter) mtasts(r rawRecords) {
	p.heading(p.label("mtasts", cleanText(r.Domain)))
	p.values(r.MTASTS, r.Inconclusive.MTASTS)
	if len(r.MTASTS) == 0 {
		return
	}
	pol := r.MTASTSPolicy
	if pol == nil {
		p.line("    %s", p.label("noPolicy"))
		return
	}
	maxAge := "-"
	if pol.MaxAge != nil {
		maxAge = strconv.FormatInt(*pol.MaxAge, 10)
	}
	p.line("    %s", p.label("policy", cleanText(orDash(pol.Version)), cleanText(orDash(string(pol.Mode))), maxAge))
	if len(pol.MX) > 0 {
		p.line("    %s", p.label("policyMX", cleanText(strings.Join(pol.MX, ", "))))
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// mxLines are "preference host" lines; a null MX says so.
func mxLines(mx []mxRecord, null string) []string {
	out := make([]string, 0, len(mx))
	for _, m := range mx {
		host := m.Host
		if host == "" {
			host = ". " + null
		}
		out = append(out, strconv.Itoa(int(m.Preference))+" "+host)
	}
	return out
}

// caaLines are CAA records in zone-file form.
func caaLines(caa []caaRecord) []string {
	out := make([]string, 0, len(caa))
	for _, c := range caa {
		out = append(out, fmt.Sprintf("%d %s %q", c.Flags, c.Tag, c.Value))
	}
	return out
}
