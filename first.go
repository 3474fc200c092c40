package mailauth

import (
	"context"
	"sync"
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
// (TestFirstQuestionsAreTheChecks). A check waits for all of them.
// Where a check's next questions follow from an answer (an MX answer's
// exchanges, a CAA climb, a DMARC walk and its report destinations, the
// MTA-STS policy host, a PTR answer's names), the answer's seen function
// asks them, with the decision taken by the check's own package
// (mx.AddressNames, caa.ClimbNext, dmarc.Walk, mtasts.Fetches,
// ptr.ForwardQuestions): the search goes on as its answers come, whether
// or not the check runs yet, and the check starts with its answers in
// rather than waiting for them on a goroutine of its own. A question
// asked beside the search (DMARC's MX and TXT, CAA's MTA-STS host) is one
// the check waits for before it judges anyway, so waiting for it first
// holds nothing back.

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
	ask(domain, resolver.TypeMX, func(a resolver.Answer) {
		r.mxEarly.seen(a)
		for _, name := range mx.AddressNames(domain, a) {
			ask(name, resolver.TypeA, nil)
			ask(name, resolver.TypeAAAA, nil)
		}
	})
}

func firstSPF(r *run, _ context.Context, _ resolver.Resolver, ask askFunc) {
	ask(resolver.CanonicalName(r.domain.ASCII), resolver.TypeTXT, nil)
}

// firstDMARC: the walk, each name asked when the answer before it calls
// for it (dmarc.Walk), and the domain's MX and TXT, which dmarc.Check
// asks beside the walk; then, once the walk is over and the MX and TXT
// answers are in, as in dmarc.Check, the authorization records of the
// selected record's destinations in other organizations. The check
// waits for them all: it starts with its discovery done, rather than
// waiting for the walk's answers on a goroutine of its own. Waiting for
// the MX and TXT answers too holds nothing back: the walk goes on as its
// answers come, and the check's discovery waits for both before it
// judges. A destination in the policy domain's organization by the
// Public Suffix List needs a tree walk of its own first, which the check
// does itself.
func firstDMARC(r *run, _ context.Context, _ resolver.Resolver, ask askFunc) {
	d := resolver.CanonicalName(r.domain.ASCII)
	var (
		mu         sync.Mutex // the answers come on other goroutines
		walk       = dmarc.NewWalk(d)
		over       bool // the walk is over
		beside     = 2  // the MX and TXT answers still to come
		authorized bool // the authorizations were asked
	)
	// step runs f under mu (released even if f panics: another answer's
	// goroutine would wait on it for good) and returns the authorizations
	// to ask then: once, when the walk is over and the questions beside
	// it are answered. The caller asks them, mu released.
	step := func(f func()) []string {
		mu.Lock()
		defer mu.Unlock()
		f()
		if !over || beside > 0 || authorized {
			return nil
		}
		authorized = true
		return walk.Authorizations()
	}
	authorize := func(auths []string) {
		for _, auth := range auths {
			ask(auth, resolver.TypeTXT, nil)
		}
	}
	var next func(a *resolver.Answer)
	next = func(a *resolver.Answer) {
		var name string
		var ok bool
		auths := step(func() {
			name, ok = walk.Next(a)
			over = !ok
		})
		if ok {
			ask(name, resolver.TypeTXT, func(a resolver.Answer) { next(&a) })
		}
		authorize(auths)
	}
	besideIn := func(resolver.Answer) { authorize(step(func() { beside-- })) }
	next(nil)
	ask(d, resolver.TypeMX, besideIn)
	ask(d, resolver.TypeTXT, besideIn)
}

