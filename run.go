package mailauth

import (
	"context"
	"sync"
	"time"

	"github.com/mailauth/mailauth/internal/gostack"
	"github.com/mailauth/mailauth/internal/seqscan"
	"github.com/mailauth/mailauth/resolver"
)

// checkFunc runs one check. It must honour ctx. A check with begin set
// waits without a goroutine of its own: begin starts it and hands its
// verdict to done once, perhaps before it returns, perhaps later on the
// goroutine that brought its last answer. The others run to their
// verdict on a goroutine of their own.
type checkFunc struct {
	run   func(ctx context.Context) verdict
	begin func(ctx context.Context, done func(verdict))
	// first, when set, begins run's first questions and calls then (on
	// a goroutine of its own) once they are answered; run goes there.
	first func(ctx context.Context, then func())
}

// verdict is what a check concludes, before it becomes a CheckSummary.
type verdict struct {
	status      Status
	severity    Severity
	summary     LocalizedText
	details     []LocalizedText
	diagnostics Diagnostics
	// determination is Determined unless the check reached no
	// conclusion; it is carried to CheckSummary.Determination.
	determination Determination
	// dnsFault is the domain-side DNS fault the verdict was attributed
	// to; it is carried to CheckSummary.DNSFault.
	dnsFault DNSFault
	// partial: the verdict is led by a rule marked partial (it rests on
	// lookups that gave no conclusive answer).
	partial bool
}

// runChecks starts every check at once, each in its own goroutine with a
// recover, and returns their summaries in CheckOrder (only the checks
// given). A check still running when ctx ends (plus a short grace) is
// reported as not finished; the others keep their results. Each check
// runs with its own resolver.Path (see criticalPath). The one way to
// change how the checks start is the context's observer
// (seqscan.Observer), which only the bench sets: it is told of each check
// as it starts, and the bench's sequential baseline waits in it for the
// check to end.
func (r *run) runChecks(ctx context.Context, fns map[CheckID]checkFunc) []CheckSummary {
	var slots []checkSlot
	gostack.Apart(func() { slots = r.startChecks(ctx, fns) })
	return r.collect(ctx, slots)
}

// startChecks starts the checks of fns in CheckOrder (see runChecks) and
// returns their slots. It runs apart (gostack.Apart): starting a check
// goes down through the check's first lookups, the leak guard's
// recorder, the shared cache and the DNS client to the socket, 5 to 7 KB
// below the caller's frames, and in the service the caller waits under
// net/http's and the middleware's (about 4 KB), so on the caller's own
// stack it would grow that goroutine's to 16 KiB for good. It is not
// inlined either.
//
//go:noinline
func (r *run) startChecks(ctx context.Context, fns map[CheckID]checkFunc) []checkSlot {
	slots := make([]checkSlot, 0, len(fns))
	r.paths = make(map[CheckID]*resolver.Path, len(fns))
	paths := make([]resolver.Path, len(fns)) // one allocation for them all
	for id := range fns {
		r.paths[id] = &paths[len(r.paths)]
	}
	observe := seqscan.Observer(ctx) // nil outside the bench
	for _, id := range CheckOrder() {
		fn, ok := fns[id]
		if !ok {
			continue
		}
		s := checkSlot{id: id, ch: make(chan *verdict, 1)}
		slots = append(slots, s)
		ctx := resolver.WithPath(ctx, r.paths[id])
		var done chan struct{} // only the observer waits on it
		if observe != nil {
			done = make(chan struct{})
		}
		if fn.begin != nil {
			r.beginCheck(ctx, s, fn.begin, done)
		} else {
			run := func() {
				if done != nil {
					defer close(done)
				}
				defer r.recoverCheck(s)
				v := fn.run(ctx)
				s.ch <- &v
			}
			if fn.first != nil {
				fn.first(ctx, run)
			} else {
				go run()
			}
		}
		if observe != nil {
			observe(done)
		}
	}
	return slots
}

// recoverCheck is deferred on a check's goroutine: a panic gives the
// check the internal-error fallback verdict (see panicked). It keeps
// the goroutine's base frame as small as it was (checkFuncs).
func (r *run) recoverCheck(s checkSlot) {
	if p := recover(); p != nil {
		r.panicked(s.id, s.put)
	}
}

// beginCheck starts a check that waits without a goroutine (see
// checkFunc): its verdict goes to s once, and closes done (the bench's
// observer), when begin hands it on; a panic in begin itself gives the
// fallback verdict (recoverInto). The check's begin contains
// the panics of what it runs later (checkFuncs).
func (r *run) beginCheck(ctx context.Context, s checkSlot, begin func(context.Context, func(verdict)), done chan struct{}) {
	var once sync.Once
	deliver := func(v verdict) {
		once.Do(func() {
			s.put(v)
			if done != nil {
				close(done)
			}
		})
	}
	defer r.recoverInto(s.id, deliver)
	begin(ctx, deliver)
}

