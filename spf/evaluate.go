package spf

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"github.com/mailauth/mailauth/resolver"
)

// Input limits of Evaluate, from SMTP (RFC 5321 §4.5.3.1).
const (
	// MaxSenderLength is the longest MAIL FROM address Evaluate takes:
	// the reverse-path limit of 256 octets (RFC 5321 §4.5.3.1.3).
	MaxSenderLength = 256
	// MaxHELOLength is the longest HELO name Evaluate takes: the domain
	// limit of 255 octets (RFC 5321 §4.5.3.1.2).
	MaxHELOLength = 255
)

// MaxPTRNames is the number of names of a PTR answer whose addresses an
// evaluation looks up for a ptr mechanism or the %{p} macro; the others
// are ignored (RFC 7208 §4.6.4, §5.5).
const MaxPTRNames = 10

// ErrQuery is wrapped by the error Evaluate returns for a query it cannot
// evaluate: no valid client address, or a sender or HELO name longer than
// SMTP allows.
var ErrQuery = errors.New("spf: invalid query")

// Verdict is the result of an evaluation (RFC 7208 §2.6).
type Verdict string

// The results of check_host() (RFC 7208 §2.6).
const (
	VerdictNone      Verdict = "none"      // no SPF record, or no valid domain to check (§2.6.1)
	VerdictNeutral   Verdict = "neutral"   // the domain asserts nothing about the client (§2.6.2)
	VerdictPass      Verdict = "pass"      // the client is authorized (§2.6.3)
	VerdictFail      Verdict = "fail"      // the client is not authorized (§2.6.4)
	VerdictSoftFail  Verdict = "softfail"  // probably not authorized (§2.6.5)
	VerdictTempError Verdict = "temperror" // a transient DNS error (§2.6.6)
	VerdictPermError Verdict = "permerror" // the policy cannot be interpreted (§2.6.7)
)

// verdictOf maps a mechanism qualifier to its result (§4.6.2).
func verdictOf(q Qualifier) Verdict {
	switch q {
	case QualifierFail:
		return VerdictFail
	case QualifierSoftFail:
		return VerdictSoftFail
	case QualifierNeutral:
		return VerdictNeutral
	}
	return VerdictPass
}

// EvalReason says why an evaluation ended with its Verdict. It is a stable
// code and never carries text from DNS.
type EvalReason string

// Reasons of an evaluation.
const (
	ReasonMatched         EvalReason = "mechanism_matched"          // a mechanism matched; its qualifier is the result (§4.6.2)
	ReasonNoMatch         EvalReason = "no_match"                   // no mechanism matched and there is no redirect: neutral (§4.7)
	ReasonNoRecord        EvalReason = "no_record"                  // the domain has no SPF record: none (§4.5)
	ReasonInvalidDomain   EvalReason = "invalid_domain"             // the domain is not a valid multi-label name: none (§4.3)
	ReasonMultiple        EvalReason = "multiple_records"           // the domain has several SPF records: permerror (§4.5)
	ReasonSyntax          EvalReason = "syntax_error"               // a record does not parse: permerror (§4.6); Cause holds the syntax code
	ReasonIncludeNone     EvalReason = "include_no_record"          // an include target has no SPF record: permerror (§5.2)
	ReasonRedirectNone    EvalReason = "redirect_no_record"         // the redirect target has no SPF record: permerror (§6.1)
	ReasonLookupLimit     EvalReason = "lookup_limit_exceeded"      // more than MaxLookups DNS-causing terms: permerror (§4.6.4)
	ReasonVoidLimit       EvalReason = "void_lookup_limit_exceeded" // more than MaxVoidLookups void lookups: permerror (§4.6.4)
	ReasonMXLimit         EvalReason = "mx_over_10"                 // an mx target has more than MaxMXNames records: permerror (§4.6.4)
	ReasonDNSError        EvalReason = "dns_error"                  // a lookup failed or timed out: temperror (§4.4, §5)
	ReasonRecordLookupErr EvalReason = "record_lookup_error"        // the TXT lookup of a policy failed or timed out: temperror (§4.4)
)

