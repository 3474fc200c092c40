package main

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/dane"
	"github.com/mailauth/mailauth/dkim"
	"github.com/mailauth/mailauth/dmarc"
	"github.com/mailauth/mailauth/mtasts"
	"github.com/mailauth/mailauth/mx"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/spf"
	"github.com/mailauth/mailauth/tlsrpt"
)

// The -records section of scan: the raw records behind a local scan,
// collected here in the CLI and nowhere in the importable library, whose
// results never carry raw records. Each section reads its records the way
// its check does, with the protocol package's own Select (and Parse for
// the SPF include tree and TLSA), so what it shows is what the checks
// read.

// rawRecords is the raw data behind a local scan: the record texts, names
// and addresses a mailauth.ScanSummary never carries, for a person looking
// at their own domain through their own resolver (scan -records).
//
// It is wire data, only ever printed to the person who ran the scan on
// their own machine: never logged, stored or sent anywhere. A DKIM key's
// p= value and a TLSA record's association data are elided.
type rawRecords struct {
	// Domain is the scanned name (normalized, ASCII).
	Domain string
	// SPF lists the TXT records at Domain that start with v=spf1.
	SPF []string
	// SPFIncludes is the include tree of the domain's SPF record: its
	// include mechanisms that an evaluation reaches, in record order,
	// then the redirect= it follows (if any), each with what it costs and
	// the includes of its own target.
	SPFIncludes []spfNode
	// SPFLookups is the DNS lookup count of the whole policy, as the SPF
	// check counts it (nil when it has no unique parsed record), and
	// SPFLookupLimit the limit (spf.MaxLookups).
	SPFLookups     *int
	SPFLookupLimit int
	// DMARC lists the DMARC records at DMARCAt, the _dmarc name where
	// policy discovery found the applicable record ("" when none).
	DMARC   []string
	DMARCAt string
	// MTASTS lists the v=STSv1 TXT records at _mta-sts.<domain>;
	// MTASTSPolicy is the fetched policy as parsed (nil when none was
	// fetched).
	MTASTS       []string
	MTASTSPolicy *mtasts.Policy
	// TLSRPT lists the v=TLSRPTv1 TXT records at _smtp._tls.<domain>.
	TLSRPT []string
	// DKIM lists the TXT records at DKIMAt (<selector>._domainkey.<domain>,
	// "" without a selector), each with the value of p= elided.
	DKIM   []string
	DKIMAt string
	// MX lists the domain's MX records by preference.
	MX []mxRecord
	// TLSA lists the DANE TLSA records (RFC 7672) of the mail servers of
	// MX, at most dane.MaxHosts of them, in MX order, the association
	// data elided.
	TLSA []tlsaRecord
	// PTR lists the names the PTR records of PTRFor, the sending IP, give
	// (both empty without a sending IP).
	PTR    []string
	PTRFor string
	// CAA lists the relevant CAA set (RFC 8659 §3), found at CAAAt: the
	// domain or its closest ancestor with CAA records ("" when none).
	CAA   []caaRecord
	CAAAt string
	// Inconclusive marks the sections whose lookup gave no conclusive
	// answer (a timeout, SERVFAIL, the deadline…): their lists are empty
	// because nothing could be learnt, not because there is no record.
	Inconclusive rawInconclusive
}

// rawInconclusive has one flag per section of [rawRecords]: true when a
// lookup that section depends on was inconclusive, so an empty list there
// means "unknown", not "none".
type rawInconclusive struct {
	SPF    bool // the TXT lookup at the domain
	DMARC  bool // policy discovery (dmarc.DiscoveryInconclusive)
	MTASTS bool // the TXT lookup at _mta-sts (the policy fetch has its own "not fetched")
	TLSRPT bool // the TXT lookup at _smtp._tls
	DKIM   bool // the TXT lookup at the selector's name
	MX     bool // the MX lookup
	TLSA   bool // a TLSA lookup of a mail server
	PTR    bool // the PTR lookup of the sending IP
	CAA    bool // a CAA lookup on the way up before a set was found
}

