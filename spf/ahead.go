package spf

import (
	"context"
	"sync"

	"github.com/mailauth/mailauth/internal/gostack"
	"github.com/mailauth/mailauth/resolver"
)

// Fetching ahead: the walk's accounting is sequential (evaluation order,
// RFC 7208 §4.6.4), but its lookups need not wait for it. As soon as a
// target's record is known, the fetcher starts the lookups of the record's
// own include and redirect targets (and of its a, mx and exists terms),
// so sibling subtrees resolve together and the walk takes as many round
// trips as the tree is deep. The walker then consumes the answers in
// evaluation order and records every finding itself: the fetcher never
// adds one, so the result is the sequential walk's.
//
// A term's position (how many terms the walk will have counted when it
// counts that one) is not known until every subtree before it has been
// expanded. The fetcher uses a lower bound: the terms of the records
// known so far before it, each unknown subtree counting one. A lookup
// whose lower bound is past MaxExpandTerms (targets) or MaxLookups (a, mx,
// exists) would never be consumed and is not started. Because the bound
// can only grow as answers arrive, a decision taken early may fetch a
// target the walk never reaches; aheadTargets and aheadTerms cap that
// waste, and a lookup the fetcher did not start is started by the walk
// when it gets there, as before. Within the RFC's limits (at most
// MaxLookups terms) the bound never excludes a term the walk reaches and
// every term fetched is reached: the walk fetches what the sequential walk
// fetched. Past them (a permerror already), the wasted lookups count
// against the caller's question budget (resolver.Limited) like any other.

// Caps on the lookups the fetcher starts for one walk: the targets the
// walk can reach (MaxExpandTerms) plus a margin for decisions taken
// before an earlier sibling's record was known, and the a, mx and exists
// terms an evaluation evaluates (MaxLookups).
const (
	aheadTargets = MaxExpandTerms + MaxExpandTerms/4
	aheadTerms   = MaxLookups
)

// node is a record of the tree: the steps its evaluation reaches, with the
// lookups started for them.
type node struct {
	domain string
	depth  int
	stack  []string // the domains being evaluated, this one last (loop detection)
	parent *node    // nil for the checked domain's record
	index  int      // this record's step in parent.steps
	steps  []step
}

// target is the TXT lookup of an include or redirect target. ans, and
// rec and parsed (the shape of its one valid record, recordOf), are set
// before done is closed: the walker reads the record parsed once here;
// next is the target's node, set under fetcher.mu when the answer has
// one.
type target struct {
	done   chan struct{}
	ans    resolver.Answer
	rec    shape
	parsed bool
	next   *node
}

// fetcher starts the walk's lookups. mu guards the tree's shape (every
// step's next and every target's next) and the caps.
type fetcher struct {
	ctx    context.Context
	r      resolver.Resolver
	sender string

	mu      sync.Mutex
	targets int // target lookups the fetcher may still start ahead
	terms   int // a, mx and exists lookups it may still start ahead

	running sync.WaitGroup // its lookups and goroutines; wait ends the walk

	// wmu guards work and closed; it is never held while a lookup is
	// started, so that an answer's callback may take it.
	wmu    sync.Mutex
	work   chan func() // hands an answer's work to an idle goroutine of the walk; closed by wait
	closed bool        // work is closed
}

// start runs task, the work on a target's answer, in the background,
// tracked so that wait can end it with the walk: on a goroutine of the
// walk that is idle, else on a new one, which then stays, idle between
// tasks, until wait. The work runs deep (the parse, and the lookups of
// the record's terms through the resolver's layers), so a new goroutine
// grows its stack once or twice on its first one; one that stays has
// grown it already. Either way the task starts at once. The caller holds
// a count of p.running until start returns (wait may be under way).
func (p *fetcher) start(task func()) {
	p.wmu.Lock()
	if !p.closed {
		select {
		case p.work <- task:
			p.wmu.Unlock()
			return
		default: // no goroutine is idle
		}
	}
	p.wmu.Unlock()
	p.running.Go(func() {
		// Grown at its first frames, where the copy costs almost
		// nothing, rather than twice under a lookup of the walk
		// (runtime.newstack was 5-8 % of a hostile tree's walk).
		gostack.Reserve8K()
		task()
		for task := range p.work {
			task()
		}
	})
}