// checkSlot is where one running check's verdict arrives. The verdict
// comes as a pointer: the slot holds no verdict while the check is in
// flight.
type checkSlot struct {
	id CheckID
	ch chan *verdict
}

// put hands v to the slot.
func (s checkSlot) put(v verdict) { s.ch <- &v }

// collect waits for the checks' verdicts in slots and returns their
// summaries in the slots' order (see runChecks). The scan waits in this
// frame, over runChecks's small one; startChecks ran on a goroutine of
// its own. The goroutine that waits (in the service the handler's, under
// its middleware) then uses less of its stack while it waits, and its
// stack has not grown for the checks' start.
//
//go:noinline
func (r *run) collect(ctx context.Context, slots []checkSlot) []CheckSummary {
	out := make([]CheckSummary, len(slots))
	// One grace period for all late checks: a closed channel releases
	// every slot still waiting, however many overran the deadline.
	grace := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(checkGrace, func() { close(grace) }) })
	defer stop()
	for i, s := range slots {
		r.summarize(&out[i], s.id, awaitVerdict(s.ch, grace))
	}
	return out
}

// awaitVerdict waits for a check's verdict on ch, or for grace; nil: the
// check did not finish. It and summarize keep the verdict and its
// summary out of collect's frame, in which the scan waits.
func awaitVerdict(ch <-chan *verdict, grace <-chan struct{}) *verdict {
	select {
	case p := <-ch:
		return p
	case <-grace:
		select {
		case p := <-ch: // finished just in time
			return p
		default:
			return nil
		}
	}
}

// summarize sets *out to the CheckSummary of check id from its verdict v
// (nil: the check did not finish).
//
//go:noinline
func (r *run) summarize(out *CheckSummary, id CheckID, v *verdict) {
	if v == nil {
		f := r.fallback(id, UndeterminedTimeout)
		v = &f
	}
	*out = v.toSummary(id)
}

// toSummary turns a verdict into the CheckSummary of check id.
func (v verdict) toSummary(id CheckID) CheckSummary {
	details := v.details
	if len(details) == 0 {
		details = []LocalizedText{txtNoDetails.with()}
	}
	return CheckSummary{
		ID:          id,
		Title:       titles[id].with(),
		Status:      v.status,
		Severity:    v.severity,
		Summary:     v.summary,
		Details:     joinTexts(details),
		Diagnostics: v.diagnostics,
		// Set from the rule that led the verdict, never from its text.
		Determination: v.determination,
		DNSFault:      v.dnsFault,
	}
}

// inconclusiveVerdict is the verdict of a check whose DNS gave no
// conclusive answer: warn/medium, never pass (doc/scoring.md).
func inconclusiveVerdict(d Diagnostics, details ...LocalizedText) verdict {
	return verdict{
		status:        StatusWarn,
		severity:      SeverityMedium,
		summary:       txtInconclusive.with(),
		details:       append([]LocalizedText{txtInconclusiveDetails.with()}, details...),
		diagnostics:   d,
		determination: UndeterminedLookup,
	}
}

// fallback is the verdict of a check that did not finish
// (UndeterminedTimeout) or failed internally (UndeterminedInternal):
// warn/medium, with diagnostics whose facts are all unknown, so the
// response keeps the shape the contract promises.
func (r *run) fallback(id CheckID, why Determination) verdict {
	v := fallbackVerdict(why)
	v.diagnostics = r.unknownDiagnostics(id)
	return v
}

// fallbackVerdict is fallback without its diagnostics.
func fallbackVerdict(why Determination) verdict {
	say := txtInternal
	if why == UndeterminedTimeout {
		say = txtTimedOut
	}
	return verdict{
		status:        StatusWarn,
		severity:      SeverityMedium,
		summary:       say.with(),
		details:       []LocalizedText{txtNotFinishedDetails.with()},
		determination: why,
	}
}

// unknownDiagnostics returns the diagnostics of check id with every fact
// unknown, or nil where the contract has no diagnostics for it.
func (r *run) unknownDiagnostics(id CheckID) Diagnostics {
	if c, ok := specOf(id); ok {
		return c.unknown(r)
	}
	return nil
}

// infoVerdict is a check that was not evaluated.
func infoVerdict(summary, details text) verdict {
	return verdict{
		status:   StatusInfo,
		severity: SeverityInfo,
		summary:  summary.with(),
		details:  []LocalizedText{details.with()},
	}
}

// criticalPath returns the scan's critical-path bound and its length in
// round trips: the largest of its checks' paths (resolver.Path defines
// them). The checks run at once, so a scan that waited only on the
// network takes about this long.
func (r *run) criticalPath() (time.Duration, int) {
	var b time.Duration
	hops := 0
	for _, p := range r.paths {
		b, hops = max(b, p.Bound()), max(hops, p.Hops())
	}
	return b, hops
}
