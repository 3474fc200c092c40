package mailauth

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/mailauth/mailauth/resolver"
)

// Progress counts the DNS replies a scan has received and notes when it
// last got something (a DNS reply, or a step of its MTA-STS policy fetch:
// the connection made, bytes from the policy server), so that whoever
// runs the scan can tell one that is moving from one whose domain has
// given nothing for a while (the HTTP service cuts the latter's deadline
// when its slots run short). Its zero value is ready to use and it is
// safe for concurrent use.
type Progress struct {
	answers atomic.Int64
	last    atomic.Int64 // monoBase-relative nanoseconds of the latest reply, plus one; 0 before the first
}

// monoBase is the process's reference instant for Progress: times are kept
// as the monotonic time elapsed since it, so that a step of the wall clock
// (NTP, an operator) makes no scan look stalled or fresh.
var monoBase = time.Now()

// Answers returns the number of DNS replies received so far: answers,
// denials and error codes, not time-outs, unreachable servers, canceled
// or refused-by-budget lookups. Answers from the shared cache count.
func (p *Progress) Answers() int64 { return p.answers.Load() }

// Last returns when the latest DNS reply or policy fetch step came, the
// zero Time before the first. The Time carries a monotonic clock reading, so comparing it with
// time.Now (Sub, Before, After) is immune to steps of the wall clock.
func (p *Progress) Last() time.Time {
	if n := p.last.Load(); n != 0 {
		return monoBase.Add(time.Duration(n - 1))
	}
	return time.Time{}
}

// note records that the scan got something now.
func (p *Progress) note() { p.last.Store(int64(time.Since(monoBase)) + 1) }

// fetchProgress returns the func a policy fetch run with ctx calls at
// each of its steps (mtasts.Options.Progress): nil when ctx carries no
// Progress.
func fetchProgress(ctx context.Context) func() {
	if p, ok := ctx.Value(progressKey{}).(*Progress); ok {
		return p.note
	}
	return nil
}

// progressKey is the context key of WithProgress.
type progressKey struct{}

// WithProgress returns ctx carrying p: a scan run with that context
// counts its DNS replies in p.
func WithProgress(ctx context.Context, p *Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// noteProgress moves the Progress ctx carries, if any, when the answer a
// lookup got came from a DNS reply. The guard's resolver calls it with
// every answer (redact.Set.ScanResolverThen), beneath the per-scan
// resolver: once per distinct question.
func noteProgress(ctx context.Context, a resolver.Answer) {
	if p, ok := ctx.Value(progressKey{}).(*Progress); ok && repliedTo(a.Reason) {
		p.note()
		p.answers.Add(1)
	}
}

// repliedTo reports whether a lookup that ended for reason got a reply
// from the DNS.
func repliedTo(reason resolver.Reason) bool {
	switch reason {
	case resolver.ReasonTimeout, resolver.ReasonNetwork, resolver.ReasonCanceled, resolver.ReasonSlow,
		resolver.ReasonBudgetExhausted, resolver.ReasonNoReachableAuthority:
		return false
	}
	return true
}
