// Package dnstest serves RFC 1035 zone files for tests, examples and
// benchmarks, in two ways over one zone model: [Start] runs a real
// authoritative DNS server on 127.0.0.1 (UDP and TCP, a free port), and
// [NewResolver] answers the same questions in memory as a
// [resolver.Resolver], without a socket.
//
// The zones stand in for the whole internet: a name outside every loaded
// zone is NXDOMAIN, NXDOMAIN and NODATA are told apart (an empty
// non-terminal is NODATA, RFC 8020), wildcards are synthesised (RFC 4592),
// and CNAME chains are followed across zones, as a recursive resolver
// would, so that a Client pointed at the server sees what it would see
// through a real recursive resolver. A looping chain, or one of more than
// 16 aliases, ends in SERVFAIL. A UDP reply larger than the buffer the
// query advertised (512 octets without EDNS0) is truncated with the TC
// bit, so large answers need the Client's TCP retry, as in real life.
//
// Faults are injected per owner name (and optionally per type) with
// SetFault: a delay, SERVFAIL or REFUSED, a dropped reply (the client times
// out), a truncated UDP reply (the client must retry over TCP), a garbage
// reply, a DNSSEC-bogus answer (SERVFAIL unless the query sets CD) and an
// RFC 8914 Extended DNS Error option on the reply. Apply injects the faults of a test table row, written as
// [FaultAt] values, and [Diff] describes how a got struct differs from the
// wanted one, field by field.
//
// Zone files used in tests must point every host the code may connect to
// at 127.0.0.1 or ::1 (doc/design.md §5).
//
// A zone whose apex (the name with its SOA record) also has a DNSKEY
// record is taken as DNSSEC-signed and validated: answers about its names
// carry the AD bit, as a validating resolver's would. Nothing is signed;
// internal/realdns tests real validation.
//
// What this package does not do: delegations, zone cuts, DNSSEC signing
// and validation, DNAME,
// classes other than IN, or $INCLUDE; the SOA of a negative answer is the
// closest one in the zones, or a synthetic one at the top-level label.
package dnstest
