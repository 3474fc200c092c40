// Package spf inspects a domain's Sender Policy Framework policy (RFC 7208).
//
// An SPF policy is a TXT record at a domain that lists which hosts may send
// mail using that domain in the envelope sender. Receivers evaluate it for
// every message, and the evaluation may cause at most ten DNS-causing terms
// (include, a, mx, ptr, exists, redirect) across the whole tree of included
// records; a policy that needs more fails for every message (permerror).
//
// [Parse] reads one record with the complete RFC 7208 grammar and says which
// term is wrong and why. [Select] keeps the SPF records among the TXT strings
// of a name. [Check] fetches the policy of a domain, expands every include
// and redirect (sibling subtrees concurrently, as soon as their names are
// known: a tree takes as many round trips as it is deep), and reports
// facts: how many SPF records the domain has, how many DNS-causing terms an evaluation for a
// client that matches nothing would use (counting past the limit, so users
// see the real number), whether the expansion was complete, void lookups,
// mx mechanisms with too many exchanges, loops, syntax errors and more, as
// stable finding codes. It never returns raw record text, target names or
// addresses.
//
// The count is static: it assumes a client address that matches nothing,
// so every term before `all` is evaluated. Terms after `all` are never
// evaluated and are not counted. `redirect` is counted only in a record
// without `all` (§5.1, §6.1). `exp` is not counted (it is fetched after the
// evaluation, §6.2). The address lookups of an mx mechanism are checked
// against their own limit of ten and are not counted (§4.6.4). Macros that
// only need the current domain (%{d}) or the sender domain (%{o}, taken to
// be the checked domain) are expanded; any other macro needs a message, so
// such a term counts one and is not expanded.
//
// Void lookups and the mx limit are measured as an evaluator for an IPv4
// client would meet them: `a` and `exists` ask for A records, `mx` asks for
// MX records and then for the A records of at most ten exchanges, and every
// NODATA or NXDOMAIN answer among these (and for include and redirect
// targets) is one void lookup, as mox and checkdmarc count them. Like an
// evaluator, only terms within the first [MaxLookups] counted terms are
// looked up. The mx limit counts MX records, not distinct exchanges: eleven
// records naming two hosts are over it (the OpenSPF suite's mx-limit).
//
// Check also finds policies that pass every client although they end in
// -all or ~all: a +include (at any depth) of a policy that passes
// everyone, a + ip4 or ip6 network or an a or mx mechanism with prefix
// length 0, and a +exists on a fixed name (no sender macro) that exists
// or on a client-dependent name that exists for a probe client no policy
// lists (192.0.2.1, RFC 5737), i.e. through a wildcard; that probe costs
// one A lookup outside the SPF count. Such a mechanism counts only when
// every include on the way to it is a +include: below a -, ~ or ?
// include it makes that include fail, soft-fail or be neutral for
// everyone instead. It locates problems without quoting the record: the
// position of the term with a syntax error ([Result.SyntaxTerm]) and, per
// include of the domain's own record, its cost and the first error behind
// it ([Result.Includes]).
//
// [Evaluate] is check_host() itself (RFC 7208 §4): for a client address,
// a MAIL FROM address and a HELO name it fetches the policy, evaluates its
// mechanisms in order with every macro letter of §7 (%{p} from validated
// reverse names, used only to build names to query), follows include and
// redirect, enforces the limits of §4.6.4 and returns the result (none,
// neutral, pass, fail, softfail, temperror, permerror) with its reason as
// an [EvalReason] code, the matched mechanism's kind and position, and the
// counts; never names, addresses or record text. It passes the OpenSPF
// RFC 7208 test suite (testdata/rfc7208-tests.yml).
//
// What this package does not do: Check does not evaluate for a client
// (Evaluate does) and does not query PTR records for `ptr` terms; neither
// fetches `exp` explanations; and neither judges: status, severity and
// texts belong to the caller.
//
// Limits: [MaxLookups] (10) DNS-causing terms and [MaxVoidLookups] (2) void
// lookups per evaluation and [MaxMXNames] (10) exchanges per mx mechanism
// (RFC 7208 §4.6.4); record size guidance [RecordSizeGuideline] and
// [MaxRecordSize] (§3.4). The expansion itself stops after
// [MaxExpandTerms] counted terms or [MaxDepth] nested records, whichever
// comes first; the result then says the count is a lower bound.
//
// # Shape
//
// Parse, Select, Check, Result and Codes, as in every protocol package of
// this module.
// [Parse] reads one record (pure; its errors wrap [ErrSyntax]), and
// [Select] picks the SPF records among a name's TXT strings.
// [Check] does the I/O through a [resolver.Resolver] and returns a
// [Result] of facts; a fact that could not be determined is nil or its
// enumeration's unknown value (see the resolver package doc), never
// absent. [Codes] lists the
// finding codes a Result may carry, in the order they are reported; the
// judgement (status, severity, wording) is the caller's.
package spf
