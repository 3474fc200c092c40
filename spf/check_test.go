package spf

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

const zoneFile = "testdata/spf.zone"

// fault is one fault injected for a test case.
type fault = dnstest.FaultAt

// question is a DNS question a case asserts was never asked.
type question struct {
	name  string
	qtype resolver.Type
}

// policy is the Result for a domain with one SPF record of n octets whose
// tree was expanded completely, counting count DNS-causing terms, and
// whose all qualifier (and effective one) is all.
func policy(n, count int, all Qualifier) Result {
	return Result{
		Outcome: resolver.Found, RecordCount: new(1),
		LookupCount: new(count), LookupLimit: MaxLookups, LookupComplete: true,
		All: all, EffectiveAll: all, RecordLength: n,
	}
}

// broken is the Result for a domain whose one record of n octets fails to
// parse with code: no count.
func broken(n int, code Code) Result {
	return Result{
		Outcome: resolver.Found, RecordCount: new(1), LookupLimit: MaxLookups,
		RecordLength: n, Error: ClassPermError, ErrorCause: code, Findings: []Code{code},
	}
}

// none is the Result for a domain without an SPF record.
func none(o resolver.Outcome, codes ...Code) Result {
	return Result{Outcome: o, RecordCount: new(0), LookupLimit: MaxLookups, Findings: codes}
}

// with returns r changed by f, to keep table rows short.
func with(r Result, f func(*Result)) Result {
	f(&r)
	return r
}

func perm(r *Result, cause Code, codes ...Code) {
	r.Error, r.ErrorCause, r.Findings = ClassPermError, cause, codes
}

func temp(r *Result, cause Code, codes ...Code) {
	r.Error, r.ErrorCause, r.Findings = ClassTempError, cause, codes
}

type checkCase struct {
	name   string // the scenario label under spf.test
	faults []fault
	never  []question
	want   Result
}

