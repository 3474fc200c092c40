package dmarc

import (
	"context"
	"strings"

	"github.com/mailauth/mailauth/resolver"
)

// MaxTreeWalk is the most targets one DNS Tree Walk queries (RFC 9989
// §4.10): the author domain and at most seven shorter names.
const MaxTreeWalk = 8

// MaxNameLen is the longest DNS name in presentation form, without the
// trailing dot (RFC 1035 §3.1: 255 octets on the wire). A "_dmarc." name
// longer than this cannot exist, so it holds no record.
const MaxNameLen = 253

// ShortcutLabels is the label count the walk jumps to after the first
// query when the name has eight or more labels (RFC 9989 §4.10 step 4).
const ShortcutLabels = 7

// Targets returns the names the DNS Tree Walk queries for domain, in
// order (RFC 9989 §4.10): domain itself; then, when it has eight or more
// labels, its last seven labels, else its parent; then one label less
// each time, down to the single top-level label. At most MaxTreeWalk
// names. Each is queried as "_dmarc." + name.
func Targets(domain string) []string {
	domain = resolver.CanonicalName(domain)
	labels := strings.Split(domain, ".")
	out := []string{domain}
	next := labels[1:]
	if len(labels) >= MaxTreeWalk {
		next = labels[len(labels)-ShortcutLabels:]
	}
	for ; len(next) > 0; next = next[1:] {
		out = append(out, strings.Join(next, "."))
	}
	return out
}

// RecordName returns the name a target's policy record is published at
// (RFC 9989 §4.10): "_dmarc." + target.
func RecordName(target string) string {
	if target == "" {
		return "_dmarc"
	}
	return "_dmarc." + target
}

// Walk follows the questions Check asks for a domain from their
// answers, so that a caller can ask them before Check runs (the scan's
// first questions): the DNS Tree Walk's record names one after another
// (Next), then the authorization records of the selected record's
// aggregate-report destinations in other organizations (Authorizations).
// The decisions are Check's own (the walk's take and choose), so what a
// Walk asks is what Check asks. A Walk is used by one goroutine at a
// time.
type Walk struct {
	domain  string
	targets []string
	i       int   // the target whose answer Next takes
	w       *walk // what the walk saw (run's own, when run drives it)
	over    bool
}

// NewWalk returns the Walk of domain, no question asked yet.
func NewWalk(domain string) *Walk {
	domain = resolver.CanonicalName(domain)
	return &Walk{domain: domain, targets: Targets(domain), w: new(walk)}
}

// Next takes a, the answer to the name Next returned last (nil on the
// first call), and returns the next record name the walk asks, or false
// when the walk is over: at a record that ends it, an inconclusive
// answer or the last target (see run). A target whose record name
// cannot exist is passed over, as run passes it.
func (k *Walk) Next(a *resolver.Answer) (string, bool) {
	if k.over {
		return "", false
	}
	if a != nil {
		if k.w.take(k.i, k.targets[k.i], a) {
			k.over = true
			return "", false
		}
		k.i++
	}
	for ; k.i < len(k.targets); k.i++ {
		target := k.targets[k.i]
		if name := RecordName(target); len(target) > MaxNameLen || len(name) <= MaxNameLen {
			return name, true
		}
		// The name cannot exist in the DNS: no record, nothing to ask,
		// and the walk goes on with the shorter names (§4.10); an
		// NXDOMAIN never ends it.
		nx := resolver.Answer{Outcome: resolver.NXDomain}
		k.w.tooLong = k.w.tooLong || k.i == 0
		k.w.take(k.i, target, &nx)
	}
	k.over = true
	return "", false
}

// Authorizations returns, once Next has returned false, the names of the
// TXT records Check asks to verify the selected record's aggregate-report
// destinations in other organizations by the Public Suffix List (RFC
// 9990 §3; see external): none before, when the walk was inconclusive or
// selected no record, and none when a destination is in the policy
// domain's organization by the PSL. Such a destination needs tree walks
// first, which Check does itself and which count against its question
// budget before the authorizations do: a caller that asked these ahead
// could ask one the budget then keeps Check from asking.
func (k *Walk) Authorizations() []string {
	if !k.over || k.w.inconclusive {
		return nil
	}
	sel := k.w.choose(k.domain)
	if !sel.ok {
		return nil
	}
	others, same := externalHosts(sel.domain, sel.rec.RUA)
	if len(same) > 0 {
		return nil
	}
	names := make([]string, len(others))
	for i, host := range others {
		names[i] = authorizationName(sel.domain, host)
	}
	return names
}

// foundAt is a target that held exactly one DMARC record.
type foundAt struct {
	name string
	rec  Record
}

// walk is what one DNS Tree Walk saw.
type walk struct {
	direct       resolver.Answer // the answer for the author domain
	directCount  int             // DMARC records at the author domain
	queries      int             // targets queried
	conflicting  bool            // a target had two or more records
	ignored      bool            // a TXT record looked like DMARC but was not
	missingSep   bool            // a TXT record began "v=DMARC1" with no ";" after it
	inconclusive bool            // the walk stopped on an inconclusive answer
	tooLong      bool            // the author domain's own _dmarc name cannot exist
	records      []foundAt       // targets with one record, in walk order
}

