package dkim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/dkim"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

const zoneFile = "testdata/dkim.zone"

// testDomain is the domain most scenarios live under; the scenario is the
// selector.
const testDomain = "dkim.test"

// The values of a fact that may be unknown.
var (
	T = new(true)
	F = new(false)
	U *bool // unknown
)

type fault = dnstest.FaultAt

type checkCase struct {
	name     string // the scenario: the selector unless selector is set
	selector string
	domain   string
	faults   []fault
	want     dkim.Result
}

func (tc checkCase) args() (selector, domain string) {
	selector, domain = tc.name, testDomain
	if tc.selector != "" {
		selector = tc.selector
	}
	if tc.domain != "" {
		domain = tc.domain
	}
	return selector, domain
}

// run checks tc's selector and domain through r and reports a Result other
// than tc.want.
func (tc checkCase) run(t *testing.T, r resolver.Resolver) {
	t.Helper()
	selector, domain := tc.args()
	got := dkim.Check(t.Context(), r, selector, domain)
	assert.Equal(t, tc.want, got, "Check(%q, %q)", selector, domain)
}

// key is the Result of one record with a key of type kt and bits bits and
// default tags, with the given findings; usable says whether a verifier
// could use it.
func key(kt dkim.KeyType, bits int, usable *bool, findings ...dkim.Code) dkim.Result {
	return dkim.Result{
		Outcome: resolver.Found, RecordCount: new(1), KeyType: kt, KeyBits: bits,
		PublicKeyPresent: T, Revoked: F, TestMode: F, StrictIdentity: F,
		EmailServiceAllowed: T, SHA256Allowed: T, Usable: usable, Findings: findings,
	}
}

func rsa2048(findings ...dkim.Code) dkim.Result { return key(dkim.KeyTypeRSA, 2048, T, findings...) }

// change returns r modified by f.
func change(r dkim.Result, f func(*dkim.Result)) dkim.Result {
	f(&r)
	return r
}

// discarded is the Result of one TXT record that is not a DKIM key record.
func discarded(code dkim.Code) dkim.Result {
	return dkim.Result{
		Outcome: resolver.Found, RecordCount: new(1), PublicKeyPresent: F, Revoked: F, Usable: F,
		Findings: []dkim.Code{code},
	}
}

// absent is the Result of a selector without TXT records.
func absent(outcome resolver.Outcome, aliased bool, findings ...dkim.Code) dkim.Result {
	return dkim.Result{
		Outcome: outcome, Aliased: aliased, RecordCount: new(0), PublicKeyPresent: F, Revoked: F, Usable: F,
		Findings: findings,
	}
}

func inconclusive(reason resolver.Reason) dkim.Result {
	return dkim.Result{Outcome: resolver.Inconclusive, Reason: reason}
}