// checkCases are the zone scenarios. Every count is explained term by term
// ("#n" refers to the table in doc/rfc-notes.md §3.5). Terms in
// parentheses are the running count.
var checkCases = []checkCase{
	// --- record selection and the outcome matrix ---
	// #1: "-all" only; nothing counts.
	{name: "minimal", want: policy(11, 0, "-")},
	// found/valid: ip4, ip6 and all do not count; the verification TXT is ignored.
	{name: "pass", want: policy(46, 0, "-")},
	// #2: the strings are joined without a separator: "…100.1 -all"; 0.
	{name: "split-strings", want: policy(28, 0, "-")},
	// #3: joined "…100.1-all" is a bad ip4: no count.
	{name: "split-no-space", want: broken(27, CodeSyntaxIP4)},
	// #4: two SPF records: permerror, nothing expanded.
	{name: "multiple", want: Result{
		Outcome: resolver.Found, RecordCount: new(2), LookupLimit: MaxLookups,
		Error: ClassPermError, ErrorCause: CodeMultipleRecords, Findings: []Code{CodeMultipleRecords},
	}},
	// #5: "V=SPF1 MX -ALL": MX (1), its exchange has an A record.
	{name: "upper", want: policy(14, 1, "-")},
	// #6: a leading space or "v=spf10" is not SPF: none.
	{name: "leading-space", want: none(resolver.Found, CodeNoRecord, CodeNearMiss)},
	{name: "spf10", want: none(resolver.Found, CodeNoRecord, CodeNearMiss)},
	// #28: a tab right after the version does not end it (§4.5): not SPF.
	{name: "tab", want: none(resolver.Found, CodeNoRecord, CodeNearMiss)},
	// #28: a tab between terms is a syntax error.
	{name: "tab-inside", want: broken(14, CodeSyntaxCharacter)},
	// #29: only an RR of type SPF (99): none, reported.
	{name: "type99", want: none(resolver.NoData, CodeNoRecord, CodeTypeSPFOnly)},
	// NODATA: the name has only an A record.
	{name: "nodata", want: none(resolver.NoData, CodeNoRecord)},
	// NXDOMAIN: the label is not in the zone; type 99 is not asked.
	{name: "nxdomain", want: none(resolver.NXDomain, CodeNoRecord),
		never: []question{{"nxdomain.spf.test", resolver.TypeSPF}}},
	{name: "servfail", faults: []fault{{Name: "servfail.spf.test", Type: resolver.TypeTXT, Fault: dnstest.ServFail}}, want: Result{
		Outcome: resolver.Inconclusive, Reason: resolver.ReasonServFail, LookupLimit: MaxLookups,
		Error: ClassTempError, ErrorCause: CodeTXTInconclusive, Findings: []Code{CodeTXTInconclusive},
	}},
	{name: "timeout", faults: []fault{{Name: "timeout.spf.test", Type: resolver.TypeTXT, Fault: dnstest.Drop}}, want: Result{
		Outcome: resolver.Inconclusive, Reason: resolver.ReasonTimeout, LookupLimit: MaxLookups,
		Error: ClassTempError, ErrorCause: CodeTXTInconclusive, Findings: []Code{CodeTXTInconclusive},
	}},
	// In memory a truncated reply is the full answer (TCP is covered in server_test.go).
	{name: "truncated", faults: []fault{{Name: "truncated.spf.test", Type: resolver.TypeTXT, Fault: dnstest.Truncate}}, want: policy(11, 0, "-")},
	// 25 ip4 terms: 452 octets, 0 lookups.
	{name: "record-long", want: with(policy(452, 0, "-"), func(r *Result) { r.Findings = []Code{CodeRecordLong} })},
	// 29 ip4 terms: 524 octets, 0 lookups.
	{name: "record-too-long", want: with(policy(524, 0, "-"), func(r *Result) { r.Findings = []Code{CodeRecordTooLong} })},

	// --- syntax ---
	// #13: redirect twice.
	{name: "dup-redirect", want: broken(48, CodeSyntaxDuplicateModifier)},
	// #17: ip4 /33 and ip6 /129.
	{name: "bad-cidr", want: broken(28, CodeSyntaxCIDR)},
	{name: "bad-ip6-cidr", want: broken(30, CodeSyntaxCIDR)},
	// ip4 /0 and /32, ip6 /0 and /128 are valid; none counts. The /0
	// networks pass every client.
	{name: "cidr-edges", want: with(policy(71, 0, "-"), func(r *Result) { r.Findings = []Code{CodeRangePassAll} })},
	// #18: a/24//64 (1, A found) mx:mxhost.ext.test/28 (2, exchange A found).
	{name: "dual-cidr", want: policy(42, 2, "-")},
	// #19: an unknown modifier is kept and ignored; 0.
	{name: "unknown-modifier", want: with(policy(19, 0, "-"), func(r *Result) { r.Findings = []Code{CodeUnknownModifier} })},
	{name: "unknown-mechanism", want: broken(15, CodeSyntaxUnknownMechanism)},
	{name: "include-bare", want: broken(19, CodeSyntaxMissingDomain)},
	// #21: %{x} is not a macro letter.
	{name: "bad-macro", want: broken(36, CodeSyntaxMacro)},
	// #27: syntax after all is still checked.
	{name: "garbage-after-all", want: broken(20, CodeSyntaxUnknownMechanism)},

	// --- policy shape ---
	// #9: include after -all is dead: 0, and x.ext.test is never asked.
	{name: "dead-after-all", never: []question{{"x.ext.test", dnstest.AnyType}},
		want: with(policy(30, 0, "-"), func(r *Result) { r.Findings = []Code{CodeDeadTerms} })},
	// #10: include:t1 (1); redirect ignored because of ~all: not counted, not fetched.
	{name: "redirect-with-all", never: []question{{"b.ext.test", dnstest.AnyType}},
		want: with(policy(51, 1, "~"), func(r *Result) {
			r.HasRedirect, r.Findings = true, []Code{CodeRedirectIgnored}
		})},
	// #11: redirect=_spf.ext.test (1) → include:x.ext.test (2) → -all.
	{name: "redirect-chain", want: with(policy(29, 2, ""), func(r *Result) {
		r.HasRedirect, r.EffectiveAll = true, "-"
	})},
	// redirect (1) to a +all record: the effective all is +.
	{name: "redirect-plus-all", want: with(policy(32, 1, ""), func(r *Result) {
		r.HasRedirect, r.EffectiveAll, r.Findings = true, "+", []Code{CodeAllPass}
	})},
	// #22: exp is not counted and not fetched; 0.
	{name: "exp", never: []question{{"why.ext.test", dnstest.AnyType}}, want: policy(28, 0, "-")},
	// #24: ptr (1), deprecated, not looked up.
	{name: "ptr", want: with(policy(15, 1, "-"), func(r *Result) { r.PTRTerms, r.Findings = 1, []Code{CodePTRUsed} })},
	// #25: "v=spf1": 0, neutral default.
	{name: "empty", want: with(policy(6, 0, ""), func(r *Result) { r.Findings = []Code{CodeNoAll} })},
	// #26
	{name: "plus-all", want: with(policy(11, 0, "+"), func(r *Result) { r.Findings = []Code{CodeAllPass} })},
	{name: "neutral-all", want: with(policy(11, 0, "?"), func(r *Result) { r.Findings = []Code{CodeAllNeutral} })},

	// --- includes, counts and bounds ---
	// include:t1 (1) → -all.
	{name: "include-one", want: policy(31, 1, "-")},
	// #8: include:a.nest (1) → include:b.nest (2) → mx (3).
	{name: "nested-3", want: policy(35, 3, "-")},
	// include:t1 … include:t10 (10): at the limit, not over.
	{name: "includes-10", want: policy(212, 10, "-")},
	// #7: include:t1 … include:t11 (11): over the limit.
	{name: "includes-11", want: with(policy(233, 11, "-"), func(r *Result) {
		perm(r, CodeLookupLimitExceeded, CodeLookupLimitExceeded)
	})},
	// include:w1 (1) → 4× include:leaf (5); w2 (6) → (10); w3 (11) → (15).
	{name: "count-15", want: with(policy(74, 15, "-"), func(r *Result) {
		perm(r, CodeLookupLimitExceeded, CodeLookupLimitExceeded)
	})},
	// the same target twice is evaluated twice: (1) (2); not a loop.
	{name: "diamond", want: policy(51, 2, "-")},
	// include:alias.inc.test (1), a CNAME to t1: followed by resolution.
	{name: "cname-include", want: policy(34, 1, "-")},
	// c1 (1) → c2 (2) … c10 at depth 10 (10) → c11 (11) is counted but
	// not expanded: depth bound; the count is a lower bound.
	{name: "deep-chain", want: with(policy(33, 11, "-"), func(r *Result) {
		r.LookupComplete = false
		perm(r, CodeLookupLimitExceeded, CodeLookupLimitExceeded, CodeSafetyBound)
	})},
	// b1 (1) + 10 leaves (11), b2 (12) → (22), b3 (23) → (33), b4 (34) →
	// leaves (35)…(40); the 41st term stops the expansion at MaxExpandTerms.
	{name: "safety-bound", want: with(policy(116, 40, "-"), func(r *Result) {
		r.LookupComplete, r.EffectiveAll = false, ""
		perm(r, CodeLookupLimitExceeded, CodeLookupLimitExceeded, CodeSafetyBound)
	})},
	// #12: include (1) of a name whose TXT is not SPF: none → permerror.
	{name: "include-nospf", want: with(policy(34, 1, "-"), func(r *Result) {
		perm(r, CodeIncludeNoRecord, CodeIncludeNoRecord)
	})},
	// include (1) of an NXDOMAIN name: none → permerror, and a void lookup.
	{name: "include-nxdomain", want: with(policy(36, 1, "-"), func(r *Result) {
		r.VoidLookups = 1
		perm(r, CodeIncludeNoRecord, CodeIncludeNoRecord, CodeVoidLookup)
	})},
	// include (1) of a name with two SPF records.
	{name: "include-multiple", want: with(policy(34, 1, "-"), func(r *Result) {
		perm(r, CodeIncludeMultiple, CodeIncludeMultiple)
	})},
	// include (1) of a record with a bad ip4.
	{name: "include-invalid", want: with(policy(36, 1, "-"), func(r *Result) {
		perm(r, CodeIncludeInvalid, CodeSyntaxIP4, CodeIncludeInvalid)
	})},
	// #30: include (1) whose target answers SERVFAIL: lower bound.
	{name: "include-servfail", faults: []fault{{Name: "sf.inc.test", Type: resolver.TypeTXT, Fault: dnstest.ServFail}},
		want: with(policy(31, 1, "-"), func(r *Result) {
			r.LookupComplete = false
			temp(r, CodeIncludeInconclusive, CodeIncludeInconclusive)
		})},
	// include (1) whose target times out: lower bound.
	{name: "include-timeout", faults: []fault{{Name: "slow.inc.test", Type: resolver.TypeTXT, Fault: dnstest.Drop}},
		want: with(policy(33, 1, "-"), func(r *Result) {
			r.LookupComplete = false
			temp(r, CodeIncludeInconclusive, CodeIncludeInconclusive)
		})},
	// redirect (1) to a name without SPF: permerror; no all applies.
	{name: "redirect-nospf", want: with(policy(30, 1, ""), func(r *Result) {
		r.HasRedirect = true
		perm(r, CodeRedirectNoRecord, CodeRedirectNoRecord)
	})},
	// redirect (1) whose target answers SERVFAIL.
	{name: "redirect-servfail", faults: []fault{{Name: "sf.inc.test", Type: resolver.TypeTXT, Fault: dnstest.ServFail}},
		want: with(policy(27, 1, ""), func(r *Result) {
			r.HasRedirect, r.LookupComplete = true, false
			temp(r, CodeRedirectInconclusive, CodeRedirectInconclusive)
		})},
	// #23: include of itself (1): loop, endless for an evaluator.
	{name: "self-include", want: with(policy(41, 1, "-"), func(r *Result) {
		r.LookupComplete = false
		perm(r, CodeLoop, CodeLoop)
	})},
	// include:loop-b.ext.test (1) → include:include-loop.spf.test (2): loop.
	{name: "include-loop", want: with(policy(35, 2, "-"), func(r *Result) {
		r.LookupComplete = false
		perm(r, CodeLoop, CodeLoop)
	})},
	// redirect to itself (1).
	{name: "redirect-loop", want: with(policy(38, 1, ""), func(r *Result) {
		r.HasRedirect, r.LookupComplete = true, false
		perm(r, CodeLoop, CodeLoop)
	})},
	// include:%{d} (1) expands to the domain itself: loop.
	{name: "macro-loop", want: with(policy(24, 1, "-"), func(r *Result) {
		r.LookupComplete = false
		perm(r, CodeLoop, CodeLoop)
	})},

	// --- macros ---
	// #20: include:%{l}… (1) needs the sender: counted, not expanded.
	{name: "include-macro", want: with(policy(35, 1, "-"), func(r *Result) {
		r.LookupComplete, r.MacroTerms, r.Findings = false, 1, []Code{CodeMacroUnexpandable}
	})},
	// exists:%{i}… (1) needs the client address: counted; the chain is
	// still complete (no include or redirect target needed it).
	{name: "exists-macro", want: with(policy(33, 1, "-"), func(r *Result) {
		r.MacroTerms, r.Findings = 1, []Code{CodeMacroUnexpandable}
	})},
	// exists:%{d}.ex.ext.test (1) expands; its A lookup is NXDOMAIN: 1 void.
	{name: "exists-d", want: with(policy(35, 1, "-"), func(r *Result) {
		r.VoidLookups, r.Findings = 1, []Code{CodeVoidLookup}
	})},
	// include:_spf.%{d} (1) → _spf.include-d-macro.spf.test: a (2), A found.
	{name: "include-d-macro", want: policy(29, 2, "-")},
	// exists:%{p}… (1): sender data and the discouraged %{p}.
	{name: "ptr-macro", want: with(policy(34, 1, "-"), func(r *Result) {
		r.MacroTerms, r.Findings = 1, []Code{CodePTRMacro, CodeMacroUnexpandable}
	})},

	// --- a, mx, exists lookups: void lookups and the mx limit ---
	// a:g1 (1) a:g2 (2): both NXDOMAIN, 2 voids, at the limit.
	{name: "void-2", want: with(policy(39, 2, "-"), func(r *Result) {
		r.VoidLookups, r.Findings = 2, []Code{CodeVoidLookup}
	})},
	// #14: a:g1 (1) a:g2 (2) a:g3 (3): 3 voids, over the limit.
	{name: "void-3", want: with(policy(53, 3, "-"), func(r *Result) {
		r.VoidLookups = 3
		perm(r, CodeVoidLimitExceeded, CodeVoidLookup, CodeVoidLimitExceeded)
	})},
	// 10 includes (10), then a:g1 (11) a:g2 (12) a:g3 (13): past the limit an
	// evaluator has stopped, so they are counted but not looked up: 0 voids.
	{name: "void-after-limit", never: []question{{"g1.ext.test", dnstest.AnyType}},
		want: with(policy(254, 13, "-"), func(r *Result) {
			perm(r, CodeLookupLimitExceeded, CodeLookupLimitExceeded)
		})},
	// mx:voidmx.ext.test (1): three exchanges without addresses: 3 voids.
	{name: "void-mx-exchanges", want: with(policy(30, 1, "-"), func(r *Result) {
		r.VoidLookups = 3
		perm(r, CodeVoidLimitExceeded, CodeVoidLookup, CodeVoidLimitExceeded)
	})},
	// #15: mx (1) with 11 exchanges: an 11th address lookup → permerror.
	{name: "mx-11", want: with(policy(14, 1, "-"), func(r *Result) {
		perm(r, CodeMXTooMany, CodeMXTooMany)
	})},
	// #16: mx:relay.ext.test (1): no MX (NODATA) and no A fallback: 1 void.
	{name: "mx-no-mx", want: with(policy(29, 1, "-"), func(r *Result) {
		r.VoidLookups, r.Findings = 1, []Code{CodeVoidLookup}
	})},
	// mx (1) of a null MX: no exchange to look up, not void.
	{name: "mx-null", want: policy(30, 1, "-")},
	// a (1) of a name with only AAAA: void for an IPv4 client.
	{name: "a-aaaa-only", want: with(policy(13, 1, "-"), func(r *Result) {
		r.VoidLookups, r.Findings = 1, []Code{CodeVoidLookup}
	})},
	// a:sf.ext.test (1) answers SERVFAIL: temperror; the count is complete.
	{name: "a-servfail", faults: []fault{{Name: "sf.ext.test", Type: resolver.TypeA, Fault: dnstest.ServFail}},
		want: with(policy(25, 1, "-"), func(r *Result) {
			temp(r, CodeTermInconclusive, CodeTermInconclusive)
		})},
	// exists:ok.ext.test (1): A found, and the name does not depend on
	// the client, so every client matches (#1a).
	{name: "exists-found", want: with(policy(30, 1, "-"), func(r *Result) { r.Findings = []Code{CodeExistsPassAll} })},

	// --- policies that pass every client ---
	// include (1) of "v=spf1 +all": every client passes the include.
	{name: "include-plus-all", want: with(policy(36, 1, "-"), func(r *Result) { r.Findings = []Code{CodeIncludePassAll} })},
	// include:pa1 (1) → include:plusall (2) → +all: at any depth.
	{name: "include-deep-plus-all", want: with(policy(32, 2, "-"), func(r *Result) { r.Findings = []Code{CodeIncludePassAll} })},
	// include (1) of a record whose ip4 and ip6 networks are /0.
	{name: "include-open-ranges", want: with(policy(33, 1, "-"), func(r *Result) {
		r.Findings = []Code{CodeIncludePassAll, CodeRangePassAll}
	})},
	// ~include (1) of +all: every client soft-fails, nobody is authorized.
	{name: "softfail-include-plus-all", want: policy(37, 1, "-")},
	// ~include (1) of a record of /0 networks: every client soft-fails;
	// the networks pass everyone only within that record.
	{name: "softfail-include-open-ranges", want: policy(34, 1, "-")},
	// -include (1) of a record that includes (2) +all: every client
	// fails; the +include further down passes everyone only there.
	{name: "fail-include-deep-plus-all", want: policy(33, 2, "~")},
	// a:ok.ext.test/0 (1): the name has an address, /0 covers all IPv4.
	{name: "a-zero", want: with(policy(27, 1, "-"), func(r *Result) { r.Findings = []Code{CodeRangePassAll} })},
	// ~exists (1) on an existing name: everyone soft-fails, nobody passes.
	{name: "exists-softfail", want: policy(31, 1, "-")},
	// exists:%{ir}… (1) needs the client; a wildcard answers for the
	// probe client too, so every client matches.
	{name: "exists-wildcard", want: with(policy(43, 1, "-"), func(r *Result) {
		r.MacroTerms, r.Findings = 1, []Code{CodeMacroUnexpandable, CodeExistsPassAll}
	})},
	// the same with a list of clients: the probe is not on it.
	{name: "exists-listed", want: with(policy(43, 1, "-"), func(r *Result) {
		r.MacroTerms, r.Findings = 1, []Code{CodeMacroUnexpandable}
	})},
	// exists:%{s}… : the probe sender has an "@", a legal octet in a DNS
	// label; the wildcard answers for it, so every client matches.
	{name: "exists-sender", want: with(policy(42, 1, "-"), func(r *Result) {
		r.MacroTerms, r.Findings = 1, []Code{CodeMacroUnexpandable, CodeExistsPassAll}
	})},
	// a /0 network after -all is never evaluated.
	{name: "ranges-after-all", want: with(policy(25, 0, "-"), func(r *Result) { r.Findings = []Code{CodeDeadTerms} })},

	// --- #1b: mx:e4.ext.test (1) has 11 MX records naming 2 hosts:
	// over the limit (OpenSPF mx-limit: permerror).
	{name: "mx-records-11", want: with(policy(26, 1, "-"), func(r *Result) {
		perm(r, CodeMXTooMany, CodeMXTooMany)
	})},

	// --- #1c: include:t1 … include:t10 (10) -all redirect=…: the
	// redirect is ignored, but evaluators that count it reach 11.
	{name: "redirect-at-limit", never: []question{{"t11.inc.test", dnstest.AnyType}},
		want: with(policy(234, 10, "-"), func(r *Result) {
			r.HasRedirect, r.Findings = true, []Code{CodeRedirectIgnored, CodeRedirectAtLimit}
		})},
	// include:t1 (1) -all redirect=…: far from the limit, no warning.
	{name: "redirect-below-limit", want: with(policy(53, 1, "-"), func(r *Result) {
		r.HasRedirect, r.Findings = true, []Code{CodeRedirectIgnored}
	})},

	// --- #1d: target names that are not DNS names; nothing is asked.
	// a:foo..ext.test (1): an empty label.
	{name: "a-empty-label", never: []question{{"foo..ext.test", dnstest.AnyType}},
		want: with(policy(27, 1, "-"), func(r *Result) { r.Findings = []Code{CodeInvalidTargetName} })},
	// a:<64-octet label>.ext.test (1).
	{name: "a-long-label", want: with(policy(87, 1, "-"), func(r *Result) { r.Findings = []Code{CodeInvalidTargetName} })},
	// a:my%_host.ext.test (1): "my host" is a DNS name (any octet in a
	// label, RFC 2181 §11), asked escaped and found: no warning, no void.
	{name: "a-space-macro", want: policy(31, 1, "-")},
	// include:foo..inc.test (1): none, so permerror (§5.2).
	{name: "include-empty-label", want: with(policy(33, 1, "-"), func(r *Result) {
		perm(r, CodeIncludeNoRecord, CodeIncludeNoRecord, CodeInvalidTargetName)
	})},
}

