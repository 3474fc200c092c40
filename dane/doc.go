// Package dane reads the DANE TLSA records of a domain's mail servers
// (RFC 7672, RFC 6698, RFC 7671) and tells whether DANE-aware senders can
// use them.
//
// [Parse] decodes the RDATA of one TLSA record (RFC 6698 §2.1) and
// [TLSA.Problem] says whether an SMTP client can use it: only DANE-TA(2)
// and DANE-EE(3) with a known selector (0, 1) and matching type (0, 1, 2)
// and association data of the matching type's length are usable; the
// PKIX usages 0 and 1 are not (RFC 7672 §3.1.3). [Check] looks up
// _25._tcp.<host> TLSA for each mail server, at most [MaxHosts], and
// reports whether each set was DNSSEC-validated (the resolver's AD bit)
// and usable, as counts and [Code] findings.
//
// What this package does not do: it does not validate DNSSEC itself (it
// trusts the AD bit of a validating resolver), does not connect to any
// mail server to match certificates, does not follow the TLSA base domain
// through a validated CNAME of the host (RFC 7672 §2.2.2 allows it; the
// host's own name is asked, which a resolver follows anyway when the
// TLSA name itself is an alias), and does not check that the host's
// address records are validated. It does not judge: status, severity
// and wording are the caller's.
//
// # Shape
//
// Parse, Check, Result and Codes, as in every protocol package of this
// module. The records are RRs the DNS library decodes; Parse reads their
// RDATA.
package dane