// spfNode is one include mechanism of an SPF record, or its redirect=
// modifier.
type spfNode struct {
	// Target is the include's domain-spec as written (macros unexpanded).
	Target string
	// Redirect is true for a redirect= modifier (RFC 7208 §6.1) that an
	// evaluation follows (the record has no all), always the last node of
	// its level; false for an include.
	Redirect bool
	// Inconclusive is true when the TXT lookup of the target gave no
	// conclusive answer, so its own includes are unknown.
	Inconclusive bool
	// Lookups is what the include costs: the include itself and every
	// counted term behind it (spf.Include.Lookups). For a redirect, the
	// redirect itself plus the lookup count of the target's policy.
	Lookups int
	// Problem is the first error met behind it, as an spf finding code;
	// "" when none.
	Problem spf.Code
	// Includes are the includes of the target's own record, each costed
	// by the SPF check of that target; nil when it has none, its target
	// has macros, or the tree is deeper than the display bound.
	Includes []spfNode
}

// mxRecord is one MX record.
type mxRecord struct {
	Preference uint16
	Host       string // "" for a null MX (RFC 7505)
}

// tlsaRecord is one TLSA record of a mail server, without its
// certificate association data (RFC 6698 §2.1).
type tlsaRecord struct {
	// Host is the mail server; the record is at _25._tcp.<Host>.
	Host         string
	Usage        uint8
	Selector     uint8
	MatchingType uint8
	// DataLength is the length of the elided association data, in
	// octets.
	DataLength int
	// Validated is the AD bit of the answer: the resolver validated the
	// set with DNSSEC.
	Validated bool
}

// caaRecord is one CAA record.
type caaRecord struct {
	Flags      uint8
	Tag, Value string
}

// Bounds of the displayed SPF include tree: deeper levels and further
// includes are left out (the costs still count them).
const (
	maxIncludeDepth = 6
	maxIncludeNodes = 100
)