var checkCases = []checkCase{
	// Key sizes and forms.
	{name: "rsa-512", want: key(dkim.KeyTypeRSA, 512, F, dkim.CodeKeyTooShort)},
	{name: "rsa-1024", want: key(dkim.KeyTypeRSA, 1024, T, dkim.CodeWeakKey)},
	{name: "rsa-2048", want: rsa2048()},
	{name: "rsa-4096", want: key(dkim.KeyTypeRSA, 4096, T)},
	{name: "rsa-8192", want: key(dkim.KeyTypeRSA, 8192, T, dkim.CodeLargeKey)},
	{name: "pkcs1", want: rsa2048(dkim.CodePKCS1Key)},
	{name: "no-version", want: rsa2048()},
	{name: "ed25519", want: key(dkim.KeyTypeEd25519, 0, T)},
	{name: "jun2005.eng", want: key(dkim.KeyTypeEd25519, 0, T)},
	{name: "ed25519-spki", want: key(dkim.KeyTypeEd25519, 0, F, dkim.CodeInvalidEd25519Length)},
	{name: "ed25519-sha1", want: change(key(dkim.KeyTypeEd25519, 0, F, dkim.CodeSHA256NotAllowed), func(r *dkim.Result) {
		r.SHA256Allowed = F
	})},
	{name: "bad-base64", want: key(dkim.KeyTypeRSA, 0, F, dkim.CodeInvalidBase64)},
	{name: "bad-der", want: key(dkim.KeyTypeRSA, 0, F, dkim.CodeInvalidKey)},
	{name: "rsa-type-mismatch", want: key(dkim.KeyTypeRSA, 0, F, dkim.CodeInvalidKey)},
	{name: "unknown-key-type", want: key(dkim.KeyTypeUnknown, 0, F, dkim.CodeUnknownKeyType)},
	{name: "spaces", want: rsa2048()},
	{name: "g-tag", want: rsa2048()},

	// The p tag.
	{name: "revoked", want: change(key(dkim.KeyTypeRSA, 0, F, dkim.CodeKeyRevoked), func(r *dkim.Result) {
		r.PublicKeyPresent, r.Revoked = F, T
	})},
	{name: "revoked-fws", want: change(key(dkim.KeyTypeRSA, 0, F, dkim.CodeKeyRevoked), func(r *dkim.Result) {
		r.PublicKeyPresent, r.Revoked = F, T
	})},
	{name: "missing-p", want: change(key(dkim.KeyTypeRSA, 0, F, dkim.CodeKeyMissing), func(r *dkim.Result) {
		r.PublicKeyPresent = F
	})},

	// Flags, hashes, services.
	{name: "test-mode", want: change(rsa2048(dkim.CodeTestMode), func(r *dkim.Result) { r.TestMode = T })},
	{name: "strict", want: change(rsa2048(), func(r *dkim.Result) { r.StrictIdentity = T })},
	{name: "test-strict", want: change(rsa2048(dkim.CodeTestMode), func(r *dkim.Result) {
		r.TestMode, r.StrictIdentity = T, T
	})},
	{name: "unknown-flag", want: change(rsa2048(), func(r *dkim.Result) { r.StrictIdentity = T })},
	{name: "sha1-only", want: change(key(dkim.KeyTypeRSA, 2048, F, dkim.CodeSHA256NotAllowed), func(r *dkim.Result) {
		r.SHA256Allowed = F
	})},
	{name: "sha1-sha256", want: rsa2048()},
	{name: "sha256", want: rsa2048()},
	{name: "service-email", want: rsa2048()},
	{name: "service-any", want: rsa2048()},
	{name: "service-other", want: change(key(dkim.KeyTypeRSA, 2048, F, dkim.CodeServiceNotEmail), func(r *dkim.Result) {
		r.EmailServiceAllowed = F
	})},
	{name: "case", want: change(rsa2048(dkim.CodeTestMode), func(r *dkim.Result) { r.TestMode = T })},

	// Texts verifiers discard.
	{name: "dkim2", want: discarded(dkim.CodeInvalidVersion)},
	{name: "version-lower", want: discarded(dkim.CodeInvalidVersion)},
	{name: "version-not-first", want: discarded(dkim.CodeVersionNotFirst)},
	{name: "duplicate-tag", want: discarded(dkim.CodeDuplicateTag)},
	{name: "not-tag-list", want: discarded(dkim.CodeNotDKIMRecord)},
	{name: "wildcard-spf", selector: "s1", domain: "wild.dkim.test", want: discarded(dkim.CodeInvalidVersion)},

	// Several records.
	{name: "multiple", want: dkim.Result{
		Outcome: resolver.Found, RecordCount: new(2), KeyType: dkim.KeyTypeNone, KeyBits: 0,
		PublicKeyPresent: T, Revoked: F, TestMode: F, StrictIdentity: F,
		EmailServiceAllowed: T, SHA256Allowed: T, Usable: T,
		Findings: []dkim.Code{dkim.CodeMultipleRecords},
	}},
	{name: "multiple-same", want: change(rsa2048(dkim.CodeMultipleRecords), func(r *dkim.Result) {
		r.RecordCount, r.StrictIdentity = new(2), U
	})},
	{name: "multiple-invalid", want: dkim.Result{
		Outcome: resolver.Found, RecordCount: new(2), KeyType: dkim.KeyTypeNone,
		PublicKeyPresent: U, Revoked: F, TestMode: U, StrictIdentity: U,
		EmailServiceAllowed: U, SHA256Allowed: U, Usable: U,
		Findings: []dkim.Code{dkim.CodeMultipleRecords, dkim.CodeNotDKIMRecord},
	}},

	// Aliases.
	{name: "provider", want: change(rsa2048(), func(r *dkim.Result) { r.Aliased = true })},
	{name: "dangling", want: absent(resolver.NXDomain, true, dkim.CodeDanglingCNAME, dkim.CodeNoRecord)},
	{name: "alias-nodata", want: absent(resolver.NoData, true, dkim.CodeNoRecord)},

	// No record.
	{name: "nodata", want: absent(resolver.NoData, false, dkim.CodeNoRecord)},
	{name: "missing", want: absent(resolver.NXDomain, false, dkim.CodeNoRecord)},
	{name: "no-domainkey", selector: "s1", domain: "nodomainkey.dkim.test", want: absent(resolver.NXDomain, false, dkim.CodeNoRecord)},

	// Faults.
	{name: "servfail", faults: []fault{{Name: "servfail._domainkey.dkim.test", Type: resolver.TypeTXT, Fault: dnstest.ServFail}},
		want: inconclusive(resolver.ReasonServFail)},
	{name: "refused", selector: "rsa-2048", faults: []fault{{Name: "rsa-2048._domainkey.dkim.test", Type: dnstest.AnyType, Fault: dnstest.Refused}},
		want: inconclusive(resolver.ReasonRefused)},
	{name: "timeout", faults: []fault{{Name: "timeout._domainkey.dkim.test", Type: resolver.TypeTXT, Fault: dnstest.Drop}},
		want: inconclusive(resolver.ReasonTimeout)},
	{name: "garbage", selector: "rsa-2048", faults: []fault{{Name: "rsa-2048._domainkey.dkim.test", Type: resolver.TypeTXT, Fault: dnstest.Garbage}},
		want: inconclusive(resolver.ReasonMalformed)},
	// The in-memory resolver answers a truncation fault in full (TCP is
	// covered over the wire below).
	{name: "truncated", faults: []fault{{Name: "truncated._domainkey.dkim.test", Type: resolver.TypeTXT, Fault: dnstest.Truncate}},
		want: key(dkim.KeyTypeRSA, 4096, T)},
	{name: "provider-servfail", selector: "provider", faults: []fault{{Name: "s1.dkim.provider.test", Type: resolver.TypeTXT, Fault: dnstest.ServFail}},
		want: inconclusive(resolver.ReasonServFail)},

	// Inputs.
	{name: "uppercase-input", selector: "RSA-2048", domain: "DKIM.Test.", want: rsa2048()},
	{name: "invalid-selector", selector: "a..b", want: inconclusive(resolver.ReasonInvalidName)},
}