// EvalReasons returns every reason Evaluate can give, in declaration
// order.
func EvalReasons() []EvalReason {
	return []EvalReason{
		ReasonMatched, ReasonNoMatch, ReasonNoRecord, ReasonInvalidDomain, ReasonMultiple, ReasonSyntax,
		ReasonIncludeNone, ReasonRedirectNone, ReasonLookupLimit, ReasonVoidLimit, ReasonMXLimit,
		ReasonDNSError, ReasonRecordLookupErr,
	}
}

// Identity names the identity an evaluation checked (RFC 7208 §2.3, §2.4).
type Identity string

// Identities.
const (
	IdentityMailFrom Identity = "mailfrom" // the MAIL FROM domain (§2.4)
	IdentityHELO     Identity = "helo"     // the HELO domain, for a null reverse-path (§2.3, §2.4)
)

// Query is what an evaluation needs from an SMTP session.
type Query struct {
	// IP is the client address (RFC 7208 §4.1 <ip>). An IPv4-mapped IPv6
	// address is evaluated as IPv4; an IPv6 zone is ignored (no policy
	// network has one, and a zoned address is in no prefix).
	IP netip.Addr
	// Sender is the MAIL FROM address as given, without angle brackets;
	// "" for the null reverse-path, when the HELO identity is checked
	// (§2.4). A sender without a local-part gets "postmaster" (§4.3).
	Sender string
	// HELO is the HELO/EHLO domain (%{h}, §7.3).
	HELO string
}

// Evaluation is the outcome of Evaluate. It holds no DNS data: only the
// result, coded reasons, positions and counts.
type Evaluation struct {
	// Identity is the identity checked: MAIL FROM, or HELO when the
	// sender is empty.
	Identity Identity
	// Verdict is the result of check_host() (§2.6).
	Verdict Verdict
	// Reason says why.
	Reason EvalReason
	// Cause is the finding code behind a syntax error (one of the
	// CodeSyntax… codes); "" otherwise.
	Cause Code
	// Mechanism is the kind of the mechanism that matched, with its
	// 1-based Term position in the record that holds it and the Depth of
	// that record (0 for the checked domain's, 1 for a record it includes
	// or redirects to, …); set only for ReasonMatched.
	Mechanism Kind
	Term      int
	Depth     int
	// Lookups is the number of DNS-causing terms evaluated (§4.6.4) and
	// VoidLookups the number of lookups that returned no records.
	Lookups     int
	VoidLookups int
}

// Evaluate runs check_host() (RFC 7208 §4) for the client q.IP and the
// MAIL FROM identity of q.Sender, or the HELO identity when q.Sender is
// empty: it fetches the domain's policy and evaluates its mechanisms in
// order, following include and redirect, expanding macros (§7) and
// enforcing the limits of §4.6.4: MaxLookups DNS-causing terms,
// MaxVoidLookups void lookups, MaxMXNames records per mx and MaxPTRNames
// names per ptr. Every empty answer (NODATA or NXDOMAIN) to a lookup made
// for a mechanism or modifier is a void lookup, also the address lookups
// of mx exchanges and ptr names and the TXT lookups of include and
// redirect targets, as pyspf counts them; the domain's own TXT lookup is
// not. DNS problems are results (temperror), never errors; the
// error is only for an invalid query (wrapping ErrQuery). It does not
// fetch exp= explanations.
func Evaluate(ctx context.Context, r resolver.Resolver, q Query) (Evaluation, error) {
	if !q.IP.IsValid() {
		return Evaluation{}, fmt.Errorf("%w: no valid client address", ErrQuery)
	}
	if len(q.Sender) > MaxSenderLength {
		return Evaluation{}, fmt.Errorf("%w: sender longer than %d octets", ErrQuery, MaxSenderLength)
	}
	if len(q.HELO) > MaxHELOLength {
		return Evaluation{}, fmt.Errorf("%w: HELO name longer than %d octets", ErrQuery, MaxHELOLength)
	}
	e := newEvaluator(r, q)
	ev := e.checkHost(ctx, e.senderDomain, 0)
	ev.Identity = e.identity
	ev.Lookups, ev.VoidLookups = e.lookups, e.voids
	return ev, nil
}

