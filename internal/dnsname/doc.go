// Package dnsname checks the letter-digit-hyphen (LDH) syntax of host names
// that several protocol packages share: MX exchanges (RFC 5321 §2.3.5),
// PTR targets (RFC 1123 §2.1), MTA-STS mx patterns (RFC 8461 §3.2) and the
// host of a TLS-RPT destination (RFC 8460 §3).
//
// A host name is a sequence of labels separated by "."; each label is 1 to
// 63 letters, digits and hyphens that neither starts nor ends with a
// hyphen (RFC 952, RFC 1123 §2.1, RFC 5321 §4.1.2 Let-dig [Ldh-str]), and
// the whole name is at most 253 octets without the trailing dot
// (RFC 1035 §2.3.4).
//
// What this package does not do: it does not lower-case, strip trailing
// dots, convert IDNs or look anything up; callers pass names in the form
// they mean to check and add their own rules (at least two labels, a last
// label that is not all digits, a "*." prefix).
package dnsname