func TestCheck(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, zoneFile)
	for _, tc := range checkCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := dnstest.NewResolver(z)
			r.Apply(tc.faults...)
			tc.run(t, r)
			wantQueries := 1 // one TXT question, never more (no selector guessing)
			if tc.want.Reason == resolver.ReasonInvalidName {
				wantQueries = 0 // refused before it reaches the wire
			}
			assert.Len(t, r.Queries(), wantQueries, "Check sent queries")
		})
	}
}

// TestCheckQueryName proves the one question asked: TXT at
// <selector>._domainkey.<domain>, also when _domainkey does not exist at
// all (RFC 8020: no further queries are needed).
func TestCheckQueryName(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, zoneFile)
	for _, tc := range []struct{ selector, domain, want string }{
		{"rsa-2048", "dkim.test", "rsa-2048._domainkey.dkim.test"},
		{"jun2005.eng", "dkim.test.", "jun2005.eng._domainkey.dkim.test"},
		{"S1", "NoDomainKey.dkim.test", "s1._domainkey.nodomainkey.dkim.test"},
	} {
		r := dnstest.NewResolver(z)
		dkim.Check(t.Context(), r, tc.selector, tc.domain)
		q := r.Queries()
		if assert.Len(t, q, 1, "Check(%q, %q): want one TXT question for %s", tc.selector, tc.domain, tc.want) {
			assert.Equal(t, tc.want, q[0].Name, "Check(%q, %q) asked %v, want one TXT question for %s", tc.selector, tc.domain, q, tc.want)
			assert.Equal(t, resolver.TypeTXT, q[0].Type, "Check(%q, %q) asked %v, want one TXT question for %s", tc.selector, tc.domain, q, tc.want)
		}
		assert.Equal(t, tc.want, dkim.Name(tc.selector, tc.domain), "Name(%q, %q)", tc.selector, tc.domain)
	}
}

// TestCheckEmptySelector: with no selector there is nothing to ask; the
// name is invalid and the Result inconclusive, never "no record".
func TestCheckEmptySelector(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, zoneFile)
	got := dkim.Check(t.Context(), dnstest.NewResolver(z), "", testDomain)
	assert.Equal(t, inconclusive(resolver.ReasonInvalidName), got, "Check with an empty selector")
}