// startTerm starts the lookups of an a, mx or exists term in the
// background, tracked so that wait can end them with the walk. Over a
// [resolver.Starter] they wait on no goroutine: each answer starts what
// follows it (an mx term's exchanges) where it comes (startTermLookups).
// p.mu is held.
func (p *fetcher) startTerm(kind Kind, name string) <-chan termResult {
	ch := make(chan termResult, 1)
	p.running.Add(1)
	startTermLookups(p.ctx, p.r, kind, name, func(res termResult) {
		ch <- res
		p.running.Done()
	})
	return ch
}

// wait returns once every lookup the fetcher started has returned and its
// goroutines have ended. The walk's context is canceled first, so the
// lookups it never reached end at once: no lookup of a walk outlives the
// Check that started it.
func (p *fetcher) wait() {
	p.wmu.Lock()
	if !p.closed {
		p.closed = true
		close(p.work)
	}
	p.wmu.Unlock()
	p.running.Wait()
}

// newFetcher returns a fetcher for one walk; ahead false makes it start
// nothing ahead (the walk fetches as it goes: the sequential reference).
func newFetcher(ctx context.Context, r resolver.Resolver, sender string, ahead bool) *fetcher {
	p := &fetcher{ctx: ctx, r: r, sender: sender, work: make(chan func())}
	if ahead {
		p.targets, p.terms = aheadTargets, aheadTerms
	}
	return p
}

// root returns the node of the checked domain's record, whose shape is
// sh, and starts its lookups.
func (p *fetcher) root(domain string, sh *shape) *node {
	n := &node{domain: domain, stack: []string{domain}}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expand(n, sh)
	return n
}

// expand gives n the steps of its record, whose shape is sh (a shape is
// expanded once: its steps become the node's), and starts the lookups
// whose lower bound is within the limits. p.mu is held.
func (p *fetcher) expand(n *node, sh *shape) {
	n.steps = sh.steps
	pos := p.position(n)
	for i := range n.steps {
		pos++
		s := &n.steps[i]
		name, ok := termTarget(s.term, n.domain, p.sender)
		if !ok || !askable(name) {
			continue
		}
		switch s.term.Kind {
		case KindInclude, KindRedirect:
			if p.targets > 0 && pos <= MaxExpandTerms && n.descends(name) {
				p.targets--
				p.fetch(n, i, name)
			}
		case KindA, KindMX, KindExists:
			if p.terms > 0 && pos <= MaxLookups {
				p.terms--
				s.look = p.startTerm(s.term.Kind, asked(name))
			}
		}
		pos += p.below(s) // a known subtree counts its terms
	}
}

// descends reports whether the walk expands the target name of one of n's
// steps: it is not being evaluated already and the depth bound allows it.
func (n *node) descends(name string) bool {
	return n.depth < MaxDepth && !onStack(n.stack, name)
}

// fetch starts the lookup of the target name of n's step i, now, in the
// walk's order with its terms' lookups (a question budget below admits
// them in that order), and hands the work on its answer to a goroutine
// of the walk (start): no goroutine waits for the answer. A Start that
// panics before it answers makes the answer ReasonMalformed. p.mu is
// held.
func (p *fetcher) fetch(n *node, i int, name string) *target {
	t := &target{done: make(chan struct{})}
	n.steps[i].next = t
	p.running.Add(1) // the lookup's, until its work is handed on
	var once sync.Once
	land := func(a resolver.Answer) {
		once.Do(func() {
			p.start(func() { p.took(n, i, name, t, a) })
			p.running.Done()
		})
	}
	defer func() {
		if v := recover(); v != nil {
			land(resolver.Fail(resolver.ReasonMalformed))
		}
	}()
	resolver.Start(p.ctx, p.r, asked(name), resolver.TypeTXT, land)
	return t
}

