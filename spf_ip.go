package mailauth

import (
	"context"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/spf"
)

// spfIPTexts say what the domain's SPF policy answers for the scan's
// sending IP (spf.Evaluate); one sentence added to the SPF details, which
// never changes the check's status.
var spfIPTexts = map[spf.Verdict]text{
	spf.VerdictPass:      msg("发件 IP 已获得该域名 SPF 策略的授权（pass）。", "The sending IP is authorized by the domain's SPF policy (pass)."),
	spf.VerdictFail:      msg("发件 IP 未获得该域名 SPF 策略的授权（fail），接收方可能拒收它以该域名发出的邮件。", "The sending IP is not authorized by the domain's SPF policy (fail); receivers may reject its mail for the domain."),
	spf.VerdictSoftFail:  msg("SPF 策略对发件 IP 给出软失败（softfail）：它很可能未获授权。", "The SPF policy gives the sending IP a soft fail (softfail): it is probably not authorized."),
	spf.VerdictNeutral:   msg("SPF 策略对发件 IP 不作表态（neutral），既不授权也不拒绝。", "The SPF policy makes no assertion about the sending IP (neutral): it neither authorizes nor refuses it."),
	spf.VerdictNone:      msg("没有可用来评估发件 IP 的 SPF 记录（none）。", "There is no SPF record to evaluate the sending IP against (none)."),
	spf.VerdictTempError: msg("评估发件 IP 时 DNS 查询失败，暂时无法判断它是否获得授权（temperror）。", "A DNS lookup failed while evaluating the sending IP, so whether it is authorized is not known (temperror)."),
	spf.VerdictPermError: msg("SPF 策略无法评估，接收方对发件 IP 会得到永久错误（permerror）。", "The SPF policy cannot be evaluated, so receivers get a permanent error for the sending IP (permerror)."),
}

// spfSendingIP evaluates the domain's SPF policy for the scan's sending IP
// as a receiver would for mail from postmaster@<domain> with the domain as
// HELO name (RFC 7208 check_host), and returns the sentence that says the
// result; nothing when the scan has no sending IP.
func (r *run) spfSendingIP(ctx context.Context, dns resolver.Resolver) []LocalizedText {
	if !r.ip.IsValid() {
		return nil
	}
	ev, err := spf.Evaluate(ctx, dns, spf.Query{IP: r.ip, Sender: "postmaster@" + r.domain.ASCII, HELO: r.domain.ASCII})
	if err != nil {
		return nil // a normalized IP and domain are always a valid query
	}
	t, ok := spfIPTexts[ev.Verdict]
	if !ok {
		return nil
	}
	return []LocalizedText{t.with()}
}
