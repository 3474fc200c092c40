package dnstest

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/miekg/dns"

	"github.com/mailauth/mailauth/resolver"
)

// Resolver answers from Zones in memory, with the same answers and faults
// as a Server but without a socket: it decodes the records a Client would
// receive. A dropped reply returns a timeout at once (after any Delay), so
// unit tests never wait on it. There is no UDP here, so Truncate changes
// nothing: the answer is the full one a Client gets after its TCP retry.
// Garbage gives ReasonMalformed, and Bogus ReasonDNSSEC, as with a Client.
//
// It plays a validating recursive resolver (Bogus answers as one does):
// its Probe says so, unless SetProperties says otherwise.
type Resolver struct {
	zones  *Zones
	faults faults
	log    queryLog

	notRecursive, notValidating atomic.Bool
}

// SetProperties sets what Probe reports.
func (r *Resolver) SetProperties(p resolver.Properties) {
	r.notRecursive.Store(!p.Recursive)
	r.notValidating.Store(!p.Validating)
}

// Probe implements resolver.Prober: the Properties the resolver plays
// (recursive and validating unless SetProperties said otherwise).
func (r *Resolver) Probe(ctx context.Context, _ ...string) (resolver.Properties, error) {
	if ctx.Err() != nil {
		return resolver.Properties{}, ctx.Err()
	}
	return resolver.Properties{Recursive: !r.notRecursive.Load(), Validating: !r.notValidating.Load()}, nil
}

// NewResolver returns an in-memory resolver.Resolver over z.
func NewResolver(z *Zones) *Resolver { return &Resolver{zones: z} }

// SetFault injects f for questions about name of type qtype (AnyType for
// all types), also when name is reached through a CNAME.
func (r *Resolver) SetFault(name string, qtype resolver.Type, f Fault) {
	r.faults.set(name, qtype, f)
}

// Queries returns every question answered so far.
func (r *Resolver) Queries() []Received { return r.log.all() }

// Count returns how many questions for name of type qtype (AnyType: any)
// were answered.
func (r *Resolver) Count(name string, qtype resolver.Type) int { return r.log.count(name, qtype) }

// Lookup implements resolver.Resolver.
func (r *Resolver) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	name, ok := resolver.QuestionName(name)
	if !ok {
		return resolver.Fail(resolver.ReasonInvalidName)
	}
	if ctx.Err() != nil {
		return resolver.Fail(resolver.ReasonCanceled)
	}
	r.log.add(name, qtype, "mem", 0, false)
	q := dns.Question{Name: dns.Fqdn(name), Qtype: uint16(qtype), Qclass: dns.ClassINET}
	m, visited := r.zones.answer(q, true)
	f := r.faults.lookup(visited, qtype)
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return resolver.Fail(resolver.ReasonCanceled)
		}
	}
	switch {
	case ctx.Err() != nil:
		return resolver.Fail(resolver.ReasonCanceled)
	case f.Drop:
		return resolver.Fail(resolver.ReasonTimeout)
	case f.Rcode != 0:
		m = &dns.Msg{MsgHdr: dns.MsgHdr{Rcode: f.Rcode}}
	case f.Bogus:
		// A Client asks again with CD, gets the answer and concludes.
		m = &dns.Msg{MsgHdr: dns.MsgHdr{Rcode: dns.RcodeServerFailure}}
		m.SetEdns0(dns.DefaultMsgSize, false)
		a, _ := resolver.FromMsg(name, qtype, withEDE(m, f.EDE))
		if a.Reason == resolver.ReasonServFail {
			a.Reason = resolver.ReasonDNSSEC
		}
		return a
	case f.Garbage:
		return resolver.Fail(resolver.ReasonMalformed)
	}
	if f.EDE != 0 {
		m.SetEdns0(dns.DefaultMsgSize, false)
	}
	a, _ := resolver.FromMsg(name, qtype, withEDE(m, f.EDE))
	return a
}

// withEDE adds an Extended DNS Error option with code to m's OPT record,
// when code is non-zero and m has one.
func withEDE(m *dns.Msg, code uint16) *dns.Msg {
	if opt := m.IsEdns0(); opt != nil && code != 0 {
		opt.Option = append(opt.Option, &dns.EDNS0_EDE{InfoCode: code})
	}
	return m
}
