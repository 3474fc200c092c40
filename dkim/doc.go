// Package dkim inspects the DKIM public-key record a domain publishes for
// one selector (RFC 6376 §3.6, RFC 8301, RFC 8463).
//
// A mail signer publishes its public key as a TXT record at
// <selector>._domainkey.<domain>. [Check] looks that record up for a
// selector the caller supplies, and reports facts about it: how many TXT
// records answered, the key type (rsa, ed25519 or an unknown one), whether
// a key is published or the selector was revoked with an empty p tag, the
// RSA key size, the t flags (testing, strict identity), whether the key may
// be used for email (s tag) and with SHA-256 (h tag), and a list of stable
// finding codes. [Parse] is the pure parser of one record's text.
//
// DNS outcomes are kept as data: a lookup that was inconclusive (SERVFAIL,
// timeout, …) leaves every fact unknown, and is never reported as a missing
// record. Only NODATA and NXDOMAIN mean "no record".
//
// Key material never leaves the package: no exported field, method or
// error of a [Result] or [Record] carries the p value or the key, and
// [Record.String] prints the key as a placeholder. Neither does a Result
// carry raw record text, CNAME targets or any other name from an answer.
//
// # What this package does not do
//
// It never guesses selectors: it asks exactly one question, the TXT
// record of the selector it is given. It verifies no signature and reads
// no message, so the i= and d= identities that t=s constrains, and the
// DKIM-Signature header, are out of scope. It does not check that an RSA
// modulus is a product of two primes or that an Ed25519 key is a valid
// curve point: it decodes the key only far enough to report its size and
// form. It does not judge: severity, status and wording belong to the
// caller.
//
// # Limits
//
// RSA keys below [MinRSABits] bits are unusable and below
// [RecommendedRSABits] weak; keys above [MaxVerifiedRSABits] bits are
// reported because verifiers need not handle them (RFC 8301 §3.2). An
// Ed25519 key must be exactly [Ed25519KeySize] bytes (RFC 8463 §4.2).
// [Check] sends one query; CNAME chains are followed by the resolver up to
// [resolver.MaxCNAMEChain] aliases.
//
// # Shape
//
// Parse, Select, Check, Result and Codes, as in every protocol package of
// this module.
// [Parse] reads one key record (pure; its errors wrap [ErrSyntax]). There
// is no Select: a DKIM key record has no mandatory version tag to be
// selected by, so every TXT record at the selector counts.
// [Check] does the I/O through a [resolver.Resolver] and returns a
// [Result] of facts; a fact that could not be determined is nil or its
// enumeration's unknown value (see the resolver package doc), never
// absent. [Codes] lists the
// finding codes a Result may carry, in the order they are reported; the
// judgement (status, severity, wording) is the caller's.
package dkim