// run performs the DNS Tree Walk for policy discovery (RFC 9989
// §4.10, §4.10.1). It stops at a record for the author domain itself, at
// a single record with psd=y or psd=n, after the last label, or at the
// first inconclusive answer: from then on nothing can be decided.
//
// It asks what a Walk (Next) says, so the scan's questions asked ahead
// of Check are its own. Each answer is taken in take, not here: this
// frame, under which the lookups wait, holds little more than the answer.
func (w *walk) run(ctx context.Context, r resolver.Resolver, domain string) {
	k := Walk{domain: domain, targets: Targets(domain), w: w}
	for name, ok := k.Next(nil); ok; {
		a := r.Lookup(ctx, name, resolver.TypeTXT)
		w.queries++
		name, ok = k.Next(&a)
	}
}

// take takes the answer a for the walk's target number i, and reports
// whether the walk is over. Not inlined (see run).
//
//go:noinline
func (w *walk) take(i int, target string, a *resolver.Answer) bool {
	recs := w.filter(*a)
	if i == 0 {
		w.direct, w.directCount = *a, len(recs)
	}
	if a.Outcome == resolver.Inconclusive {
		w.inconclusive = true
		return true
	}
	if len(recs) > 1 {
		w.conflicting = true // all discarded (§4.10 steps 2 and 6)
	}
	if len(recs) != 1 {
		return false
	}
	rec, err := Parse(recs[0])
	if err != nil {
		return false // unreachable: Select kept only parseable records
	}
	w.records = append(w.records, foundAt{target, rec})
	return i == 0 || rec.PSD == PSDYes || rec.PSD == PSDNo
}

// filter returns the DMARC records of an answer and notes TXT records
// that mention the version but are not DMARC records.
func (w *walk) filter(a resolver.Answer) []string {
	txts := a.TXTs()
	recs := Select(txts)
	if len(recs) < len(txts) {
		for _, s := range txts {
			switch {
			case hasVersion(s):
			case missingSeparator(s):
				w.missingSep = true
			case looksLikeDMARC(s):
				w.ignored = true
			}
		}
	}
	return recs
}

// missingSeparator reports whether s begins with a version tag whose
// value is DMARC1 followed by whitespace and another tag instead of ";"
// ("v=DMARC1 p=reject"): a record whose author forgot the separator.
func missingSeparator(s string) bool {
	first, _, _ := strings.Cut(s, ";")
	name, value, ok := strings.Cut(first, "=")
	if !ok || (trimWSP(name) != "v" && trimWSP(name) != "V") {
		return false
	}
	rest, ok := strings.CutPrefix(strings.TrimLeft(value, " \t"), Version)
	return ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') && strings.Contains(rest, "=")
}

// looksLikeDMARC reports whether s contains "v=DMARC1" in any case and
// spacing (spaces and tabs anywhere in it), so that a misplaced or
// mistyped version tag can be reported. It reads s in place: a zone can
// publish hundreds of TXT strings at a _dmarc name, and each is asked.
// Only ASCII letters fold to the pattern's (no other character lowers to
// one of "vdmarc"), so comparing bytes ASCII-folded is the same as
// comparing the lower-cased text.
func looksLikeDMARC(s string) bool {
	const pattern = "v=dmarc1"
	for i := 0; i < len(s); i++ {
		if s[i]|0x20 != pattern[0] {
			continue
		}
		k := 1
		for j := i + 1; j < len(s) && k < len(pattern); j++ {
			c := s[j]
			if c == ' ' || c == '\t' {
				continue
			}
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != pattern[k] {
				break
			}
			k++
		}
		if k == len(pattern) {
			return true
		}
	}
	return false
}

// selection is the policy record chosen from a walk.
type selection struct {
	ok     bool
	domain string // where the record was found
	rec    Record
	psd    bool // the PSD's record, because the OD has none
	nearer bool // a record nearer to the author domain was passed over
}

// choose selects the policy record (RFC 9989 §4.10.1): the author
// domain's own record; else the Organizational Domain's; else the Public
// Suffix Domain's.
func (w walk) choose(domain string) selection {
	if len(w.records) == 0 {
		return selection{}
	}
	if first := w.records[0]; first.name == domain {
		return selection{ok: true, domain: domain, rec: first.rec}
	}
	od, psdAt := organizationalDomain(domain, w.records)
	for i, f := range w.records {
		if f.name == od {
			return selection{ok: true, domain: od, rec: f.rec, nearer: i > 0}
		}
	}
	if psdAt >= 0 {
		f := w.records[psdAt]
		return selection{ok: true, domain: f.name, rec: f.rec, psd: true, nearer: psdAt > 0}
	}
	return selection{}
}

// organizationalDomain applies RFC 9989 §4.10.2 to the records of a walk
// that did not find one at the author domain, longest name first: a
// psd=n record names the OD; else a psd=y record makes the name one
// label below it the OD (psdAt is then its index); else the record with
// the fewest labels does. The author domain's own query counts as the
// start of the walk (doc/rfc-notes.md §4.3), so a psd=y record at its parent
// makes the author domain the OD.
func organizationalDomain(domain string, recs []foundAt) (od string, psdAt int) {
	for _, f := range recs {
		if f.rec.PSD == PSDNo {
			return f.name, -1
		}
	}
	for i, f := range recs {
		if f.rec.PSD == PSDYes {
			return childOnPath(domain, f.name), i
		}
	}
	return recs[len(recs)-1].name, -1
}

// childOnPath returns the name one label below ancestor on the way to
// domain.
func childOnPath(domain, ancestor string) string {
	labels := strings.Split(domain, ".")
	n := len(strings.Split(ancestor, ".")) + 1
	if n > len(labels) {
		return domain
	}
	return strings.Join(labels[len(labels)-n:], ".")
}

// labelCount returns the number of labels of a canonical name.
func labelCount(name string) int { return strings.Count(name, ".") + 1 }