func loadZones(tb testing.TB) *dnstest.Zones {
	tb.Helper()
	return dnstest.MustLoad(tb, zoneFile)
}

// run checks tc's domain through r and reports a Result other than tc.want.
func (tc checkCase) run(t *testing.T, r resolver.Resolver) {
	t.Helper()
	got := Check(t.Context(), r, tc.name+".spf.test")
	want := tc.want
	want.Includes, want.SyntaxTerm = wantIncludes[tc.name], wantSyntaxTerm[tc.name]
	require.Equal(t, want, got, "Check(%s)", tc.name)
}

// TestCheck runs every scenario over a Resolver that only looks up
// (the walk's term lookups wait on its goroutines) and through a
// per-scan resolver, a [resolver.Starter] (they wait on none: each
// answer starts what follows it); the results are the same.
func TestCheck(t *testing.T) {
	t.Parallel()
	z := loadZones(t)
	require.GreaterOrEqual(t, len(checkCases), 40, "scenarios, want at least 40")
	for _, tc := range checkCases {
		for _, starter := range []bool{false, true} {
			name := tc.name
			if starter {
				name += "/starter"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				r := dnstest.NewResolver(z)
				r.Apply(tc.faults...)
				var via resolver.Resolver = r
				if starter {
					via = resolver.NewScan(r, 0)
				}
				tc.run(t, via)
				for _, q := range tc.never {
					assert.Equal(t, 0, r.Count(q.name, q.qtype), "%s %s was asked, want never", q.name, q.qtype)
				}
			})
		}
	}
}

