package mailauth

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/mailauth/mailauth/resolver"
)

// Progress counts the DNS replies a scan has received, so that whoever
// runs the scan can tell one that is moving from one whose domain has
// given nothing for a while (the HTTP service cuts the latter's deadline
// when its slots run short). Its zero value is ready to use and it is
// safe for concurrent use.
type Progress struct {
	answers atomic.Int64
	last    atomic.Int64 // UnixNano of the latest reply; 0 before the first
}

// Answers returns the number of DNS replies received so far: answers,
// denials and error codes, not time-outs, unreachable servers, canceled
// or refused-by-budget lookups. Answers from the shared cache count.
func (p *Progress) Answers() int64 { return p.answers.Load() }

// Last returns when the latest DNS reply came, the zero Time before the
// first.
func (p *Progress) Last() time.Time {
	if n := p.last.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// progressKey is the context key of WithProgress.
type progressKey struct{}

// WithProgress returns ctx carrying p: a scan run with that context
// counts its DNS replies in p.
func WithProgress(ctx context.Context, p *Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// noteProgress wraps next so that every lookup that got a DNS reply
// moves the Progress its context carries, if any.
func noteProgress(next resolver.Resolver) resolver.Resolver {
	return resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
		a := next.Lookup(ctx, name, qtype)
		if p, ok := ctx.Value(progressKey{}).(*Progress); ok && repliedTo(a.Reason) {
			p.last.Store(time.Now().UnixNano())
			p.answers.Add(1)
		}
		return a
	})
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