// evaluator holds the state of one evaluation: the macro values and the
// counters every record of the tree shares (§4.6.4).
type evaluator struct {
	r            resolver.Resolver
	ip           netip.Addr
	identity     Identity
	sender       string // %{s}
	local        string // %{l}
	senderDomain string // %{o}, the domain checked first
	helo         string // %{h}

	lookups int
	voids   int

	ptrDone  bool        // the validated names for %{p} were looked up
	ptrNames []string    // the client's validated names (§5.5)
	macroErr *Evaluation // an error met while expanding %{p}
}

func newEvaluator(r resolver.Resolver, q Query) *evaluator {
	e := &evaluator{r: r, ip: q.IP.Unmap().WithZone(""), helo: q.HELO, identity: IdentityMailFrom}
	sender := q.Sender
	if sender == "" {
		e.identity = IdentityHELO
		sender = q.HELO
	}
	local, domain := "postmaster", sender
	if at := strings.LastIndexByte(sender, '@'); at >= 0 {
		domain = sender[at+1:]
		if at > 0 {
			local = sender[:at]
		}
	}
	e.local, e.senderDomain = local, domain
	e.sender = local + "@" + domain
	return e
}

// stop ends an evaluation with verdict and reason.
func stop(v Verdict, reason EvalReason) Evaluation {
	return Evaluation{Verdict: v, Reason: reason}
}

// checkHost is check_host(<ip>, domain, <sender>) (§4) at the given
// depth of include and redirect; past MaxDepth it is a permerror without
// a lookup, a bound on the recursion independent of the lookup count.
func (e *evaluator) checkHost(ctx context.Context, domain string, depth int) Evaluation {
	if depth > MaxDepth {
		// Every include and redirect costs a counted term, so MaxLookups
		// ends a chain first; this bound holds the recursion even if that
		// accounting is ever wrong.
		return stop(VerdictPermError, ReasonLookupLimit)
	}
	domain = strings.TrimSuffix(domain, ".")
	if !validDomain(domain) {
		return stop(VerdictNone, ReasonInvalidDomain)
	}
	rec, ev, ok := e.fetch(ctx, resolver.CanonicalName(domain), depth > 0)
	if !ok {
		return ev
	}
	return e.evalRecord(ctx, resolver.CanonicalName(domain), rec, depth)
}

// validDomain reports whether domain can be checked (§4.3): a valid name
// of at least two labels whose last label is a top label (not a domain
// literal or a bare address).
func validDomain(domain string) bool {
	if !wireName(domain) || strings.IndexByte(domain, '.') < 0 {
		return false
	}
	return isTopLabel(domain[strings.LastIndexByte(domain, '.')+1:])
}

// fetch looks up and parses the one SPF record of domain (§4.4, §4.5).
// voidCounts says whether an empty answer is a void lookup (it is for
// include and redirect targets).
func (e *evaluator) fetch(ctx context.Context, domain string, voidCounts bool) (Record, Evaluation, bool) {
	ans := e.r.Lookup(ctx, presentationName(domain), resolver.TypeTXT)
	switch {
	case ans.Reason == resolver.ReasonInvalidName:
		return Record{}, stop(VerdictNone, ReasonInvalidDomain), false
	case !ans.Conclusive():
		return Record{}, stop(VerdictTempError, ReasonRecordLookupErr), false
	case ans.Absent() && voidCounts:
		if !e.void() {
			return Record{}, stop(VerdictPermError, ReasonVoidLimit), false
		}
	}
	recs := Select(ans.TXTs())
	switch len(recs) {
	case 0:
		return Record{}, stop(VerdictNone, ReasonNoRecord), false
	case 1:
	default:
		return Record{}, stop(VerdictPermError, ReasonMultiple), false
	}
	rec, err := Parse(recs[0])
	if err != nil {
		ev := stop(VerdictPermError, ReasonSyntax)
		ev.Cause = syntaxCode(err)
		return Record{}, ev, false
	}
	return rec, Evaluation{}, true
}

// void counts one void lookup and reports whether the count is still
// within MaxVoidLookups (§4.6.4).
func (e *evaluator) void() bool {
	e.voids++
	return e.voids <= MaxVoidLookups
}

