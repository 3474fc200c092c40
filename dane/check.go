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

// Code is a stable identifier of one finding about the domain's DANE.
type Code string

// Findings, in the order they are reported.
const (
	// CodeBogus: a TLSA lookup failed DNSSEC validation; DANE-aware
	// senders defer mail to that server (RFC 7672 §2.2).
	CodeBogus Code = "tlsa_bogus"
	// CodeMXUnsigned: TLSA records are published, but the domain's MX
	// records were not DNSSEC-validated: an attacker who forges the MX
	// set can lead senders elsewhere (RFC 7672 §2.2.1).
	CodeMXUnsigned Code = "mx_unsigned"
	// CodeUnsigned: a TLSA set was not DNSSEC-validated (an unsigned
	// zone); senders ignore it (RFC 7672 §2.2).
	CodeUnsigned Code = "tlsa_unsigned"
	// CodePKIXOnly: a validated TLSA set has only PKIX usages (0, 1),
	// which SMTP clients treat as unusable (RFC 7672 §3.1.3).
	CodePKIXOnly Code = "tlsa_pkix_only"
	// CodeParameters: a validated TLSA record has an unknown usage,
	// selector or matching type, or association data of the wrong length
	// for its matching type (RFC 6698 §2.1, RFC 7671 §9).
	CodeParameters Code = "tlsa_parameters"
	// CodePartial: some mail servers publish TLSA records and others do
	// not; mail to the latter is not protected by DANE.
	CodePartial Code = "tlsa_partial"
	// CodeInconclusive: a TLSA lookup gave no conclusive answer.
	CodeInconclusive Code = "tlsa_inconclusive"
)

var order = []Code{CodeBogus, CodeMXUnsigned, CodeUnsigned, CodePKIXOnly, CodeParameters, CodePartial, CodeInconclusive}

// Codes returns every finding code Check can report, in the order
// Result.Findings uses.
func Codes() []Code { return append([]Code(nil), order...) }

// Result holds the facts Check found. It carries no name or record data.
type Result struct {
	// MXValidated is the validation of the MX RRset, as the caller gave it.
	MXValidated bool
	// Hosts is the number of mail servers asked about (at most MaxHosts).
	Hosts int
	// Counts summarises the hosts' TLSA sets.
	Counts Counts
	// Findings lists the findings in the order of the Code constants.
	Findings []Code
}

// Counts counts the mail servers by what their TLSA lookup found. A host
// is counted once in Published, Absent or Inconclusive.
type Counts struct {
	// Published: hosts with a TLSA set.
	Published int
	// Validated: of those, hosts whose TLSA set was DNSSEC-validated.
	Validated int
	// Usable: of those, hosts with at least one usable record.
	Usable int
	// Absent: hosts without TLSA records (NODATA or NXDOMAIN).
	Absent int
	// Inconclusive: hosts whose TLSA lookup gave no conclusive answer.
	Inconclusive int
}

// Usable reports whether DANE-aware senders enforce authenticated TLS to
// every mail server: the MX set was validated and every host asked has a
// validated TLSA set with a usable record.
func (r Result) Usable() bool {
	return r.MXValidated && r.Hosts > 0 && r.Counts.Usable == r.Hosts
}

// Published reports whether any mail server publishes TLSA records.
func (r Result) Published() bool { return r.Counts.Published > 0 }

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
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Go(func() {
			a := r.Lookup(ctx, Name(h), resolver.TypeTLSA)
			found[i] = host{answer: a}
			for _, rec := range a.Records {
				if rec.Type != resolver.TypeTLSA {
					continue
				}
				t, err := Parse(rec.RData)
				if err != nil {
					found[i].broken = true
					continue
				}
				found[i].records = append(found[i].records, t)
			}
		})
	}
	wg.Wait()
	return tally(found, mxValidated)
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