// TestScenarioLabels keeps the table and the zone in step: every scenario
// label but the NXDOMAIN one exists in the zone.
func TestScenarioLabels(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for _, n := range loadZones(t).Names() {
		names[n] = true
	}
	for _, tc := range checkCases {
		assert.Equal(t, tc.name != "nxdomain", names[tc.name+".spf.test"], "scenario %s: label present", tc.name)
	}
}

// TestCheckSiblingsConcurrent proves sibling includes are fetched
// concurrently: ten targets each delayed 100 ms take far less than 1 s.
func TestCheckSiblingsConcurrent(t *testing.T) {
	t.Parallel()
	r := dnstest.NewResolver(loadZones(t))
	const delay = 100 * time.Millisecond
	for i := 1; i <= 10; i++ {
		r.SetFault(fmt.Sprintf("t%d.inc.test", i), resolver.TypeTXT, dnstest.Delay(delay))
	}
	start := time.Now()
	got := Check(t.Context(), r, "includes-10.spf.test")
	elapsed := time.Since(start)
	want := policy(212, 10, "-")
	want.Includes = wantIncludes["includes-10"]
	require.Equal(t, want, got, "Check")
	require.Less(t, elapsed, 5*delay, "took %v: sibling includes were not fetched concurrently", elapsed)
}

