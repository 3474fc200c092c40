package mailauth

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
)

// text is one catalogue entry: a message in Chinese and English. Its only
// parameters are integers (%d), so no value taken from DNS or HTTPS can
// ever be worded into a response: counts, never names.
type text struct {
	zh, en string
	// shown is set the first time the entry is rendered by with, so that
	// the tests can prove every catalogue entry is reached by some test
	// (text_reach_test.go) without a hook for them to set: it only ever
	// goes from false to true. Nil for a text not made by msg.
	shown *atomic.Bool
}

// catalogue lists every text, so tests can check them all.
var catalogue []text

// msg defines a catalogue entry. Use it only in package-level var blocks.
// limits are the constants a sentence states (a protocol limit, a size):
// they fill its first %d verbs now, so the sentence can never disagree
// with the constant; the verbs left for the counts given to with are
// written %%d.
func msg(zh, en string, limits ...int) text {
	if len(limits) > 0 {
		a := make([]any, len(limits))
		for i, v := range limits {
			a[i] = v
		}
		zh, en = fmt.Sprintf(zh, a...), fmt.Sprintf(en, a...)
	}
	t := text{zh: zh, en: en, shown: new(atomic.Bool)}
	catalogue = append(catalogue, t)
	return t
}

// with renders t with integer arguments and marks it shown.
func (t text) with(args ...int) LocalizedText {
	if t.shown != nil && !t.shown.Load() {
		t.shown.Store(true)
	}
	return t.format(args...)
}

// format renders t with integer arguments without marking it shown
// (for the expected values of tests).
func (t text) format(args ...int) LocalizedText {
	if len(args) == 0 {
		return LocalizedText{ZH: t.zh, EN: t.en}
	}
	return LocalizedText{ZH: sprintInts(t.zh, args), EN: sprintInts(t.en, args)}
}

// sprintInts is fmt.Sprintf(format, args...). A format whose verbs are
// all plain %d, one per argument, and %% (most of the catalogue) is
// rendered without fmt: no boxing of the arguments, no reflection, one
// allocation. Any other (an indexed verb, a count that does not match)
// goes to fmt.
func sprintInts(format string, args []int) string {
	if !plainInts(format, len(args)) {
		a := make([]any, len(args))
		for i, v := range args {
			a[i] = v
		}
		return fmt.Sprintf(format, a...)
	}
	var b strings.Builder
	b.Grow(len(format) + 8*len(args))
	n := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			b.WriteByte(format[i])
			continue
		}
		i++ // plainInts: a %% or a %d follows
		if format[i] == '%' {
			b.WriteByte('%')
			continue
		}
		var digits [20]byte
		b.Write(strconv.AppendInt(digits[:0], int64(args[n]), 10))
		n++
	}
	return b.String()
}

// plainInts reports whether format's only verbs are %% and exactly n
// plain %d.
func plainInts(format string, n int) bool {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		if i++; i == len(format) {
			return false
		}
		switch format[i] {
		case '%':
		case 'd':
			n--
		default:
			return false
		}
	}
	return n == 0
}

// The separators joinTexts puts between sentences (the leak guard's
// vocabulary knows them, see outputVocabulary).
const (
	zhSeparator = ""
	enSeparator = " "
)

