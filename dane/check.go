package dane

import (
	"context"

	"github.com/mailauth/mailauth/internal/findings"
	"github.com/mailauth/mailauth/resolver"
)

// MaxHosts bounds the mail servers whose TLSA records Check looks up:
// the same bound as the exchanges package mx resolves.
const MaxHosts = 10

// host is what one TLSA lookup found.
type host struct {
	answer  resolver.Answer
	records []TLSA
	broken  bool // a record that could not be parsed
}

// Check looks up _25._tcp.<host> TLSA for each of hosts (lower-case
// A-label host names; only the first MaxHosts), concurrently, and says
// what DANE-aware senders would make of them. mxValidated is whether the
// MX RRset the hosts came from was DNSSEC-validated. Check makes at most
// MaxHosts lookups through r and never fails. It is Begin, then Wait.
func Check(ctx context.Context, r resolver.Resolver, hosts []string, mxValidated bool) Result {
	return Begin(ctx, r, hosts, mxValidated).Wait()
}

// Lookups is the TLSA lookups Begin began, whose Result Wait returns.
type Lookups struct {
	mxValidated bool
	pending     []*resolver.Pending
	// panics holds, per host, what starting its lookup panicked with
	// (nil: it did not); Wait raises the first once every lookup is in.
	panics []any
}

// Begin begins the TLSA lookups Check makes (resolver.Begin: over a
// resolver.Starter, no goroutine waits on them) and returns at once; Wait
// waits for them and says what they found. A caller that has other
// lookups to make meanwhile makes them between the two.
func Begin(ctx context.Context, r resolver.Resolver, hosts []string, mxValidated bool) *Lookups {
	if len(hosts) > MaxHosts {
		hosts = hosts[:MaxHosts]
	}
	l := &Lookups{mxValidated: mxValidated, pending: make([]*resolver.Pending, len(hosts)), panics: make([]any, len(hosts))}
	for i, h := range hosts {
		l.pending[i] = begin(ctx, r, h, &l.panics[i])
	}
	return l
}

// begin begins the TLSA lookup of one mail server, h. A panic of the
// resolver's Start ends in *panicked (and the lookup is nil).
func begin(ctx context.Context, r resolver.Resolver, h string, panicked *any) *resolver.Pending {
	defer func() {
		if p := recover(); p != nil {
			*panicked = p
		}
	}()
	return resolver.Begin(ctx, r, Name(h), resolver.TypeTLSA)
}

// Wait waits for every lookup Begin began and returns what they found. A
// lookup that panicked (whether its resolver's Start did, or the lookup
// in a goroutine of its own, see resolver.Begin) makes Wait panic with
// the first host's panic, raised once every lookup has returned, so that
// none outlives Wait.
func (l *Lookups) Wait() Result {
	found := make([]host, len(l.pending))
	for i, p := range l.pending {
		if p != nil {
			take(p, &found[i], &l.panics[i])
		}
	}
	for _, p := range l.panics {
		if p != nil {
			panic(p)
		}
	}
	return tally(found, l.mxValidated)
}

// take waits for the TLSA lookup p of one mail server and reads its
// answer into *found. A panic (raised by p.Wait) ends in *panicked.
func take(p *resolver.Pending, found *host, panicked *any) {
	defer func() {
		if v := recover(); v != nil {
			*panicked = v
		}
	}()
	a := p.Wait()
	*found = host{answer: a}
	for _, rec := range a.Records {
		if rec.Type != resolver.TypeTLSA {
			continue
		}
		t, err := Parse(rec.RData)
		if err != nil {
			found.broken = true
			continue
		}
		found.records = append(found.records, t)
	}
}

// tally turns what the lookups found into a Result.
func tally(found []host, mxValidated bool) Result {
	res := Result{MXValidated: mxValidated, Hosts: len(found)}
	var f findings.Set[Code]
	c := &res.Counts
	for _, h := range found {
		a := h.answer
		switch {
		case a.Outcome == resolver.Found:
			c.Published++
		case a.Absent():
			c.Absent++
			continue
		default:
			c.Inconclusive++
			if a.Reason == resolver.ReasonDNSSEC {
				f.Add(CodeBogus)
			} else {
				f.Add(CodeInconclusive)
			}
			continue
		}
		if !a.Authentic {
			f.Add(CodeUnsigned)
			continue
		}
		c.Validated++
		usable, pkix := false, false
		if h.broken {
			f.Add(CodeParameters)
		}
		for _, t := range h.records {
			switch t.Problem() {
			case ProblemNone:
				usable = true
			case ProblemPKIX:
				pkix = true
			case ProblemParameters:
				f.Add(CodeParameters)
			}
		}
		switch {
		case usable:
			c.Usable++
		case pkix:
			f.Add(CodePKIXOnly)
		default:
			f.Add(CodeParameters)
		}
	}
	if c.Published > 0 && !mxValidated {
		f.Add(CodeMXUnsigned)
	}
	if c.Published > 0 && c.Absent > 0 {
		f.Add(CodePartial)
	}
	res.Findings = f.InOrder(order)
	return res
}
