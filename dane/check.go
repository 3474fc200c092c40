package dane

import (
	"context"
	"sync"

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
// MaxHosts lookups through r and never fails.
func Check(ctx context.Context, r resolver.Resolver, hosts []string, mxValidated bool) Result {
	if len(hosts) > MaxHosts {
		hosts = hosts[:MaxHosts]
	}
	found := make([]host, len(hosts))
	panics := make([]any, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		if i == len(hosts)-1 { // in this goroutine: one fewer stack waiting
			lookUp(ctx, r, h, &found[i], &panics[i])
			break
		}
		wg.Go(func() { lookUp(ctx, r, h, &found[i], &panics[i]) })
	}
	wg.Wait()
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
	return tally(found, mxValidated)
}

// lookUp looks up the TLSA records of one mail server, h, into *found.
// A panic ends in *panicked, whatever goroutine lookUp runs in: Check
// raises the first host's once every lookup has returned.
func lookUp(ctx context.Context, r resolver.Resolver, h string, found *host, panicked *any) {
	defer func() { *panicked = recover() }()
	a := r.Lookup(ctx, Name(h), resolver.TypeTLSA)
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