// joinTexts joins sentences: English with a space, Chinese without one
// (Chinese sentences end in a full-width stop).
func joinTexts(parts []LocalizedText) LocalizedText {
	zh := make([]string, 0, len(parts))
	en := make([]string, 0, len(parts))
	for _, p := range parts {
		zh, en = append(zh, p.ZH), append(en, p.EN)
	}
	return LocalizedText{ZH: strings.Join(zh, zhSeparator), EN: strings.Join(en, enSeparator)}
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
		"DNS 查询没有得到可用的应答（错误应答没有说明原因、应答无法使用，或本次扫描的查询次数已用尽），因此无法判断记录是否存在。这类问题既不能确定出在该域名上，也不能确定出在本服务上，重新扫描通常可以解决。",
		"The DNS lookup gave no usable answer (an error reply that names no cause, a reply that could not be used, or the scan's query budget ran out), so it cannot be determined whether the record exists. The cause can be pinned neither on the domain nor on this service; scanning again usually helps.")
	txtTimedOut = msg(
		"无法确定：检查未能在扫描时限内完成。",
		"Could not be determined: the check did not finish within the scan deadline.")
	txtInternal = msg(
		"无法确定：检查过程中发生内部错误。",
		"Could not be determined: the check hit an internal error.")
	txtNoDetails          = msg("没有更多细节。", "No further details.")
	txtNotFinishedDetails = msg("该检查没有得出结论，因此它的各项事实都标记为未知。", "The check reached no conclusion, so its facts are all reported as unknown.")

	txtOverallA            = msg("邮件认证与传输安全配置良好：已评估的 %[2]d 项检查中有 %[1]d 项通过。", "Email authentication and transport security are in good shape: %d of %d evaluated checks pass.")
	txtOverallB            = msg("整体配置较好，部分检查项存在不足：已评估的 %[2]d 项检查中有 %[1]d 项通过。", "Mostly well configured; some checks show weaknesses: %d of %d evaluated checks pass.")
	txtOverallC            = msg("配置存在明显不足：已评估的 %[2]d 项检查中有 %[1]d 项通过。", "The configuration has notable gaps: %d of %d evaluated checks pass.")
	txtOverallD            = msg("配置薄弱，容易被冒用或投递受影响：已评估的 %[2]d 项检查中有 %[1]d 项通过。", "The configuration is weak; spoofing and delivery problems are likely: %d of %d evaluated checks pass.")
	txtOverallF            = msg("邮件认证配置严重缺失：已评估的 %[2]d 项检查中有 %[1]d 项通过。", "Email authentication is largely missing: %d of %d evaluated checks pass.")
	txtOverallUndetermined = msg("其中 %d 项无法确定（DNS 应答无法使用，或检查未能及时完成），不计入得分。", "Of these, %d could not be determined (DNS answers could not be used, or the check did not finish in time) and are left out of the score.")
	txtOverallIncomplete   = msg(
		"扫描不完整：已评估的 %[2]d 项检查中有 %[1]d 项无法确定（DNS 应答无法使用，或检查未能及时完成），无法给出评分和等级。请稍后重新扫描。",
		"The scan is incomplete: %d of %d evaluated checks could not be determined (DNS answers could not be used, or the checks did not finish in time), so no score or grade can be given. Repeat the scan later.")
	txtOverallSlow = msg(
		"扫描不完整：本次扫描在等待该域名的服务器应答时用完了时间，已评估的 %[2]d 项检查中有 %[1]d 项没能得出结论，无法给出评分和等级。这不是失败：请重新扫描，届时解析器通常已经缓存了这些应答。",
		"The scan is incomplete: it ran out of time waiting for the domain's servers, and %d of %d evaluated checks reached no conclusion, so no score or grade can be given. This is not a failure: scan again, and the resolver will usually have the answers cached.")
	txtOverallSlowSome = msg(
		"其中 %d 项在等待该域名的服务器应答时用完了时间，不计入得分；重新扫描即可补齐。",
		"Of these, %d ran out of time waiting for the domain's servers and are left out of the score; scan again to complete them.")
	txtOverallNone = msg("没有可评估的检查项。", "No check could be evaluated.")

	txtPTRNotEvaluated        = msg("未评估：没有提供发件 IP。", "Not evaluated: no sending IP was supplied.")
	txtPTRNotEvaluatedDetails = msg(
		"反向解析检查需要实际发信使用的公网 IP 地址；本服务不会自行猜测。",
		"The reverse DNS check needs the actual public IP address mail is sent from; this service never guesses one.")
	txtDKIMNotEvaluated        = msg("未评估：没有提供 DKIM 选择器。", "Not evaluated: no DKIM selector was supplied.")
	txtDKIMNotEvaluatedDetails = msg(
		"DKIM 密钥只能通过选择器查到。选择器可以从邮件服务商处或已发邮件的 DKIM-Signature 头（s= 标签）中获得；本服务从不猜测选择器。",
		"A DKIM key can only be looked up by its selector, found in the s= tag of a sent message's DKIM-Signature header or in the mail provider's settings. This service never guesses selectors.")
)

// overallTexts maps a grade to its overall summary.
var overallTexts = map[Grade]text{
	GradeA: txtOverallA, GradeB: txtOverallB, GradeC: txtOverallC, GradeD: txtOverallD, GradeF: txtOverallF,
}
