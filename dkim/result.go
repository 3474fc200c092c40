package dkim

import "github.com/mailauth/mailauth/resolver"

// Result holds the facts [Check] found about one selector. It carries no
// record text, no key material and no name taken from an answer.
//
// A fact that may be unknown is a pointer, nil when unknown (the API's
// null; see the resolver package doc); KeyType says unknown with
// KeyTypeNone. Which facts are unknown depends
// on the situation:
//
//	situation                           RecordCount  KeyType  PublicKeyPresent,  TestMode, StrictIdentity,
//	                                                          Revoked, Usable    EmailServiceAllowed, SHA256Allowed
//	lookup inconclusive                 null         null     null               null
//	no TXT record (NODATA, NXDOMAIN)    0            null     false              null
//	one TXT, not a DKIM key record      1            null     false              null
//	one DKIM key record                 1            known    known              known
//	several TXT records                 n            merged   merged             merged
//
// "Not a DKIM key record" is a text [Parse] rejects (not a tag-list, a
// duplicate tag, a bad or misplaced v tag): verifiers discard it, so it
// publishes no key. "Merged" means each record is evaluated as if it were
// alone, and a fact is kept when every record gives the same value and is
// null otherwise, because a verifier may use any of them
// (RFC 6376 §3.6.2.2).
type Result struct {
	// Outcome is the outcome of the TXT lookup at [Name](selector, domain).
	Outcome resolver.Outcome
	// Reason says why the lookup was inconclusive; empty otherwise.
	Reason resolver.Reason
	// Aliased reports whether the lookup followed a CNAME, as hosted
	// signing does. The alias target itself is never kept.
	Aliased bool
	// RecordCount is the number of TXT records answering at the selector,
	// whatever their content (DKIM key records have no mandatory version
	// tag to select them by). nil when Outcome is Inconclusive; see
	// [Result.Conclusive].
	RecordCount *int
	// KeyType is the key type of the record: rsa, ed25519 or unknown (an
	// unrecognised k value). KeyTypeNone (null) when no DKIM key record was
	// evaluated or the records disagree.
	KeyType KeyType
	// KeyBits is the RSA modulus size in bits; 0 when the key is not RSA,
	// could not be decoded, is unknown, or the records disagree.
	KeyBits int
	// PublicKeyPresent: the record has a non-empty p tag.
	PublicKeyPresent *bool
	// Revoked: the record has an explicitly empty p tag.
	Revoked *bool
	// TestMode: the t tag has the y flag.
	TestMode *bool
	// StrictIdentity: the t tag has the s flag.
	StrictIdentity *bool
	// EmailServiceAllowed: the s tag is absent or lists email or *.
	EmailServiceAllowed *bool
	// SHA256Allowed: the h tag is absent or lists sha256.
	SHA256Allowed *bool
	// Usable: a verifier could use the key to verify an SHA-256 signature
	// on mail (see [Record.Usable]).
	Usable *bool
	// Findings are stable codes, sorted, without duplicates: those of
	// every record, plus CodeNoRecord, CodeDanglingCNAME or
	// CodeMultipleRecords. Nil when the lookup was inconclusive.
	Findings []Code
}

// Conclusive reports whether the lookup was conclusive, i.e. whether
// RecordCount is known.
func (r Result) Conclusive() bool { return r.Outcome != resolver.Inconclusive }

// recordFacts evaluates the text of one TXT record as if it were the only
// one at the selector. It fills the facts only, not the lookup fields.
func recordFacts(txt string) Result {
	rec, err := Parse(txt)
	if err != nil {
		return Result{PublicKeyPresent: new(false), Revoked: new(false), Usable: new(false), Findings: []Code{syntaxCode(err)}}
	}
	return Result{
		KeyType:             rec.KeyType,
		KeyBits:             rec.KeyBits,
		PublicKeyPresent:    new(rec.Key == KeyPresent),
		Revoked:             new(rec.Key == KeyRevoked),
		TestMode:            new(rec.TestMode()),
		StrictIdentity:      new(rec.StrictIdentity()),
		EmailServiceAllowed: new(rec.EmailServiceAllowed()),
		SHA256Allowed:       new(rec.SHA256Allowed()),
		Usable:              new(rec.Usable()),
		Findings:            append([]Code(nil), rec.Findings...),
	}
}

// merge combines the facts of two records at one selector: a fact both
// agree on is kept, any other becomes unknown; findings are united.
func merge(a, b Result) Result {
	a.KeyType = agree(a.KeyType, b.KeyType, KeyTypeNone)
	a.KeyBits = agree(a.KeyBits, b.KeyBits, 0)
	a.PublicKeyPresent = agreeKnown(a.PublicKeyPresent, b.PublicKeyPresent)
	a.Revoked = agreeKnown(a.Revoked, b.Revoked)
	a.TestMode = agreeKnown(a.TestMode, b.TestMode)
	a.StrictIdentity = agreeKnown(a.StrictIdentity, b.StrictIdentity)
	a.EmailServiceAllowed = agreeKnown(a.EmailServiceAllowed, b.EmailServiceAllowed)
	a.SHA256Allowed = agreeKnown(a.SHA256Allowed, b.SHA256Allowed)
	a.Usable = agreeKnown(a.Usable, b.Usable)
	a.Findings = append(a.Findings, b.Findings...)
	return a
}

// agreeKnown returns x when x and y are known and equal, and nil
// (unknown) otherwise.
func agreeKnown[T comparable](x, y *T) *T {
	if x == nil || y == nil || *x != *y {
		return nil
	}
	return x
}

// agree returns x when x and y are equal, and unknown otherwise.
func agree[T comparable](x, y, unknown T) T {
	if x == y {
		return x
	}
	return unknown
}