// evalRecord evaluates the mechanisms of rec, the record of domain, in
// order, then its redirect (§4.6.2, §4.7, §6.1).
func (e *evaluator) evalRecord(ctx context.Context, domain string, rec Record, depth int) Evaluation {
	for i, t := range rec.Terms {
		if !t.IsMechanism() {
			continue
		}
		if t.CausesLookup() {
			if e.lookups++; e.lookups > MaxLookups {
				return stop(VerdictPermError, ReasonLookupLimit)
			}
		}
		m := e.match(ctx, domain, t, depth)
		if m.err != nil {
			return *m.err
		}
		if m.matched {
			return Evaluation{Verdict: verdictOf(t.Qualifier), Reason: ReasonMatched, Mechanism: t.Kind, Term: i + 1, Depth: depth}
		}
	}
	spec, ok := rec.Redirect()
	if !ok {
		return stop(VerdictNeutral, ReasonNoMatch)
	}
	return e.redirect(ctx, domain, spec, depth)
}

// redirect follows a redirect modifier (§6.1): the target's result is the
// result, except that none becomes permerror.
func (e *evaluator) redirect(ctx context.Context, domain, spec string, depth int) Evaluation {
	if e.lookups++; e.lookups > MaxLookups {
		return stop(VerdictPermError, ReasonLookupLimit)
	}
	target, ok := expandName(spec, e.macros(ctx, domain))
	if e.macroErr != nil {
		return *e.macroErr
	}
	if !ok {
		return stop(VerdictPermError, ReasonRedirectNone)
	}
	ev := e.checkHost(ctx, target, depth+1)
	if ev.Verdict == VerdictNone {
		return stop(VerdictPermError, ReasonRedirectNone)
	}
	return ev
}

// matchResult is the outcome of one mechanism: matched, or an error
// result that ends the evaluation.
type matchResult struct {
	matched bool
	err     *Evaluation
}

var noMatch = matchResult{}

func matched(ok bool) matchResult { return matchResult{matched: ok} }

func failWith(v Verdict, reason EvalReason) matchResult {
	ev := stop(v, reason)
	return matchResult{err: &ev}
}

// match evaluates one mechanism of the record of domain (§5).
func (e *evaluator) match(ctx context.Context, domain string, t Term, depth int) matchResult {
	switch t.Kind {
	case KindAll:
		return matched(true)
	case KindIP4, KindIP6:
		return matched(t.Net.Masked().Contains(e.ip)) // never across families (netip)
	}
	target := domain
	if t.DomainSpec != "" {
		name, ok := expandName(t.DomainSpec, e.macros(ctx, domain))
		if e.macroErr != nil {
			return matchResult{err: e.macroErr}
		}
		if !ok {
			return noMatch
		}
		target = name
	}
	switch t.Kind {
	case KindInclude:
		return e.include(ctx, target, depth)
	case KindA:
		return e.matchA(ctx, target, t)
	case KindMX:
		return e.matchMX(ctx, target, t)
	case KindPTR:
		return e.matchPTR(ctx, target)
	case KindExists:
		return e.matchExists(ctx, target)
	}
	return noMatch
}

// include evaluates an include mechanism (§5.2): it matches when the
// target passes; fail, softfail and neutral do not match; errors
// propagate and none is a permerror.
func (e *evaluator) include(ctx context.Context, target string, depth int) matchResult {
	if !validDomain(target) {
		return failWith(VerdictPermError, ReasonIncludeNone)
	}
	ev := e.checkHost(ctx, target, depth+1)
	switch ev.Verdict {
	case VerdictPass:
		return matched(true)
	case VerdictTempError, VerdictPermError:
		return matchResult{err: &ev}
	case VerdictNone:
		return failWith(VerdictPermError, ReasonIncludeNone)
	}
	return noMatch
}

// addrType is the address record type for the client's family.
func (e *evaluator) addrType() resolver.Type {
	if e.ip.Is4() {
		return resolver.TypeA
	}
	return resolver.TypeAAAA
}

// cidr returns the prefix length of a and mx for the client's family.
func (e *evaluator) cidr(t Term) int {
	if e.ip.Is4() {
		return int(t.CIDR4)
	}
	return int(t.CIDR6)
}

