package spf

import "sort"

// Code is a stable finding code: a fact about a policy, in snake_case. It
// never carries record text, names or addresses.
type Code string

// Findings about the record set at the checked domain.
const (
	CodeNoRecord        Code = "no_record"               // no SPF record at the domain: result none (§4.5)
	CodeMultipleRecords Code = "multiple_records"        // more than one SPF record: permerror (§3.2, §4.5)
	CodeTXTInconclusive Code = "txt_lookup_inconclusive" // the TXT lookup at the domain failed: temperror (§4.4)
	CodeTypeSPFOnly     Code = "type_spf_only"           // only an obsolete RR type SPF (99) record exists, never consulted (§3.1, §14.1)
	CodeNearMiss        Code = "near_miss_version"       // a TXT record looks like SPF but its version tag is not "v=spf1" followed by a space or the end; ignored (§4.5)
	CodeRecordLong      Code = "record_over_450"         // the record is longer than 450 octets (§3.4)
	CodeRecordTooLong   Code = "record_over_512"         // the record is longer than 512 octets; the answer may not fit UDP (§3.4)
)

// Syntax findings: the record, or one reached through include or redirect,
// does not follow the RFC 7208 §4.6.1, §5, §6 and §7.1 grammar. Any of
// them is a permerror (§4.6), also after all. [SyntaxError.Code] holds one.
const (
	CodeSyntaxVersion           Code = "syntax_version"             // the text does not start with "v=spf1" followed by a space or the end (§4.5)
	CodeSyntaxCharacter         Code = "syntax_bad_character"       // a character other than a visible ASCII one or the space separator, e.g. a tab (§4.6.1, §12)
	CodeSyntaxUnknownMechanism  Code = "syntax_unknown_mechanism"   // a term that is neither a mechanism nor a modifier (§4.6.1)
	CodeSyntaxMissingDomain     Code = "syntax_missing_domain"      // include, exists, redirect, exp, "a:" or "mx:" without a domain-spec (§5, §6)
	CodeSyntaxDomainSpec        Code = "syntax_bad_domain_spec"     // a domain-spec that does not end with a macro or a valid top label (§7.1)
	CodeSyntaxMacro             Code = "syntax_bad_macro"           // an invalid macro: unknown letter, c/r/t outside exp text, zero digit, stray % (§7.1)
	CodeSyntaxIP4               Code = "syntax_bad_ip4"             // an ip4 network that is not a dotted quad without leading zeros (§5.6)
	CodeSyntaxIP6               Code = "syntax_bad_ip6"             // an ip6 network that is not an IPv6 address (§5.6)
	CodeSyntaxCIDR              Code = "syntax_bad_cidr"            // a CIDR length out of range or with a leading zero (§5.6)
	CodeSyntaxArgument          Code = "syntax_unexpected_argument" // an argument a mechanism does not take, e.g. "all:x", "ptr/24" (§5)
	CodeSyntaxDuplicateModifier Code = "syntax_duplicate_modifier"  // redirect or exp appears twice (§6)
	CodeSyntaxModifier          Code = "syntax_bad_modifier"        // a name=value term whose name is not a valid modifier name (§6)
)