// firstMTASTS: the announcement, and then, when its answer makes
// mtasts.Check fetch the policy (mtasts.Fetches), the policy host's A and
// AAAA questions, which the check waits for too: it starts when the
// addresses it will connect to are in, rather than waiting for them on a
// goroutine of its own. The fetch's time-out, which bounds its address
// lookups, starts when they are begun (mtasts.Options.Begun, noted in
// r.stsBegun): the questions end by the fetch's deadline, and the fetch
// ends when it would have had the check asked them itself.
func firstMTASTS(r *run, _ context.Context, _ resolver.Resolver, ask askFunc) {
	domain := resolver.CanonicalName(r.domain.ASCII)
	ask(mtasts.RecordName(domain), resolver.TypeTXT, func(a resolver.Answer) {
		if mtasts.Fetches(a) {
			begun := time.Now()
			r.stsBegun.Store(&begun)
			by := r.mtastsOptions().Deadline(begun) // the options the check's fetch runs with
			host := mtasts.PolicyHost(domain)
			ask(host, resolver.TypeA, nil, by)
			ask(host, resolver.TypeAAAA, nil, by)
		}
	})
}

// firstPTR: the sending IP's PTR question, and then the forward
// questions ptr.Check asks on its answer (ptr.ForwardQuestions).
func firstPTR(r *run, _ context.Context, _ resolver.Resolver, ask askFunc) {
	if name, ok := ptr.Question(r.ip); ok {
		ask(name, resolver.TypePTR, func(a resolver.Answer) {
			names, qtype := ptr.ForwardQuestions(r.ip, a)
			for _, n := range names {
				ask(n, qtype, nil)
			}
		})
	}
}

// firstCAA: the climb, each name asked when the answer for the one
// below it calls for it (caa.ClimbNext), and the MTA-STS host's name,
// which caa.Check asks beside the climb. The check waits for them all:
// it starts with its search done, rather than waiting for the climb's
// answers on a goroutine of its own. Waiting for the MTA-STS host's
// answer too holds nothing back: the climb goes on as its answers come,
// and the check needs both before it can judge.
func firstCAA(r *run, _ context.Context, _ resolver.Resolver, ask askFunc) {
	d := resolver.CanonicalName(r.domain.ASCII)
	var climb func(i int) func(resolver.Answer)
	climb = func(i int) func(resolver.Answer) {
		return func(a resolver.Answer) {
			if next, ok := caa.ClimbNext(d, i, a); ok {
				ask(next, resolver.TypeCAA, climb(i+1))
			}
		}
	}
	ask(d, resolver.TypeCAA, climb(0))
	ask(caa.MTASTSHost(d), resolver.TypeCAA, nil)
}

// firstFunc is checkSpec.first: it calls ask with each of the check's
// first questions; ctx and dns are the check's, as its check function
// gets them.
type firstFunc func(r *run, ctx context.Context, dns resolver.Resolver, ask askFunc)

// askFunc begins a check's first question (see beginFirst): the check
// starts once every question asked is answered; seen, when not nil, gets
// the answer first, on the goroutine that hands it on, and may ask more
// questions, which the check then waits for too (the answer seen is
// given counts as in only once seen returns). by, when given and not
// zero, is a deadline of the question's own, before the check's: that of
// the check's step that asks it (the MTA-STS fetch's), so that the
// question ends when the check's own lookup of it would have.
type askFunc func(name string, qtype resolver.Type, seen func(resolver.Answer), by ...time.Time)

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
	first(r, ctx, log, func(name string, qtype resolver.Type, seen func(resolver.Answer), by ...time.Time) {
		if len(name) > MaxDomainLen {
			return
		}
		log.begun(name, qtype, time.Now())
		pending.Add(1)
		qctx, cancel := ctx, context.CancelFunc(nil)
		if len(by) > 0 && !by[0].IsZero() {
			qctx, cancel = context.WithDeadline(ctx, by[0])
		}
		done := func(a resolver.Answer) {
			defer land(a) // also when seen panics: the check starts
			if cancel != nil {
				cancel()
			}
			log.firstAnswered(name, qtype, &a, time.Now())
			if seen != nil {
				seen(a)
			}
		}
		resolver.Start(qctx, log.next, name, qtype, done)
	})
}
