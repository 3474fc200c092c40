package spf

import (
	"context"
	"strings"

	"github.com/mailauth/mailauth/resolver"
)

// walker expands a policy tree in evaluation order (RFC 7208 §4.6.2,
// §5.2, §6.1). The accounting is sequential and so deterministic; the
// lookups are started ahead by the fetcher (see ahead.go) as soon as the
// targets' names are known, so sibling subtrees resolve concurrently, and
// their answers are consumed in evaluation order.
type walker struct {
	r      resolver.Resolver
	p      *fetcher
	sender string // %{o}: the checked domain
	f      *findings

	count    int  // DNS-causing terms counted so far
	voids    int  // void lookups within the first MaxLookups terms
	macros   int  // counted terms needing sender data
	ptrs     int  // counted ptr mechanisms
	complete bool // every include/redirect target was expanded
	stopped  bool // MaxExpandTerms reached: stop everywhere

	includes []Include // the top-level record's includes, in order

	// shielded counts the -, ~ and ? includes on the path to the record
	// being expanded: a way of passing every client found below one of
	// them makes that include match everyone with its own qualifier, so
	// it is no pass for the checked domain (see passAll).
	shielded int
}

// passAll records c, a way a record passes every client, when it reaches
// the checked domain: no -, ~ or ? include is on the way there (RFC 7208
// §5.2: the include's qualifier, not the target's pass, is the result).
func (w *walker) passAll(c Code) {
	if w.shielded == 0 {
		w.f.add(c)
	}
}

// step is one DNS-causing term of a record that an evaluation reaches,
// with the lookup started for it, if any.
type step struct {
	term Term
	next *target           // include and redirect target TXT; guarded by fetcher.mu
	look <-chan termResult // a, mx and exists lookups
}

// outcome is how the evaluation of a record ends for a client that
// matches nothing: q, when known; and whether a mechanism passes every
// client anyway (everyone), so that no client ever reaches the end.
type outcome struct {
	q        Qualifier
	known    bool
	everyone bool
}

// passesEveryone reports whether every client gets pass from the record:
// it ends in +all, or a mechanism before the end matches every client.
func (o outcome) passesEveryone() bool {
	return o.everyone || o.known && o.q == QualifierPass
}

// visit expands the record of n, whose shape is sh. It returns how the
// evaluation ends for a client that matches nothing.
func (w *walker) visit(ctx context.Context, n *node, sh *shape) outcome {
	w.plan(sh)
	everyone := sh.rangeAll
	if everyone {
		w.passAll(CodeRangePassAll)
	}
	all, hasAll := sh.all, sh.hasAll
	w.prefetch(n)
	for i := range n.steps {
		if w.stopped || !w.countTerm() {
			return outcome{everyone: everyone}
		}
		s := &n.steps[i]
		w.noteMacros(s.term)
		switch s.term.Kind {
		case KindPTR:
			w.ptrs++
			w.f.add(CodePTRUsed)
		case KindInclude:
			if w.include(ctx, n, i).passesEveryone() && s.term.Qualifier == QualifierPass {
				w.passAll(CodeIncludePassAll) // §5.2: the include matches every client
				everyone = true
			}
		case KindRedirect:
			o := w.descend(ctx, n, i)
			o.everyone = o.everyone || everyone
			return o
		default:
			everyone = w.termLookup(ctx, n.domain, s) || everyone
		}
	}
	if w.stopped {
		return outcome{everyone: everyone}
	}
	if hasAll {
		return outcome{q: all, known: true, everyone: everyone}
	}
	return outcome{known: true, everyone: everyone}
}

// include follows n's step i, an include term, keeping the accounting of
// Result.Includes for those of the top-level record (depth 0).
func (w *walker) include(ctx context.Context, n *node, i int) outcome {
	s := &n.steps[i]
	if s.term.Qualifier != QualifierPass {
		w.shielded++
		defer func() { w.shielded-- }()
	}
	if n.depth > 0 {
		return w.descend(ctx, n, i)
	}
	count, errs := w.count-1, len(w.f.errs) // the include itself is already counted
	o := w.descend(ctx, n, i)
	inc := Include{Lookups: w.count - count}
	for _, c := range w.f.errs[errs:] {
		if c != CodeLookupLimitExceeded { // the whole tree's count, not this target's fault
			inc.Problem = c
			break
		}
	}
	if inc.Problem == "" && o.passesEveryone() && s.term.Qualifier == QualifierPass {
		inc.Problem = CodeIncludePassAll
	}
	w.includes = append(w.includes, inc)
	return o
}

