package mailauth

import (
	"fmt"
	"strings"
)

// text is one catalogue entry: a message in Chinese and English. Its only
// parameters are integers (%d), so no value taken from DNS or HTTPS can
// ever be worded into a response: counts, never names.
type text struct {
	zh, en string
}

// catalogue lists every text, so tests can check them all.
var catalogue []text

// msg defines a catalogue entry. Use it only in package-level var blocks.
func msg(zh, en string) text {
	t := text{zh: zh, en: en}
	catalogue = append(catalogue, t)
	return t
}

// with renders t with integer arguments.
func (t text) with(args ...int) LocalizedText {
	if len(args) == 0 {
		return LocalizedText{ZH: t.zh, EN: t.en}
	}
	a := make([]any, len(args))
	for i, v := range args {
		a[i] = v
	}
	return LocalizedText{ZH: fmt.Sprintf(t.zh, a...), EN: fmt.Sprintf(t.en, a...)}
}

// joinTexts joins sentences: English with a space, Chinese without one
// (Chinese sentences end in a full-width stop).
func joinTexts(parts []LocalizedText) LocalizedText {
	zh := make([]string, 0, len(parts))
	en := make([]string, 0, len(parts))
	for _, p := range parts {
		zh, en = append(zh, p.ZH), append(en, p.EN)
	}
	return LocalizedText{ZH: strings.Join(zh, ""), EN: strings.Join(en, " ")}
}

// Titles of the checks.
var titles = map[CheckID]text{
	CheckMX:     msg("收件服务器（MX）", "Mail servers (MX)"),
	CheckSPF:    msg("发件授权（SPF）", "Sender authorization (SPF)"),
	CheckDMARC:  msg("DMARC 策略", "DMARC policy"),
	CheckDKIM:   msg("DKIM 签名密钥", "DKIM signing key"),
	CheckMTASTS: msg("强制 TLS 传输（MTA-STS）", "Enforced TLS delivery (MTA-STS)"),
	CheckTLSRPT: msg("TLS 报告（TLS-RPT）", "TLS reporting (TLS-RPT)"),
	CheckPTR:    msg("反向解析（PTR）", "Reverse DNS (PTR)"),
	CheckCAA:    msg("证书颁发授权（CAA）", "Certificate authority authorization (CAA)"),
}

// Texts shared by every check and by the overall result.
var (
	txtDisclaimer = msg(
		"结果仅反映扫描时公开的 DNS 与 HTTPS 配置，不保证邮件能进入收件箱，也不能替代安全或合规审计。",
		"Results describe the public DNS and HTTPS configuration at scan time. They do not guarantee inbox placement and do not replace a security or compliance audit.")
	txtInconclusive = msg(
		"无法确定：DNS 查询未得到明确结果。",
		"Could not be determined: a DNS lookup gave no conclusive answer.")
	txtInconclusiveDetails = msg(
		"解析器返回了服务器错误或超时，因此无法判断记录是否存在。这通常是暂时的，也可能说明域名的权威服务器有问题。",
		"The resolver returned a server failure or timed out, so whether the record exists cannot be told. This is often temporary, but it can also point to a problem with the domain's authoritative servers.")
	txtTimedOut = msg(
		"无法确定：检查未能在扫描时限内完成。",
		"Could not be determined: the check did not finish within the scan deadline.")
	txtInternal = msg(
		"无法确定：检查过程中发生内部错误。",
		"Could not be determined: the check hit an internal error.")
	txtNoDetails = msg("没有更多细节。", "No further details.")

	txtOverallA    = msg("邮件认证与传输安全配置良好：已评估的 %[2]d 项检查中有 %[1]d 项通过。", "Email authentication and transport security are in good shape: %d of %d evaluated checks pass.")
	txtOverallB    = msg("整体配置较好，但仍有可改进之处：已评估的 %[2]d 项检查中有 %[1]d 项通过。", "Mostly well configured, with room for improvement: %d of %d evaluated checks pass.")
	txtOverallC    = msg("配置存在明显不足：已评估的 %[2]d 项检查中有 %[1]d 项通过。", "The configuration has notable gaps: %d of %d evaluated checks pass.")
	txtOverallD    = msg("配置薄弱，容易被冒用或投递受影响：已评估的 %[2]d 项检查中有 %[1]d 项通过。", "The configuration is weak; spoofing and delivery problems are likely: %d of %d evaluated checks pass.")
	txtOverallF    = msg("邮件认证配置严重缺失：已评估的 %[2]d 项检查中有 %[1]d 项通过。", "Email authentication is largely missing: %d of %d evaluated checks pass.")
	txtOverallNone = msg("没有可评估的检查项。", "No check could be evaluated.")

	txtPTRNotEvaluated        = msg("未评估：没有提供发件 IP。", "Not evaluated: no sending IP was supplied.")
	txtPTRNotEvaluatedDetails = msg(
		"反向解析检查需要实际的公网出站 IP 地址；不提供时不会猜测。",
		"The reverse DNS check needs the actual public outbound IP address; without one, none is guessed.")
	txtDKIMNotEvaluated        = msg("未评估：没有提供 DKIM 选择器。", "Not evaluated: no DKIM selector was supplied.")
	txtDKIMNotEvaluatedDetails = msg(
		"DKIM 密钥只能通过选择器查到。选择器可以从邮件服务商处或已发邮件的 DKIM-Signature 头（s= 标签）中获得；本服务从不猜测选择器。",
		"A DKIM key can only be found through its selector, which the mail provider or the DKIM-Signature header (s= tag) of a sent message gives. This service never guesses selectors.")
)

// overallTexts maps a grade to its overall summary.
var overallTexts = map[Grade]text{
	GradeA: txtOverallA, GradeB: txtOverallB, GradeC: txtOverallC, GradeD: txtOverallD, GradeF: txtOverallF,
}
