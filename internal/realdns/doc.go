// Package realdns is the internet-in-a-box: the real Debian DNS software
// that operators run, started on loopback for one test, so that the
// scanner can be tried as an operator would try it.
//
// [Start] writes zone files into the test's temporary directory and
// starts:
//
//   - Knot DNS (knotd) as the authoritative server of a fake root zone
//     (DNSSEC-signed, as the real one is, delegating com without DS),
//     of com and example.com (unsigned), of a DNSSEC-signed zone (keys
//     made with ldns-keygen at test time, signed with ldns-signzone) for
//     a fully configured domain with a DANE TLSA record for its mail
//     server, of a signed DANE-only domain (TLSA, no MTA-STS), of a zone
//     whose signatures expired (bogus), and of the
//     zones behind the delaying proxies;
//   - NSD as the authoritative server of a zone with a CNAME loop, a
//     chain of 11 CNAMEs (12 names, which Unbound 1.17 follows) and one of
//     12 CNAMEs (one more than it follows: SERVFAIL); NSD also answers
//     REFUSED for a zone it does not serve, which is the "refused"
//     delegation;
//   - small Go servers: a delaying UDP/TCP proxy in front of Knot (1 s
//     and 3 s name servers), a blackhole that reads and never answers,
//     and a dead port (nothing listens) for the lame delegation;
//   - Unbound as the validating recursive resolver ([World.Resolver]),
//     with a stub zone for every test zone (and for the root, so that
//     nothing ever leaves the machine), a trust anchor for the root and
//     for each signed zone (the unsigned ones domain-insecure), `ede:
//     yes`, `val-log-level: 2`, and Debian's defaults otherwise (notably
//     `discard-timeout: 1900`), in the foreground as the current user;
//   - an Unbound with DNSSEC validation off
//     ([World.NonValidatingResolver]: no AD, the bogus domain's records
//     given as any others), a second Unbound whose root trust anchor is
//     wrong, so that it answers SERVFAIL to everything ([World.ServfailResolver]), an
//     Unbound behind the delaying proxy, a resolver that answers every
//     question late ([World.SlowResolver]), and a dead resolver port
//     ([World.DeadResolver]).
//
// Every address involved is on 127.0.0.1, on ports picked at start-up.
// One exception is stated where it is made: the mail exchanges resolve to
// 8.8.8.8, because the MX check requires a public address; the scanner
// only resolves them and never connects. The only host it connects to,
// the MTA-STS policy host, is 127.0.0.1 (an HTTPS server with a test CA,
// reached with -allow-loopback-targets and -ca-file).
//
// What Unbound 1.17.1 answers (TestResolverFacts): the signed domain
// NOERROR with AD; the bogus one SERVFAIL with EDE 9 "DNSKEY Missing"
// (signature expired) and its data with CD; refused, the loop and the
// 12-CNAME chain SERVFAIL without EDE; lame and blackholed no answer at
// all at first (the query is dropped after discard-timeout, 1.9 s), and
// SERVFAIL only after about 18 s, past a scan's 15 s; the 1 s and 3 s
// domains no answer to the first query and their data to a later one,
// from the cache; the SERVFAIL-all resolver SERVFAIL with EDE 9 even for
// the root's SOA.
//
// [Hog] starts processes that only burn CPU, so that a test can run its
// scans on a machine as loaded as a busy shared one (TestSlowDomainUnderLoad).
//
// [Need] reports a missing program: the test skips, or fails when CI=true.
// scripts/test installs the programs with apt when they are missing.
package realdns