// Findings about the expanded policy tree (the record and every record
// reached through include or redirect).
const (
	CodeIncludeNoRecord      Code = "include_no_record"          // an include target has no SPF record (or is not a valid domain): permerror (§5.2)
	CodeIncludeMultiple      Code = "include_multiple_records"   // an include target has several SPF records: permerror (§5.2, §4.5)
	CodeIncludeInvalid       Code = "include_invalid"            // an include target's record has a syntax error: permerror (§5.2)
	CodeIncludeInconclusive  Code = "include_inconclusive"       // an include target's TXT lookup failed: temperror; the count is a lower bound (§5.2)
	CodeRedirectNoRecord     Code = "redirect_no_record"         // the redirect target has no SPF record: permerror (§6.1)
	CodeRedirectMultiple     Code = "redirect_multiple_records"  // the redirect target has several SPF records: permerror (§6.1, §4.5)
	CodeRedirectInvalid      Code = "redirect_invalid"           // the redirect target's record has a syntax error: permerror (§6.1)
	CodeRedirectInconclusive Code = "redirect_inconclusive"      // the redirect target's TXT lookup failed: temperror; the count is a lower bound (§6.1)
	CodeLoop                 Code = "loop"                       // an include or redirect names a domain already being evaluated: endless, permerror (§4.6.4)
	CodeLookupLimitExceeded  Code = "lookup_limit_exceeded"      // more than MaxLookups DNS-causing terms: permerror (§4.6.4)
	CodeVoidLookup           Code = "void_lookup"                // a DNS-causing term returned no records (NODATA or NXDOMAIN) (§4.6.4)
	CodeVoidLimitExceeded    Code = "void_lookup_limit_exceeded" // more than MaxVoidLookups void lookups: permerror (§4.6.4)
	CodeMXTooMany            Code = "mx_over_10"                 // an mx mechanism's target has more than MaxMXNames MX records (duplicates of one host count): permerror (§4.6.4)
	CodeTermInconclusive     Code = "term_lookup_inconclusive"   // an a, mx or exists lookup failed: temperror; the void count is a lower bound (§4.4)
	CodeInvalidTargetName    Code = "invalid_target_name"        // a target name (after %{d}/%{o} expansion) is not a valid DNS name, e.g. an empty label: no match or permerror, evaluators differ (§4.3, §4.8)
	CodePTRUsed              Code = "ptr_used"                   // a ptr mechanism is used; it SHOULD NOT be (§5.5)
	CodePTRMacro             Code = "ptr_macro_used"             // a %{p} macro is used; it SHOULD NOT be (§7.2)
	CodeMacroUnexpandable    Code = "macro_unexpandable"         // a DNS-causing term needs sender data (a macro other than %{d} and %{o}); counted, not expanded (§7)
	CodeSafetyBound          Code = "safety_bound_reached"       // the expansion stopped at MaxExpandTerms or MaxDepth; the count is a lower bound
	CodeDeadTerms            Code = "terms_after_all"            // mechanisms after all are never evaluated (§5.1)
	CodeRedirectIgnored      Code = "redirect_ignored"           // a record has both all and redirect; redirect is ignored (§5.1, §6.1)
	CodeRedirectAtLimit      Code = "ignored_redirect_at_limit"  // exactly MaxLookups terms plus an ignored redirect: evaluators that count it reach 11, a permerror (§4.6.4)
	CodeUnknownModifier      Code = "unknown_modifier"           // an unknown modifier is present; it is ignored (§6)
	CodeNoAll                Code = "no_all"                     // the policy ends without all (after following redirect): neutral for unmatched senders (§4.7)
	CodeAllPass              Code = "all_pass"                   // the policy ends in +all: every host is authorized (§5.1)
	CodeAllNeutral           Code = "all_neutral"                // the policy ends in ?all: says nothing about unmatched hosts (§5.1)
	CodeIncludePassAll       Code = "include_passes_everyone"    // a +include (at any depth) of a policy that passes every client: every host is authorized (§5.2)
	CodeRangePassAll         Code = "range_covers_everyone"      // a + ip4/ip6 network or an a/mx mechanism with prefix length 0 matches every address of a family (§5.3, §5.4, §5.6)
	CodeExistsPassAll        Code = "exists_always_matches"      // a +exists on a fixed name that exists, or on a client-dependent name that exists for a probe client (a wildcard), matches every client (§5.7)
)

// codeOrder is the canonical order of Findings: the declaration order.
var codeOrder = []Code{
	CodeNoRecord, CodeMultipleRecords, CodeTXTInconclusive, CodeTypeSPFOnly, CodeNearMiss,
	CodeRecordLong, CodeRecordTooLong,
	CodeSyntaxVersion, CodeSyntaxCharacter, CodeSyntaxUnknownMechanism, CodeSyntaxMissingDomain,
	CodeSyntaxDomainSpec, CodeSyntaxMacro, CodeSyntaxIP4, CodeSyntaxIP6, CodeSyntaxCIDR,
	CodeSyntaxArgument, CodeSyntaxDuplicateModifier, CodeSyntaxModifier,
	CodeIncludeNoRecord, CodeIncludeMultiple, CodeIncludeInvalid, CodeIncludeInconclusive,
	CodeRedirectNoRecord, CodeRedirectMultiple, CodeRedirectInvalid, CodeRedirectInconclusive,
	CodeLoop, CodeLookupLimitExceeded, CodeVoidLookup, CodeVoidLimitExceeded, CodeMXTooMany,
	CodeTermInconclusive, CodeInvalidTargetName, CodePTRUsed, CodePTRMacro, CodeMacroUnexpandable, CodeSafetyBound,
	CodeDeadTerms, CodeRedirectIgnored, CodeRedirectAtLimit, CodeUnknownModifier, CodeNoAll, CodeAllPass, CodeAllNeutral,
	CodeIncludePassAll, CodeRangePassAll, CodeExistsPassAll,
}