// shape is what the walk reads of a valid record: the facts of its form
// (see plan), whether a + ip4 or ip6 mechanism before all covers a whole
// address family (prefix length 0, RFC 7208 §5.6: every client of that
// family passes), and the DNS-causing terms an evaluation reaches: the
// mechanisms before all, then redirect when the record has no all (§5.1,
// §6.1). shapeOf reads it one term at a time, as Parse reads them: a
// record of many ip4 and ip6 terms, which the walk never looks at again,
// costs no []Term.
type shape struct {
	all      Qualifier // of the first all mechanism; QualifierNone when none
	hasAll   bool      // the record has an all mechanism
	redirect bool      // the record has a redirect modifier
	modifier bool      // the record has an unknown modifier
	dead     bool      // a mechanism follows all
	rangeAll bool      // a + ip4 or ip6 mechanism of prefix length 0 before all
	steps    []step    // the DNS-causing terms reached, in order
}

// shapeOf parses the record s (Parse's grammar and *SyntaxError) and
// returns its shape.
func shapeOf(s string) (shape, error) {
	tr, err := readTerms(s)
	if err != nil {
		return shape{}, err
	}
	var sh shape
	var redirect Term
	for raw, ok := tr.token(); ok; raw, ok = tr.token() {
		var t Term
		if err := tr.parse(&t, raw); err != nil {
			return shape{}, err
		}
		switch {
		case t.Kind == KindRedirect:
			sh.redirect, redirect = true, t
		case t.Kind == KindModifier:
			sh.modifier = true
		case sh.hasAll:
			sh.dead = sh.dead || t.IsMechanism()
		case t.Kind == KindAll:
			sh.all, sh.hasAll = t.Qualifier, true
		case t.CausesLookup():
			if sh.steps == nil {
				sh.steps = make([]step, 0, 4) // a step is 136 bytes: skip the appends' 1 and 2
			}
			sh.steps = append(sh.steps, step{term: t})
		case (t.Kind == KindIP4 || t.Kind == KindIP6) && t.Qualifier == QualifierPass && t.Net.Bits() == 0:
			sh.rangeAll = true
		}
	}
	if sh.redirect && !sh.hasAll {
		sh.steps = append(sh.steps, step{term: redirect})
	}
	return sh, nil
}

// plan records the findings about the shape of a record: an unknown
// modifier, mechanisms after all, a redirect that all makes ignored.
func (w *walker) plan(sh *shape) {
	if sh.modifier {
		w.f.add(CodeUnknownModifier)
	}
	if sh.dead {
		w.f.add(CodeDeadTerms)
	}
	if sh.redirect && sh.hasAll {
		w.f.add(CodeRedirectIgnored)
	}
}

// prefetch starts the lookups of n's steps that the fetcher did not start
// ahead and that an evaluation can reach within the bounds. Every include
// counts at least one term, so w.count plus the step's index is a lower
// bound of its position: a step whose lower bound is past a bound is past
// it for sure and is not looked up.
func (w *walker) prefetch(n *node) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	pos := w.count
	for i := range n.steps {
		pos++
		s := &n.steps[i]
		name, ok := w.target(s.term, n.domain)
		if !ok || !askable(name) {
			continue
		}
		switch s.term.Kind {
		case KindInclude, KindRedirect:
			if s.next == nil && pos <= MaxExpandTerms && n.descends(name) {
				w.p.fetch(n, i, name)
			}
		case KindA, KindMX, KindExists:
			if s.look == nil && pos <= MaxLookups {
				s.look = w.p.startTerm(s.term.Kind, asked(name))
			}
		}
	}
}

// countTerm counts one DNS-causing term. It returns false, and stops the
// whole expansion, when MaxExpandTerms terms were already counted.
func (w *walker) countTerm() bool {
	if w.count >= MaxExpandTerms {
		w.stopped, w.complete = true, false
		w.f.add(CodeSafetyBound)
		return false
	}
	w.count++
	if w.count == MaxLookups+1 {
		w.f.add(CodeLookupLimitExceeded)
	}
	return true
}

// noteMacros records a counted term whose domain-spec needs sender data.
func (w *walker) noteMacros(t Term) {
	sender, p := macroUse(t.DomainSpec)
	if sender {
		w.macros++
		w.f.add(CodeMacroUnexpandable)
	}
	if p {
		w.f.add(CodePTRMacro)
	}
}

// void records n void lookups met by the term at the current position;
// only terms within the first MaxLookups are evaluated (§4.6.4).
func (w *walker) void(n int) {
	if n == 0 || w.count > MaxLookups {
		return
	}
	w.f.add(CodeVoidLookup)
	before := w.voids
	w.voids += n
	if before <= MaxVoidLookups && w.voids > MaxVoidLookups {
		w.f.add(CodeVoidLimitExceeded)
	}
}

// target returns the name a term looks up: its expanded domain-spec, or
// the current domain when a, mx or ptr has none. ok is false when the
// domain-spec needs sender data.
func (w *walker) target(t Term, domain string) (string, bool) {
	return termTarget(t, domain, w.sender)
}

