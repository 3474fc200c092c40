// Package resolver is the DNS layer every mailauth check is built on
// (RFC 1034, RFC 1035).
//
// A lookup never fails with a Go error: it returns an [Answer] whose
// [Outcome] says what the DNS said. Found means records of the asked type
// were returned; NoData means the name exists without records of that type
// (RFC 2308); NXDomain means the name does not exist (RFC 8020);
// Inconclusive means nothing can be concluded (SERVFAIL, REFUSED, timeout,
// a failed TCP retry, a CNAME loop, a malformed reply or an exhausted query
// budget), and [Answer.Reason] says which. Only NoData and NXDomain may ever
// be reported as "absent"; an inconclusive lookup is never turned into one.
//
// The package offers one interface, [Resolver], with one method, so fakes
// stay trivial; [Client], the production implementation on top of
// github.com/miekg/dns; and [Scan], a per-scan decorator that shares
// identical questions, caches answers for the life of a scan, counts them
// and enforces a query budget.
//
// Names are plain ASCII strings (A-labels). They are compared
// case-insensitively (RFC 4343) and a trailing dot is optional: every name
// returned in an Answer is lower-case without the trailing dot.
//
// What this package does not do: DNSSEC validation (the AD bit of the
// recursive resolver is reported as is), IDNA mapping of user input (the
// root package does that), iterative resolution from the root (it asks
// recursive resolvers), or any caching across scans.
//
// Limits: one attempt lasts at most [DefaultTimeout] unless configured, a
// question gets [DefaultAttempts] attempts, [DefaultUDPSize] is the EDNS0
// buffer advertised, at most [MaxCNAMEChain] aliases are followed per
// question (RFC 1034 §3.6.2), and a [Scan] sends at most [DefaultBudget]
// distinct questions unless given another budget.
//
// # Unknown facts
//
// Every protocol package of this module reports what it found as a Result
// of facts, and says "unknown" the same way (the API's null): a count or a
// flag that may be unknown is a pointer, nil when unknown, because the
// lookup that decides it was inconclusive or the step that would produce
// it did not happen (no policy was fetched, no forward lookup completed,
// the records disagree). A fact that was looked up and is absent is 0 or
// false, never nil. An enumeration carries unknown as a named value of its
// own (dkim.KeyTypeNone, mtasts.Inconclusive, ptr.Unknown,
// dmarc.ExistenceUnknown, the empty mtasts.Mode and dmarc.Policy). Facts
// of a selected record or record set (dmarc's policy fields,
// mtasts.Result.Policy, a caa.Set whose Outcome is Inconclusive) are the
// zero value when none was selected, as their documentation says.
// Inconclusive itself is never turned into absent.
package resolver