var codeRank = func() map[Code]int {
	m := make(map[Code]int, len(codeOrder))
	for i, c := range codeOrder {
		m[c] = i
	}
	return m
}()

// Codes returns every finding code this package can report, in the
// canonical order Findings uses.
func Codes() []Code { return append([]Code(nil), codeOrder...) }

// ErrorClass is the RFC 7208 §2.6 error result an evaluation would end in.
type ErrorClass string

// Error classes.
const (
	ClassNone      ErrorClass = ""          // no error: the policy evaluates (or there is none)
	ClassPermError ErrorClass = "permerror" // the policy cannot be interpreted (§2.6.7)
	ClassTempError ErrorClass = "temperror" // a transient DNS error (§2.6.6)
)

// Class returns the error class a finding causes, ClassNone for findings
// that are warnings or information.
func (c Code) Class() ErrorClass {
	switch c {
	case CodeTXTInconclusive, CodeIncludeInconclusive, CodeRedirectInconclusive, CodeTermInconclusive:
		return ClassTempError
	case CodeMultipleRecords, CodeIncludeNoRecord, CodeIncludeMultiple, CodeIncludeInvalid,
		CodeRedirectNoRecord, CodeRedirectMultiple, CodeRedirectInvalid, CodeLoop,
		CodeLookupLimitExceeded, CodeVoidLimitExceeded, CodeMXTooMany:
		return ClassPermError
	}
	if c.isSyntax() {
		return ClassPermError
	}
	return ClassNone
}

func (c Code) isSyntax() bool {
	return len(c) > 7 && c[:7] == "syntax_"
}

// findings collects codes without duplicates and remembers the first
// error of each class in the order met.
type findings struct {
	set       map[Code]bool
	firstPerm Code
	firstTemp Code
	errs      []Code // every permerror or temperror finding, in the order met
}

// maxErrs bounds findings.errs; each counted term adds at most a few
// errors, so MaxExpandTerms terms stay well within it.
const maxErrs = 8 * MaxExpandTerms

// has reports whether c was collected.
func (f *findings) has(c Code) bool { return f.set[c] }

func (f *findings) add(c Code) {
	if f.set == nil {
		f.set = map[Code]bool{}
	}
	f.set[c] = true
	if c.Class() != ClassNone && len(f.errs) < maxErrs {
		f.errs = append(f.errs, c)
	}
	switch c.Class() {
	case ClassPermError:
		if f.firstPerm == "" {
			f.firstPerm = c
		}
	case ClassTempError:
		if f.firstTemp == "" {
			f.firstTemp = c
		}
	}
}

// list returns the codes in canonical order; nil when there are none.
func (f *findings) list() []Code {
	if len(f.set) == 0 {
		return nil
	}
	out := make([]Code, 0, len(f.set))
	for c := range f.set {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return codeRank[out[i]] < codeRank[out[j]] })
	return out
}

// class returns the error class of the collected findings and its cause:
// a permerror wins over a temperror, because retrying cannot fix it.
func (f *findings) class() (ErrorClass, Code) {
	switch {
	case f.firstPerm != "":
		return ClassPermError, f.firstPerm
	case f.firstTemp != "":
		return ClassTempError, f.firstTemp
	}
	return ClassNone, ""
}

// describe returns a short English description of a syntax code for
// SyntaxError messages (for programmers, never for output).
func (c Code) describe() string {
	switch c {
	case CodeSyntaxVersion:
		return "not an SPF record (version tag)"
	case CodeSyntaxCharacter:
		return "character not allowed"
	case CodeSyntaxUnknownMechanism:
		return "unknown mechanism"
	case CodeSyntaxMissingDomain:
		return "missing domain-spec"
	case CodeSyntaxDomainSpec:
		return "invalid domain-spec"
	case CodeSyntaxMacro:
		return "invalid macro"
	case CodeSyntaxIP4:
		return "invalid ip4 network"
	case CodeSyntaxIP6:
		return "invalid ip6 network"
	case CodeSyntaxCIDR:
		return "invalid CIDR length"
	case CodeSyntaxArgument:
		return "unexpected argument"
	case CodeSyntaxDuplicateModifier:
		return "duplicate modifier"
	case CodeSyntaxModifier:
		return "invalid modifier name"
	}
	return string(c)
}