// TestCheckNameTooLong: a valid domain whose key record name would be
// longer than 253 octets cannot have a key there: no record (determined,
// never inconclusive), and nothing is asked.
func TestCheckNameTooLong(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, zoneFile)
	domain := strings.Repeat("x", 63) + "." + strings.Repeat("x", 63) + "." + strings.Repeat("x", 63) + "." + strings.Repeat("x", 50) + ".dkim.test"
	require.Len(t, domain, 252)
	r := dnstest.NewResolver(z)
	got := dkim.Check(t.Context(), r, "s1", domain)
	assert.True(t, got.Conclusive(), "Check(long name) = %+v", got)
	assert.Equal(t, resolver.NXDomain, got.Outcome)
	assert.Equal(t, []dkim.Code{dkim.CodeNoRecord}, got.Findings)
	if assert.NotNil(t, got.RecordCount) {
		assert.Zero(t, *got.RecordCount)
	}
	assert.Empty(t, r.Queries(), "nothing asked for a name that cannot exist")
}

func TestCheckCanceled(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, zoneFile)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	got := dkim.Check(ctx, dnstest.NewResolver(z), "rsa-2048", testDomain)
	assert.Equal(t, inconclusive(resolver.ReasonCanceled), got, "Check with a canceled context")
}

// TestCheckWire runs scenarios over the real UDP/TCP server: the 4096-bit
// record exceeds 512 octets and needs EDNS0, or TCP after truncation.
func TestCheckWire(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, zoneFile)
	rsa4096 := key(dkim.KeyTypeRSA, 4096, T)
	for _, tc := range []struct {
		checkCase
		wantTCP bool
	}{
		{checkCase: checkCase{name: "rsa-4096", want: rsa4096}},
		{checkCase: checkCase{name: "truncated", faults: []fault{{Name: "truncated._domainkey.dkim.test", Type: resolver.TypeTXT, Fault: dnstest.Truncate}}, want: rsa4096}, wantTCP: true},
		{checkCase: checkCase{name: "provider", want: change(rsa2048(), func(r *dkim.Result) { r.Aliased = true })}},
		{checkCase: checkCase{name: "dangling", want: absent(resolver.NXDomain, true, dkim.CodeDanglingCNAME, dkim.CodeNoRecord)}},
		{checkCase: checkCase{name: "missing", want: absent(resolver.NXDomain, false, dkim.CodeNoRecord)}},
		{checkCase: checkCase{name: "servfail", faults: []fault{{Name: "servfail._domainkey.dkim.test", Type: resolver.TypeTXT, Fault: dnstest.ServFail}}, want: inconclusive(resolver.ReasonServFail)}},
		{checkCase: checkCase{name: "timeout", faults: []fault{{Name: "timeout._domainkey.dkim.test", Type: resolver.TypeTXT, Fault: dnstest.Drop}}, want: inconclusive(resolver.ReasonTimeout)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := dnstest.Start(t, z)
			srv.Apply(tc.faults...)
			tc.run(t, srv.PatientResolver())
			assert.Equal(t, tc.wantTCP, srv.CountOver("", dnstest.AnyType, "tcp") > 0, "TCP used")
		})
	}
}

// TestCheckNoLeak proves no Result carries key material, record text or
// a name from an answer: every zone value and the provider's name are
// absent from each Result, printed and as JSON.
func TestCheckNoLeak(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, zoneFile)
	secrets := []string{"provider.test", "s1.dkim", "gone."}
	for _, name := range z.Names() {
		a := dnstest.NewResolver(z).Lookup(t.Context(), name, resolver.TypeTXT)
		for _, txt := range a.TXTs() {
			for _, tag := range strings.Split(txt, ";") {
				if _, v, ok := strings.Cut(tag, "="); ok && len(strings.TrimSpace(v)) >= 8 {
					secrets = append(secrets, strings.TrimSpace(v)[:8])
				}
			}
		}
	}
	require.GreaterOrEqual(t, len(secrets), 20, "only %d values collected from the zone", len(secrets))
	for _, tc := range checkCases {
		r := dnstest.NewResolver(z)
		selector, domain := tc.args()
		res := dkim.Check(t.Context(), r, selector, domain)
		js, err := json.Marshal(res)
		require.NoError(t, err)
		for _, out := range []string{string(js), fmt.Sprintf("%#v", res)} {
			for _, s := range secrets {
				assert.NotContains(t, out, s, "%s: Result contains %q", tc.name, s)
			}
		}
	}
}