// lookup asks for qtype at name for a mechanism. It returns the answer
// and, when the evaluation must end, the error result: temperror for a
// failed lookup, permerror past the void limit. A name that is not a
// valid DNS name gives an empty answer and no error: it matches nothing.
func (e *evaluator) lookup(ctx context.Context, name string, qtype resolver.Type) (resolver.Answer, *matchResult) {
	if !wireName(name) {
		return resolver.Answer{Outcome: resolver.NXDomain}, nil
	}
	ans := e.r.Lookup(ctx, presentationName(name), qtype)
	switch {
	case ans.Reason == resolver.ReasonInvalidName:
		return resolver.Answer{Outcome: resolver.NXDomain}, nil
	case !ans.Conclusive():
		m := failWith(VerdictTempError, ReasonDNSError)
		return ans, &m
	case ans.Absent() && !e.void():
		m := failWith(VerdictPermError, ReasonVoidLimit)
		return ans, &m
	}
	return ans, nil
}

// matchA evaluates an a mechanism (§5.3).
func (e *evaluator) matchA(ctx context.Context, target string, t Term) matchResult {
	ans, stopped := e.lookup(ctx, target, e.addrType())
	if stopped != nil {
		return *stopped
	}
	return matched(e.inNetworks(ans.Addrs(), e.cidr(t)))
}

// inNetworks reports whether the client is in one of the networks of
// addrs with the given prefix length.
func (e *evaluator) inNetworks(addrs []netip.Addr, bits int) bool {
	for _, a := range addrs {
		if a.Is4() != e.ip.Is4() {
			continue
		}
		if p, err := a.Prefix(bits); err == nil && p.Contains(e.ip) {
			return true
		}
	}
	return false
}

// matchMX evaluates an mx mechanism (§5.4): the addresses of the
// exchange of each MX record are looked up in preference order until one
// matches. §4.6.4 limits the address lookups that evaluating the records
// makes, counted per record as Check counts them (mxRecordCount: a null MX
// names no host; two records naming one host count twice, as the RFC 7208
// test suite's mx-limit has it): reaching an 11th record is a permerror,
// but a client matched by an earlier one never gets there.
func (e *evaluator) matchMX(ctx context.Context, target string, t Term) matchResult {
	ans, stopped := e.lookup(ctx, target, resolver.TypeMX)
	if stopped != nil {
		return *stopped
	}
	seen := map[string]bool{}
	for i, exchange := range exchangeRecords(ans.Records) {
		if i == MaxMXNames {
			return failWith(VerdictPermError, ReasonMXLimit)
		}
		if seen[exchange] { // looked up already, and it did not match
			continue
		}
		seen[exchange] = true
		host, ok := wireForm(exchange)
		if !ok {
			continue
		}
		addrs, stopped := e.lookup(ctx, host, e.addrType())
		if stopped != nil {
			return *stopped
		}
		if e.inNetworks(addrs.Addrs(), e.cidr(t)) {
			return matched(true)
		}
	}
	return noMatch
}

// matchExists evaluates an exists mechanism (§5.7): an A lookup, whatever
// the client's family.
func (e *evaluator) matchExists(ctx context.Context, target string) matchResult {
	ans, stopped := e.lookup(ctx, target, resolver.TypeA)
	if stopped != nil {
		return *stopped
	}
	return matched(ans.Outcome == resolver.Found && len(ans.Addrs()) > 0)
}

// matchPTR evaluates a ptr mechanism (§5.5): it matches when a validated
// name of the client is the target or a subdomain of it. A failed PTR
// lookup does not match.
func (e *evaluator) matchPTR(ctx context.Context, target string) matchResult {
	names, stopped := e.validatedNames(ctx)
	if stopped != nil {
		return *stopped
	}
	for _, n := range names {
		if isSubdomain(n, target) {
			return matched(true)
		}
	}
	return noMatch
}

func isSubdomain(name, domain string) bool {
	return name == domain || strings.HasSuffix(name, "."+domain)
}