// took is the work on a, the answer of the target t of n's step i: its
// record parsed, and the record's own lookups started (expand). It runs
// on a goroutine of the walk, where no check's recover reaches: a panic
// in it makes the answer ReasonMalformed (the include inconclusive), as
// a panic below the lookup would, instead of ending the process.
func (p *fetcher) took(n *node, i int, name string, t *target, a resolver.Answer) {
	defer close(t.done)
	defer func() {
		if v := recover(); v != nil {
			p.mu.Lock()
			t.ans, t.parsed, t.next = resolver.Fail(resolver.ReasonMalformed), false, nil
			p.mu.Unlock()
		}
	}()
	t.ans = a
	t.rec, t.parsed = recordOf(t.ans)
	if !t.parsed || p.ctx.Err() != nil { // no record, or the walk is over
		return
	}
	next := n.childNode(i, name)
	p.mu.Lock()
	defer p.mu.Unlock()
	t.next = next
	p.expand(next, &t.rec)
}

// await returns the target of n's step i once its lookup is done,
// starting the lookup now if the fetcher did not.
func (p *fetcher) await(n *node, i int, name string) *target {
	p.mu.Lock()
	t := n.steps[i].next
	if t == nil {
		t = p.fetch(n, i, name)
	}
	p.mu.Unlock()
	<-t.done
	return t
}

// child returns the node of the record of t (n's step i, whose target is
// name), whose shape sh the walker read from t.ans. p.mu is not held.
func (p *fetcher) child(n *node, i int, name string, t *target, sh *shape) *node {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t.next == nil { // recordOf and targetRecord agree; kept total anyway
		t.next = n.childNode(i, name)
		p.expand(t.next, sh)
	}
	return t.next
}

// childNode returns the node of the target name of n's step i, its steps
// not yet listed.
func (n *node) childNode(i int, name string) *node {
	stack := append(append(make([]string, 0, len(n.stack)+1), n.stack...), name)
	return &node{domain: name, depth: n.depth + 1, stack: stack, parent: n, index: i}
}

// position is a lower bound of the terms counted when n's record starts:
// that of its include or redirect term. p.mu is held.
func (p *fetcher) position(n *node) int {
	if n.parent == nil {
		return 0
	}
	pos := p.position(n.parent)
	for k := range n.index {
		pos += 1 + p.below(&n.parent.steps[k])
	}
	return pos + 1
}

// below is a lower bound of the terms counted in the subtree of s, s
// itself not included: the terms of its target's record, when known, and
// theirs. p.mu is held.
func (p *fetcher) below(s *step) int {
	if s.next == nil || s.next.next == nil {
		return 0
	}
	n := 0
	for i := range s.next.next.steps {
		n += 1 + p.below(&s.next.next.steps[i])
	}
	return n
}

// recordOf returns the shape of the one valid SPF record of a target's
// TXT answer: the cases in which the walker's targetRecord returns one.
func recordOf(ans resolver.Answer) (shape, bool) {
	if !ans.Conclusive() {
		return shape{}, false
	}
	recs := Select(ans.TXTs())
	if len(recs) != 1 {
		return shape{}, false
	}
	sh, err := shapeOf(recs[0])
	return sh, err == nil
}

// askable reports whether an expanded target name can be asked for
// (targetName: any label of 1–63 octets, RFC 2181 §11); a name that
// cannot is an invalid_target_name finding. The walk and the fetcher
// decide through it alone.
func askable(name string) bool { return targetName(name) }

// asked is the form in which the walk and the fetcher ask for a target
// name: its presentation form, as Evaluate asks.
func asked(name string) string { return presentationName(name) }
