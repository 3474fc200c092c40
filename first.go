package mailauth

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/mailauth/mailauth/caa"
	"github.com/mailauth/mailauth/dmarc"
	"github.com/mailauth/mailauth/mtasts"
	"github.com/mailauth/mailauth/mx"
	"github.com/mailauth/mailauth/ptr"
	"github.com/mailauth/mailauth/resolver"
)

// The first questions of the checks that run on a goroutine of their own
// (checkSpec.first): the names from each check's package, so that the
// scan answers the check's own lookups of them
// (TestFirstQuestionsAreTheChecks). A check waits only for the question
// it waits on before anything else; what it begins beside that question
// is begun, not waited for (a slow side question would otherwise hold
// back the rest of the check).

// firstMX: the domain's MX, whose answer begins the early DANE lookups
// (earlyDANE.seen) on the goroutine that hands it on, as mx.Check's own
// lookup of it would (its answer from the scan would run them on the MX
// check's goroutine instead, under mx.Check's frames: its stack then
// outgrew 8 KiB in every scan of BenchmarkScansInFlight); and then the A
// and AAAA questions mx.Check asks on that answer (mx.AddressNames), which
// the check waits for too: it starts when the addresses of its exchanges
// are in, rather than waiting for them on a goroutine of its own.
func firstMX(r *run, ctx context.Context, dns resolver.Resolver, ask askFunc) {
	r.mxEarly = r.beginDANEEarly(ctx, dns)
	domain := resolver.CanonicalName(r.domain.ASCII)
	ask(domain, resolver.TypeMX, firstWaits, func(a resolver.Answer) {
		r.mxEarly.seen(a)
		for _, name := range mx.AddressNames(domain, a) {
			ask(name, resolver.TypeA, firstWaits, nil)
			ask(name, resolver.TypeAAAA, firstWaits, nil)
		}
	})
}

func firstSPF(r *run, _ context.Context, _ resolver.Resolver, ask askFunc) {
	ask(resolver.CanonicalName(r.domain.ASCII), resolver.TypeTXT, firstWaits, nil)
}

// firstDMARC: the walk's first name; the domain's MX and TXT, which
// dmarc.Check begins beside the walk.
func firstDMARC(r *run, _ context.Context, _ resolver.Resolver, ask askFunc) {
	d := resolver.CanonicalName(r.domain.ASCII)
	ask(dmarc.RecordName(d), resolver.TypeTXT, firstWaits, nil)
	ask(d, resolver.TypeMX, firstBeside, nil)
	ask(d, resolver.TypeTXT, firstBeside, nil)
}

// firstMTASTS: the announcement, and then, when its answer makes
// mtasts.Check fetch the policy (mtasts.Fetches), the policy host's A and
// AAAA questions, which the check waits for too: it starts when the
// addresses it will connect to are in, rather than waiting for them on a
// goroutine of its own. The fetch's own time-out then starts with the
// addresses in hand; the lookups keep their own time-outs and the check's
// deadline.
func firstMTASTS(r *run, _ context.Context, _ resolver.Resolver, ask askFunc) {
	domain := resolver.CanonicalName(r.domain.ASCII)
	ask(mtasts.RecordName(domain), resolver.TypeTXT, firstWaits, func(a resolver.Answer) {
		if mtasts.Fetches(a) {
			host := mtasts.PolicyHost(domain)
			ask(host, resolver.TypeA, firstWaits, nil)
			ask(host, resolver.TypeAAAA, firstWaits, nil)
		}
	})
}

func firstPTR(r *run, _ context.Context, _ resolver.Resolver, ask askFunc) {
	if name, ok := ptr.Question(r.ip); ok {
		ask(name, resolver.TypePTR, firstWaits, nil)
	}
}

// firstCAA: the climb's first name; the MTA-STS host's, which caa.Check
// begins beside the climb.
func firstCAA(r *run, _ context.Context, _ resolver.Resolver, ask askFunc) {
	d := resolver.CanonicalName(r.domain.ASCII)
	ask(d, resolver.TypeCAA, firstWaits, nil)
	ask(caa.MTASTSHost(d), resolver.TypeCAA, firstBeside, nil)
}

// firstFunc is checkSpec.first: it calls ask with each of the check's
// first questions; ctx and dns are the check's, as its check function
// gets them.
type firstFunc func(r *run, ctx context.Context, dns resolver.Resolver, ask askFunc)

// askFunc begins a check's first question (see beginFirst): the check
// starts once every question asked with firstWaits is answered; seen,
// when not nil, gets the answer first, on the goroutine that hands it
// on, and may ask more questions the check then waits for too (the
// answer it is given counts as in only once seen returns).
type askFunc func(name string, qtype resolver.Type, wait bool, seen func(resolver.Answer))

// An askFunc's wait.
const (
	firstWaits = true // the check waits for it before anything else
	// firstBeside: the check begins it beside those. The check then
	// waits on the scan's question rather than sending it: at the
	// deadline, a waiter gets ReasonCanceled where the sender may get
	// the answer that lands at that instant (attributed alike: the
	// deadline ended it), as for any question two checks share.
	firstBeside = false
)

// beginFirst begins the questions first names for a check (see
// checkSpec.first) below log's budget and notes, which the check's own
// lookups of them pass, and calls then on a goroutine of its own, once,
// when those it waits for are answered; at once when there is none. A
// name longer than a DNS name may be is not asked: no check asks it. A
// panic in first leaves the questions it did not begin to the check,
// which asks them itself.
func (r *run) beginFirst(ctx context.Context, first firstFunc, log *faultLog, then func()) {
	pending := new(atomic.Int32)
	pending.Store(1) // until every question is begun
	land := func(resolver.Answer) {
		if pending.Add(-1) == 0 {
			go then()
		}
	}
	defer land(resolver.Answer{})
	defer func() { _ = recover() }()
	first(r, ctx, log, func(name string, qtype resolver.Type, wait bool, seen func(resolver.Answer)) {
		if len(name) > MaxDomainLen {
			return
		}
		log.begun(name, qtype, time.Now())
		if !wait {
			resolver.Start(ctx, log.next, name, qtype, ignoreAnswer)
			return
		}
		pending.Add(1)
		done := land
		if seen != nil {
			done = func(a resolver.Answer) {
				defer land(a) // also when seen panics: the check starts
				seen(a)
			}
		}
		resolver.Start(ctx, log.next, name, qtype, done)
	})
}

// ignoreAnswer is the done of a question begun for the scan's answer to
// a later lookup of it.
func ignoreAnswer(resolver.Answer) {}