// TestCheckCanceled: a canceled context makes the lookup inconclusive,
// never absent.
func TestCheckCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	got := Check(ctx, dnstest.NewResolver(loadZones(t)), "minimal.spf.test")
	want := Result{
		Outcome: resolver.Inconclusive, Reason: resolver.ReasonCanceled, LookupLimit: MaxLookups,
		Error: ClassTempError, ErrorCause: CodeTXTInconclusive, Findings: []Code{CodeTXTInconclusive},
	}
	require.Equal(t, want, got, "Check")
}

// TestCheckThroughScan: through a per-scan resolver, the diamond's second
// include reaches the wire once, and the result does not change.
func TestCheckThroughScan(t *testing.T) {
	t.Parallel()
	mem := dnstest.NewResolver(loadZones(t))
	scan := resolver.NewScan(mem, 0)
	got := Check(t.Context(), scan, "diamond.spf.test")
	want := policy(51, 2, "-")
	want.Includes = wantIncludes["diamond"]
	require.Equal(t, want, got, "Check")
	require.Equal(t, 1, mem.Count("t1.inc.test", resolver.TypeTXT), "t1.inc.test TXT asked below the Scan, want once")
}

// TestFindingsCanonical checks the finding bookkeeping: canonical order,
// no duplicates, and that every code has an error class.
func TestFindingsCanonical(t *testing.T) {
	t.Parallel()
	var f findings
	for _, c := range []Code{CodeNoAll, CodeLoop, CodeVoidLookup, CodeLoop, CodeIncludeInconclusive} {
		f.add(c)
	}
	want := []Code{CodeIncludeInconclusive, CodeLoop, CodeVoidLookup, CodeNoAll}
	require.Equal(t, want, f.list(), "list")
	class, cause := f.class()
	require.Equal(t, ClassPermError, class, "class = %s %s, want permerror loop", class, cause)
	require.Equal(t, CodeLoop, cause, "class = %s %s, want permerror loop", class, cause)
	seen := map[Code]bool{}
	for _, c := range Codes() {
		assert.False(t, seen[c], "code %s listed twice", c)
		seen[c] = true
		if c.isSyntax() {
			assert.Equal(t, ClassPermError, c.Class(), "syntax code %s is not a permerror", c)
		}
	}
}