// termTarget returns the name t looks up in domain's record, sender being
// the checked domain; ok is false when the domain-spec needs sender data.
func termTarget(t Term, domain, sender string) (string, bool) {
	if t.DomainSpec == "" {
		return domain, true
	}
	return expandDomainSpec(t.DomainSpec, domain, sender)
}

func onStack(stack []string, name string) bool {
	for _, s := range stack {
		if s == name {
			return true
		}
	}
	return false
}

// targetCodes are the findings of an include or of a redirect.
type targetCodes struct {
	noRecord, multiple, invalid, inconclusive Code
}

var (
	includeCodes  = targetCodes{CodeIncludeNoRecord, CodeIncludeMultiple, CodeIncludeInvalid, CodeIncludeInconclusive}
	redirectCodes = targetCodes{CodeRedirectNoRecord, CodeRedirectMultiple, CodeRedirectInvalid, CodeRedirectInconclusive}
)

// descend follows n's step i, an include or redirect (§5.2, §6.1), and
// returns how the target's evaluation ends.
func (w *walker) descend(ctx context.Context, n *node, i int) outcome {
	s := &n.steps[i]
	codes := includeCodes
	if s.term.Kind == KindRedirect {
		codes = redirectCodes
	}
	name, ok := w.target(s.term, n.domain)
	switch {
	case !ok:
		w.complete = false // needs sender data; counted in noteMacros
		return outcome{}
	case !askable(name):
		w.f.add(CodeInvalidTargetName)
		w.f.add(codes.noRecord) // a malformed target evaluates to none (§4.3)
		return outcome{}
	case onStack(n.stack, name):
		w.f.add(CodeLoop)
		w.complete = false
		return outcome{}
	case n.depth >= MaxDepth:
		w.f.add(CodeSafetyBound)
		w.complete = false
		return outcome{}
	}
	t := w.p.await(n, i, name)
	sh, ok := w.targetRecord(t, codes)
	if !ok {
		return outcome{}
	}
	return w.visit(ctx, w.p.child(n, i, name, t, sh), sh)
}

// targetRecord turns the TXT answer of a target into the shape of its one
// parsed record, or records why there is none. The shape the fetcher
// read (recordOf: the cases in which this returns one) is taken as it is.
func (w *walker) targetRecord(t *target, codes targetCodes) (*shape, bool) {
	ans := t.ans
	if !ans.Conclusive() {
		w.f.add(codes.inconclusive)
		w.complete = false
		return nil, false
	}
	if ans.Absent() {
		w.void(1)
	}
	if t.parsed {
		return &t.rec, true
	}
	recs := Select(ans.TXTs())
	switch len(recs) {
	case 0:
		w.f.add(codes.noRecord)
		return nil, false
	case 1:
	default:
		w.f.add(codes.multiple)
		return nil, false
	}
	sh, err := shapeOf(recs[0])
	if err != nil {
		w.f.add(codes.invalid)
		w.f.add(syntaxCode(err))
		return nil, false
	}
	return &sh, true
}

// termLookup consumes the lookup of an a, mx or exists term. It reports
// whether the term matches every client: a +exists on a name that does
// not depend on the client and exists (§5.7), or a +a or +mx with an IPv4
// prefix length of 0 whose name has an address (§5.3, §5.4).
func (w *walker) termLookup(ctx context.Context, domain string, s *step) bool {
	if w.count > MaxLookups {
		return false // an evaluator has stopped with permerror before this term
	}
	name, ok := w.target(s.term, domain)
	if !ok {
		if w.probeExists(ctx, domain, s.term) {
			w.passAll(CodeExistsPassAll)
			return true
		}
		return false
	}
	if !askable(name) {
		w.f.add(CodeInvalidTargetName)
		return false
	}
	res := awaitTerm(ctx, w.r, s.look, s.term.Kind, asked(name))
	if res.inconclusive {
		w.f.add(CodeTermInconclusive)
	}
	if res.mxOver {
		w.f.add(CodeMXTooMany)
	}
	w.void(res.voids)
	return res.found && w.matchesEveryone(s.term)
}

// matchesEveryone records and reports whether t, a term whose lookup
// found an address, matches every client.
func (w *walker) matchesEveryone(t Term) bool {
	if t.Qualifier != QualifierPass {
		return false
	}
	switch {
	case t.Kind == KindExists:
		w.passAll(CodeExistsPassAll) // the target is fixed (target() expanded it), so it always exists
		return true
	case (t.Kind == KindA || t.Kind == KindMX) && t.CIDR4 == 0:
		w.passAll(CodeRangePassAll)
		return true
	}
	return false
}

// targetName reports whether an expanded target name can be asked for:
// at least two labels, each of 1..63 octets of any value (RFC 2181 §11:
// "%_" puts a space there, and DNS holds it), at most MaxDomainLength
// octets (RFC 1035 §2.3.4). The walk asks for it in presentation form,
// as Evaluate does.
func targetName(name string) bool {
	return strings.IndexByte(name, '.') >= 0 && wireName(name)
}
