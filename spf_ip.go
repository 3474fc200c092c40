package mailauth

import (
	"context"
	"sync/atomic"

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

// spfIPBudgetText replaces the temperror sentence when the evaluation
// stopped because the check's share of the scan's DNS budget was spent:
// the domain's DNS did not fail, this scan stopped asking.
var spfIPBudgetText = msg("评估发件 IP 所需的 DNS 查询超出了本次扫描的查询上限，因此没有得出 SPF 结果。",
	"Evaluating the sending IP needed more DNS questions than this scan allows, so there is no SPF result for it.")

// budgetWatch passes lookups on and notes whether one was refused because
// the budget was spent (resolver.ReasonBudgetExhausted).
type budgetWatch struct {
	resolver.Resolver
	spent atomic.Bool
}

// Lookup implements resolver.Resolver.
func (w *budgetWatch) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	a := w.Resolver.Lookup(ctx, name, qtype)
	if a.Reason == resolver.ReasonBudgetExhausted {
		w.spent.Store(true)
	}
	return a
}

// spfSendingIP evaluates the domain's SPF policy for the scan's sending IP
// as a receiver would for mail from postmaster@<domain> with the domain as
// HELO name (RFC 7208 check_host), and returns the sentence that says the
// result; nothing when the scan has no sending IP.
func (r *run) spfSendingIP(ctx context.Context, dns resolver.Resolver) []LocalizedText {
	if !r.ip.IsValid() {
		return nil
	}
	watch := &budgetWatch{Resolver: dns}
	ev, err := spf.Evaluate(ctx, watch, spf.Query{IP: r.ip, Sender: "postmaster@" + r.domain.ASCII, HELO: r.domain.ASCII})
	if err != nil {
		return nil // a normalized IP and domain are always a valid query
	}
	if ev.Verdict == spf.VerdictTempError && watch.spent.Load() {
		return []LocalizedText{spfIPBudgetText.with()}
	}
	t, ok := spfIPTexts[ev.Verdict]
	if !ok {
		return nil
	}
	return []LocalizedText{t.with()}
}