// wantIncludes are the Result.Includes of the scenarios whose record has
// includes: what each costs and the first error met behind it.
var wantIncludes = map[string][]Include{
	"cname-include":                {{1, ""}},
	"count-15":                     {{5, ""}, {5, ""}, {5, ""}},
	"deep-chain":                   {{11, ""}},
	"diamond":                      {{1, ""}, {1, ""}},
	"include-d-macro":              {{2, ""}},
	"include-deep-plus-all":        {{2, CodeIncludePassAll}},
	"include-empty-label":          {{1, CodeIncludeNoRecord}},
	"include-invalid":              {{1, CodeIncludeInvalid}},
	"include-loop":                 {{2, CodeLoop}},
	"include-macro":                {{1, ""}},
	"include-multiple":             {{1, CodeIncludeMultiple}},
	"include-nospf":                {{1, CodeIncludeNoRecord}},
	"include-nxdomain":             {{1, CodeIncludeNoRecord}},
	"include-one":                  {{1, ""}},
	"include-open-ranges":          {{1, CodeIncludePassAll}},
	"include-plus-all":             {{1, CodeIncludePassAll}},
	"include-servfail":             {{1, CodeIncludeInconclusive}},
	"include-timeout":              {{1, CodeIncludeInconclusive}},
	"includes-10":                  {{1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}},
	"includes-11":                  {{1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}},
	"macro-loop":                   {{1, CodeLoop}},
	"nested-3":                     {{3, ""}},
	"redirect-at-limit":            {{1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}},
	"redirect-below-limit":         {{1, ""}},
	"redirect-with-all":            {{1, ""}},
	"safety-bound":                 {{11, ""}, {11, ""}, {11, ""}, {7, ""}},
	"self-include":                 {{1, CodeLoop}},
	"softfail-include-plus-all":    {{1, ""}},
	"softfail-include-open-ranges": {{1, ""}},
	"fail-include-deep-plus-all":   {{2, ""}},
	"void-after-limit":             {{1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}, {1, ""}},
}

// wantSyntaxTerm is the Result.SyntaxTerm of the scenarios whose record
// does not parse: the position of the bad term after v=spf1.
var wantSyntaxTerm = map[string]int{
	"bad-cidr":          1,
	"bad-ip6-cidr":      1,
	"bad-macro":         1,
	"dup-redirect":      2,
	"garbage-after-all": 2,
	"include-bare":      1,
	"split-no-space":    1,
	"tab-inside":        1,
	"unknown-mechanism": 1,
}