// collectRecords looks up the raw records of req's domain (and of its
// selector and sending IP, when given) through cfg's resolver, within
// cfg's scan timeout (mailauth.DefaultScanTimeout when unset) and ctx. A
// lookup that gives no conclusive answer, the deadline's included, marks
// its section in rawRecords.Inconclusive. The include costs are those of
// the SPF check: the top level is spf.Check's Includes for the domain,
// each lower level spf.Check's for the include's target. req is checked
// by mailauth.ScanRequest.Validate, as a scan's is.
func collectRecords(ctx context.Context, cfg mailauth.Config, req mailauth.ScanRequest) (rawRecords, error) {
	in, err := req.Validate()
	if err != nil {
		return rawRecords{}, err
	}
	d, ip := in.Domain, in.SendingIP
	timeout := cfg.ScanTimeout
	if timeout <= 0 {
		timeout = mailauth.DefaultScanTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	up := cfg.Resolver
	if up == nil {
		up = &resolver.Client{Servers: cfg.DNSServers} // host:port already (parseDNSServers)
	}
	c := &collector{r: &memo{r: up, m: map[memoKey]resolver.Answer{}}, out: rawRecords{Domain: d.ASCII}}
	inc := &c.out.Inconclusive
	c.spf(ctx, d.ASCII)
	c.dmarc(ctx, d.ASCII)
	c.out.MTASTS = mtasts.Select(c.txtAt(ctx, "_mta-sts."+d.ASCII, &inc.MTASTS))
	if len(c.out.MTASTS) > 0 {
		res := mtasts.Check(ctx, c.r, d.ASCII, mtasts.Options{Port: cfg.HTTPSPort, RootCAs: cfg.RootCAs,
			AllowLoopback: cfg.AllowLoopbackTargets, Timeout: cfg.FetchTimeout})
		if res.FetchState == mtasts.Fetched {
			c.out.MTASTSPolicy = &res.Policy
		}
	}
	c.out.TLSRPT = tlsrpt.Select(c.txtAt(ctx, "_smtp._tls."+d.ASCII, &inc.TLSRPT))
	if in.Selector != "" {
		c.out.DKIMAt = dkim.Name(in.Selector, d.ASCII)
		for _, t := range c.txtAt(ctx, c.out.DKIMAt, &inc.DKIM) {
			c.out.DKIM = append(c.out.DKIM, elideDKIMKey(t))
		}
	}
	mx := c.r.Lookup(ctx, d.ASCII, resolver.TypeMX)
	inc.MX = !mx.Conclusive()
	for _, rr := range mx.Records {
		if rr.Type == resolver.TypeMX {
			c.out.MX = append(c.out.MX, mxRecord{Preference: rr.Preference, Host: rr.Target})
		}
	}
	sortMX(c.out.MX)
	c.tlsa(ctx)
	if ip.IsValid() {
		c.out.PTRFor = ip.String()
		ptr := c.r.Lookup(ctx, resolver.ReverseName(ip), resolver.TypePTR)
		c.out.PTR, inc.PTR = ptr.Targets(), !ptr.Conclusive()
	}
	c.caa(ctx, d.ASCII)
	return c.out, nil
}

// collector gathers one Records.
type collector struct {
	r     resolver.Resolver
	out   rawRecords
	nodes int // SPF include nodes shown so far
}

// txt returns the joined TXT strings at name (none when the lookup found
// none or was inconclusive).
func (c *collector) txt(ctx context.Context, name string) []string {
	return c.r.Lookup(ctx, name, resolver.TypeTXT).TXTs()
}

// txtAt is txt that sets *inconclusive when the lookup was.
func (c *collector) txtAt(ctx context.Context, name string, inconclusive *bool) []string {
	a := c.r.Lookup(ctx, name, resolver.TypeTXT)
	*inconclusive = !a.Conclusive()
	return a.TXTs()
}

// spf fills the SPF record and its include tree.
func (c *collector) spf(ctx context.Context, domain string) {
	c.out.SPF = spf.Select(c.txtAt(ctx, domain, &c.out.Inconclusive.SPF))
	res := spf.Check(ctx, c.r, domain)
	c.out.SPFLookups, c.out.SPFLookupLimit = res.LookupCount, res.LookupLimit
	if len(c.out.SPF) == 1 {
		c.out.SPFIncludes = c.includes(ctx, c.out.SPF[0], res.Includes, 0)
	}
}

// includes pairs the include terms an evaluation of record reaches with
// their costs (spf.Result.Includes, in record order) and descends; a
// redirect an evaluation follows comes last.
func (c *collector) includes(ctx context.Context, record string, costs []spf.Include, depth int) []spfNode {
	rec, err := spf.Parse(record)
	if err != nil {
		return nil
	}
	var out []spfNode
	for _, t := range rec.Terms {
		if len(out) == len(costs) || c.nodes >= maxIncludeNodes {
			break
		}
		if t.Kind != spf.KindInclude {
			continue
		}
		c.nodes++
		inc := spfNode{Target: t.DomainSpec, Lookups: costs[len(out)].Lookups, Problem: costs[len(out)].Problem}
		c.expand(ctx, &inc, depth)
		out = append(out, inc)
	}
	if r := c.redirect(ctx, rec, depth); r != nil {
		out = append(out, *r)
	}
	return out
}

// redirect is the node of rec's redirect= modifier when an evaluation
// follows it (rec has no all, RFC 7208 §6.1): it costs one lookup plus
// the lookup count of the target's policy, and its problem is the error
// the target's evaluation ends in. nil when there is none to show.
func (c *collector) redirect(ctx context.Context, rec spf.Record, depth int) *spfNode {
	if _, at := rec.All(); at >= 0 || c.nodes >= maxIncludeNodes {
		return nil
	}
	for _, t := range rec.Terms {
		if t.Kind != spf.KindRedirect {
			continue
		}
		c.nodes++
		node := &spfNode{Target: t.DomainSpec, Redirect: true, Lookups: 1}
		if !strings.Contains(t.DomainSpec, "%") {
			res := spf.Check(ctx, c.r, strings.ToLower(strings.TrimSuffix(t.DomainSpec, ".")))
			if res.LookupCount != nil {
				node.Lookups += *res.LookupCount
			}
			node.Problem = res.ErrorCause
		}
		c.expand(ctx, node, depth)
		return node
	}
	return nil
}

// expand fills the includes of inc's target, below the display bound and
// when its domain-spec has no macros.
func (c *collector) expand(ctx context.Context, inc *spfNode, depth int) {
	if depth+1 >= maxIncludeDepth || strings.Contains(inc.Target, "%") {
		return
	}
	target := strings.ToLower(strings.TrimSuffix(inc.Target, "."))
	if recs := spf.Select(c.txtAt(ctx, target, &inc.Inconclusive)); len(recs) == 1 {
		inc.Includes = c.includes(ctx, recs[0], spf.Check(ctx, c.r, target).Includes, depth+1)
	}
}

// dmarc fills the applicable DMARC record and where it was found.
func (c *collector) dmarc(ctx context.Context, domain string) {
	res := dmarc.Check(ctx, c.r, domain)
	c.out.Inconclusive.DMARC = res.Discovery == dmarc.DiscoveryInconclusive
	if res.Discovery != dmarc.DiscoveryFound || res.PolicyDomain == "" {
		return
	}
	c.out.DMARCAt = "_dmarc." + res.PolicyDomain
	c.out.DMARC = dmarc.Select(c.txt(ctx, c.out.DMARCAt))
}

// caa fills the relevant CAA set: the records of the closest name, from
// the domain up, that has any (RFC 8659 §3).
func (c *collector) caa(ctx context.Context, domain string) {
	for name := domain; strings.Contains(name, "."); name = parentName(name) {
		var set []caaRecord
		a := c.r.Lookup(ctx, name, resolver.TypeCAA)
		if !a.Conclusive() {
			c.out.Inconclusive.CAA = true // the relevant set is unknown
			return
		}
		for _, rr := range a.Records {
			if rr.Type == resolver.TypeCAA {
				set = append(set, caaRecord{Flags: rr.CAAFlags, Tag: rr.CAATag, Value: rr.CAAValue})
			}
		}
		if len(set) > 0 {
			c.out.CAA, c.out.CAAAt = set, name
			return
		}
	}
}

// tlsa fills the TLSA records of the mail servers in c.out.MX, at most
// dane.MaxHosts of them, IP literals left out (mx.IsIPLiteral).
func (c *collector) tlsa(ctx context.Context) {
	seen := map[string]bool{}
	for _, m := range c.out.MX {
		if m.Host == "" || seen[m.Host] || len(seen) == dane.MaxHosts {
			continue
		}
		seen[m.Host] = true
		if mx.IsIPLiteral(m.Host) {
			continue
		}
		a := c.r.Lookup(ctx, dane.Name(m.Host), resolver.TypeTLSA)
		if !a.Conclusive() {
			c.out.Inconclusive.TLSA = true
		}
		for _, rr := range a.Records {
			t, err := dane.Parse(rr.RData)
			if rr.Type != resolver.TypeTLSA || err != nil {
				continue
			}
			c.out.TLSA = append(c.out.TLSA, tlsaRecord{Host: m.Host, Usage: t.Usage, Selector: t.Selector,
				MatchingType: t.MatchingType, DataLength: len(t.Data), Validated: a.Authentic})
		}
	}
}

// parentName is name without its first label ("" for a single label).
func parentName(name string) string {
	_, parent, _ := strings.Cut(name, ".")
	return parent
}

// sortMX orders MX records by preference, then host (insertion sort:
// a domain has a handful).
func sortMX(mx []mxRecord) {
	for i := 1; i < len(mx); i++ {
		for j := i; j > 0 && (mx[j].Preference < mx[j-1].Preference ||
			mx[j].Preference == mx[j-1].Preference && mx[j].Host < mx[j-1].Host); j-- {
			mx[j], mx[j-1] = mx[j-1], mx[j]
		}
	}
}

// elideDKIMKey returns a DKIM key record with the value of its p= tag
// replaced by a note of its length, so that no key material is shown:
// "v=DKIM1; k=rsa; p=MIIB…" becomes "v=DKIM1; k=rsa; p=(392 characters elided)".
// An empty p= (a revoked key) stays empty.
func elideDKIMKey(record string) string {
	tags := strings.Split(record, ";")
	for i, tag := range tags {
		name, value, ok := strings.Cut(tag, "=")
		if !ok || strings.TrimSpace(name) != "p" {
			continue
		}
		key := strings.Join(strings.Fields(value), "")
		if key != "" {
			tags[i] = name + "=(" + fmt.Sprint(len(key)) + " characters elided)"
		}
	}
	return strings.Join(tags, ";")
}

// memo answers each question once per Records call: the include tree
// asks the SPF check of every target again.
type memo struct {
	r  resolver.Resolver
	mu sync.Mutex
	m  map[memoKey]resolver.Answer
}

type memoKey struct {
	name string
	t    resolver.Type
}

// Lookup implements resolver.Resolver.
func (m *memo) Lookup(ctx context.Context, name string, t resolver.Type) resolver.Answer {
	k := memoKey{strings.ToLower(name), t}
	m.mu.Lock()
	a, ok := m.m[k]
	m.mu.Unlock()
	if ok {
		return a
	}
	a = m.r.Lookup(ctx, name, t)
	if a.Conclusive() {
		m.mu.Lock()
		m.m[k] = a
		m.mu.Unlock()
	}
	return a
}
