// Package tagrec holds the grammar that the MTA-STS announcement record
// (RFC 8461 §3.1) and the TLS-RPT record (RFC 8460 §3) share.
//
// Both are TXT records that start with a case-sensitive version field
// ("v=STSv1", "v=TLSRPTv1") followed by fields separated by ";" with
// optional white space around it. RFC 8460 §3 takes the extension field
// rules from RFC 8461 §3.1: a name of one letter or digit followed by up
// to 31 letters, digits, "_", "-" or ".", and a value of visible ASCII
// other than ";" and "=". This package recognises such records, checks
// extension names and values, and renders fields in canonical form, so
// that the mtasts and tlsrpt packages apply one definition.
//
// What this package does not do: it does not split a record into fields.
// The two grammars differ there (an MTA-STS field ends at white space; a
// TLS-RPT rua value may hold white space around its commas), so each
// package keeps its own field splitting, its own required fields and its
// own errors.
package tagrec
