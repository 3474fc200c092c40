// Package caa finds and evaluates the CAA records that govern certificate
// issuance for a domain and for its MTA-STS policy host (RFC 8659,
// RFC 9495, RFC 8657).
//
// A CAA record set names the certification authorities (CAs) that may
// issue certificates for a name. [Check] performs the relevant-record-set
// search of RFC 8659 §3 twice: for the domain and for mta-sts.<domain>,
// whose HTTPS certificate MTA-STS depends on (RFC 8461 §3.3). The search
// asks for CAA at the name, then at its parent, and so on up to but not
// including the root, and stops at the first non-empty answer; a CNAME is
// followed by the resolver, but the climb continues from the original
// name's parent, never the alias target's (RFC 8659 §3, unlike RFC 6844).
// Record sets are never merged.
//
// Each property is parsed (flags, tag, value; RFC 8659 §4.1): issue,
// issuewild, iodef, issuemail (RFC 9495) and the registered contactemail,
// contactphone and issuevmc tags are recognised; the reserved auth, path
// and policy tags and unknown tags are ignored unless they carry the
// issuer-critical flag, which forbids all issuance (RFC 8659 §4.1). A
// malformed issue value counts as an empty issuer, which authorizes no CA
// (RFC 8659 §4.2). [Parse] reads one property in presentation form and
// [ParseIssuerValue] the value of an issue, issuewild or issuemail
// property; both are pure and fuzzed.
//
// What this package does not do: it does not decide whether a particular
// CA may issue (issuer names and parameters such as accounturi are never
// exposed, only counted), does not validate DNSSEC, and does not judge (no
// status or text). The [Result] carries no value from the wire.
//
// Limits: the climb for the domain asks at most [MaxClimb] names; the
// climb for the MTA-STS host asks one more (mta-sts.<domain> itself) and
// reuses the domain's climb above it.
//
// # Shape
//
// Parse, Select, Check, Result and Codes, as in every protocol package of
// this module.
// [Parse] reads one property and [ParseIssuerValue] an issue or
// issuewild value (pure; their errors wrap [ErrSyntax]). There is no
// Select: the relevant RRset is the first non-empty one of the climb
// (RFC 8659 §3), which Check finds.
// [Check] does the I/O through a [resolver.Resolver] and returns a
// [Result] of facts; a fact that could not be determined is nil or its
// enumeration's unknown value (see the resolver package doc), never
// absent. [Codes] lists the
// finding codes a Result may carry, in the order they are reported; the
// judgement (status, severity, wording) is the caller's.
package caa