// validatedNames returns the validated domain names of the client
// (§5.5): the first MaxPTRNames names of its PTR answer whose addresses
// include the client. Lookup errors skip a name; only the void limit
// ends the evaluation. The names are looked up once per evaluation and
// shared by every ptr mechanism and %{p} macro: the client is the same.
func (e *evaluator) validatedNames(ctx context.Context) ([]string, *matchResult) {
	if e.ptrDone {
		return e.ptrNames, nil
	}
	e.ptrDone = true
	names, stopped := e.lookupValidated(ctx)
	e.ptrNames = names
	return names, stopped
}

// lookupValidated does the lookups of validatedNames.
func (e *evaluator) lookupValidated(ctx context.Context) ([]string, *matchResult) {
	ans, stopped := e.lookup(ctx, resolver.ReverseName(e.ip), resolver.TypePTR)
	if stopped != nil {
		if stopped.err.Verdict == VerdictTempError {
			return nil, nil
		}
		return nil, stopped
	}
	names := ans.Targets()
	if len(names) > MaxPTRNames {
		names = names[:MaxPTRNames]
	}
	var out []string
	for _, presented := range names {
		n, ok := wireForm(presented)
		if !ok {
			continue
		}
		addrs, stopped := e.lookup(ctx, n, e.addrType())
		if stopped != nil {
			if stopped.err.Verdict == VerdictTempError {
				continue
			}
			return nil, stopped
		}
		for _, a := range addrs.Addrs() {
			if a == e.ip {
				out = append(out, n)
				break
			}
		}
	}
	return out, nil
}

// wireName reports whether name, a domain name as octets with "." between
// labels (no trailing dot), can be asked for: labels of 1..63 octets,
// at most MaxDomainLength octets in all (RFC 1035 §2.3.4). Unlike
// validName it allows any octet in a label, as DNS does (RFC 2181 §11):
// macro expansion may put spaces or "%" there.
func wireName(name string) bool {
	if name == "" || len(name) > MaxDomainLength {
		return false
	}
	for l := range strings.SplitSeq(name, ".") {
		if l == "" || len(l) > 63 {
			return false
		}
	}
	return true
}

// wireForm turns a name from an answer (an MX exchange, a PTR target),
// which github.com/miekg/dns writes in presentation form with \X and
// \DDD escapes, into the octets with "." between labels that the
// evaluator works with and presentationName escapes again: without it an
// escaped octet would be escaped twice and the name never found. ok is
// false for a name with a dot inside a label, which that form cannot
// hold; such a host matches nothing.
func wireForm(name string) (string, bool) {
	if strings.IndexByte(name, '\\') < 0 {
		return name, true
	}
	b := make([]byte, 0, len(name))
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '\\' && i+1 < len(name) {
			c = name[i+1]
			i++
			if i+2 < len(name) && isDecimal(name[i]) && isDecimal(name[i+1]) && isDecimal(name[i+2]) {
				n := int(name[i]-'0')*100 + int(name[i+1]-'0')*10 + int(name[i+2]-'0')
				if n > 255 {
					return "", false
				}
				c = byte(n)
				i += 2
			}
			if c == '.' {
				return "", false
			}
		}
		b = append(b, c)
	}
	return string(b), true
}

func isDecimal(c byte) bool { return c >= '0' && c <= '9' }

// presentationName writes a wire name in the presentation form resolvers
// take, escaped exactly as github.com/miekg/dns writes names it decodes,
// so that the names of an answer compare equal to the question: the
// octets special in that form (. space ' @ ; ( ) " \) get a backslash,
// octets outside visible ASCII become \DDD (RFC 1035 §5.1).
func presentationName(name string) string {
	i := 0
	for i < len(name) && !needsEscape(name[i]) {
		i++
	}
	if i == len(name) {
		return name // the common case: nothing to escape, nothing to copy
	}
	var b strings.Builder
	b.Grow(len(name) + 8)
	b.WriteString(name[:i])
	for ; i < len(name); i++ {
		c := name[i]
		switch {
		case c < 0x20 || c > 0x7e:
			fmt.Fprintf(&b, "\\%03d", c)
		case strings.IndexByte(" '@;()\"\\", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// needsEscape reports whether presentationName escapes octet c.
func needsEscape(c byte) bool {
	return c < 0x20 || c > 0x7e || strings.IndexByte(" '@;()\"\\", c) >= 0
}
