package dkim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Public keys generated once with OpenSSL (the same as in
// testdata/dkim.zone); the private halves were discarded.
const (
	ed25519Key = "FpcijCf8bP1Lab4eOO8V3P/0ZJfj+8uxIH7/HB8gbsw="
	rsa1024Key = "MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC56NO5ZwMUfIg3Hx9ASufRW8udd0LjYp7Y9dcGGqGH5uYz9zK/JlrJmy4Ib8tqtXKX1M37uJ206vzERqd7fQ/Rr+XjZmEB/E1pys87KsDHsL9mtTe7WcdwfB51gJOnf4aX59+8LzwxyFwLEu7EJ8b3HMl2jyZ1Ku3vz9IVttw4/QIDAQAB"
	rsa512Key  = "MFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBAMfwZVAkxsGpH2JU0XLh7hmpwmC+Bzm9fNWIYNQGWSr7z52OTm0UF0+gkvtxd6AjxLEtN8+dDAmtAD4J7j3h1S0CAwEAAQ=="
)

// edRecord is the Record of "v=DKIM1; k=ed25519; p=<ed25519Key>".
func edRecord() Record {
	return Record{HasVersion: true, KeyType: KeyTypeEd25519, Key: KeyPresent, p: ed25519Key}
}

func rsaRecord(bits int, p string, findings ...Code) Record {
	return Record{KeyType: KeyTypeRSA, Key: KeyPresent, KeyBits: bits, p: p, Findings: findings}
}

func modify(r Record, f func(*Record)) Record {
	f(&r)
	return r
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   string
		want Record
	}{
		{"ed25519", "v=DKIM1; k=ed25519; p=" + ed25519Key, edRecord()},
		{"fws-everywhere", " v = DKIM1 ;\tk\t=\ted25519 ;\r\n p = " + ed25519Key + " ; ", edRecord()},
		{"folded-key", "v=DKIM1; k=ed25519; p=" + ed25519Key[:10] + "\r\n\t" + ed25519Key[10:20] + " " + ed25519Key[20:], edRecord()},
		{"trailing-semicolon", "v=DKIM1; k=ed25519; p=" + ed25519Key + ";", edRecord()},
		{"trailing-semicolon-fws", "v=DKIM1; k=ed25519; p=" + ed25519Key + " ;\r\n ", edRecord()},
		{"key-type-case", "v=DKIM1; k=ED25519; p=" + ed25519Key, edRecord()},
		{"no-version", "p=" + rsa1024Key, rsaRecord(1024, rsa1024Key, CodeWeakKey)},
		{"rsa-512", "p=" + rsa512Key, rsaRecord(512, rsa512Key, CodeKeyTooShort)},
		{"unknown-tags", "v=DKIM1; n=notes with spaces; g=*; x_1=y; k=ed25519; p=" + ed25519Key, edRecord()},
		{"tag-names-case-sensitive", "v=DKIM1; K=rsa; P=" + ed25519Key,
			Record{HasVersion: true, KeyType: KeyTypeRSA, Key: KeyMissing, Findings: []Code{CodeKeyMissing}}},
		{"revoked", "v=DKIM1; p=", Record{HasVersion: true, KeyType: KeyTypeRSA, Key: KeyRevoked, Findings: []Code{CodeKeyRevoked}}},
		{"revoked-fws", "p=  \t ", Record{KeyType: KeyTypeRSA, Key: KeyRevoked, Findings: []Code{CodeKeyRevoked}}},
		{"missing-p", "v=DKIM1; k=rsa", Record{HasVersion: true, KeyType: KeyTypeRSA, Key: KeyMissing, Findings: []Code{CodeKeyMissing}}},
		{"empty-k", "k=; p=" + ed25519Key,
			Record{KeyType: KeyTypeUnknown, Key: KeyPresent, p: ed25519Key, Findings: []Code{CodeUnknownKeyType}}},
		{"unknown-k-bad-base64", "k=dsa; p=***",
			Record{KeyType: KeyTypeUnknown, Key: KeyPresent, p: "***", Findings: []Code{CodeInvalidBase64, CodeUnknownKeyType}}},
		{"hash-list", "v=DKIM1; k=ed25519; h=SHA1 : sha256 :: x; p=" + ed25519Key,
			modify(edRecord(), func(r *Record) { r.Hashes = []string{"sha1", "sha256", "x"} })},
		{"hash-sha1", "v=DKIM1; k=ed25519; h=sha1; p=" + ed25519Key,
			modify(edRecord(), func(r *Record) { r.Hashes, r.Findings = []string{"sha1"}, []Code{CodeSHA256NotAllowed} })},
		{"hash-empty", "h=; p=", Record{KeyType: KeyTypeRSA, Key: KeyRevoked, Hashes: []string{},
			Findings: []Code{CodeKeyRevoked, CodeSHA256NotAllowed}}},
		{"services", "v=DKIM1; k=ed25519; s=tlsrpt:Email; p=" + ed25519Key,
			modify(edRecord(), func(r *Record) { r.Services = []string{"tlsrpt", "email"} })},
		{"service-other", "v=DKIM1; k=ed25519; s=tlsrpt; p=" + ed25519Key,
			modify(edRecord(), func(r *Record) { r.Services, r.Findings = []string{"tlsrpt"}, []Code{CodeServiceNotEmail} })},
		{"flags", "v=DKIM1; k=ed25519; t=Y:s:future; p=" + ed25519Key,
			modify(edRecord(), func(r *Record) { r.Flags, r.Findings = []string{"y", "s", "future"}, []Code{CodeTestMode} })},
		{"ed25519-spki", "k=ed25519; p=MCowBQYDK2VwAyEAFpcijCf8bP1Lab4eOO8V3P/0ZJfj+8uxIH7/HB8gbsw=",
			Record{KeyType: KeyTypeEd25519, Key: KeyPresent, p: "MCowBQYDK2VwAyEAFpcijCf8bP1Lab4eOO8V3P/0ZJfj+8uxIH7/HB8gbsw=",
				Findings: []Code{CodeInvalidEd25519Length}}},
		{"rsa-unpadded", "p=" + strings.TrimRight(rsa512Key, "="),
			rsaRecord(0, strings.TrimRight(rsa512Key, "="), CodeInvalidBase64)},
		{"many-findings", "k=rsa; h=sha1; s=tlsrpt; t=y; p=" + rsa512Key,
			Record{KeyType: KeyTypeRSA, Key: KeyPresent, KeyBits: 512, p: rsa512Key,
				Hashes: []string{"sha1"}, Services: []string{"tlsrpt"}, Flags: []string{"y"},
				Findings: []Code{CodeKeyTooShort, CodeServiceNotEmail, CodeSHA256NotAllowed, CodeTestMode}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tc.in)
			require.NoError(t, err, "Parse(%q)", tc.in)
			assert.Equal(t, tc.want, got, "Parse(%q):\n got %s\nwant %s", tc.in, dump(got), dump(tc.want))
		})
	}
}

func dump(r Record) string {
	return fmt.Sprintf("{v=%v k=%q h=%q s=%q t=%q key=%s bits=%d p=%q findings=%q}",
		r.HasVersion, r.KeyType, r.Hashes, r.Services, r.Flags, r.Key, r.KeyBits, r.p, r.Findings)
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   string
		tag  string
		code Code
	}{
		{"empty", "", "", CodeNotDKIMRecord},
		{"only-separators", " ; ;\t", "", CodeNotDKIMRecord},
		{"only-semicolon", ";", "", CodeNotDKIMRecord},
		{"empty-spec-inside", "v=DKIM1;;k=ed25519;;p=" + ed25519Key, "", CodeNotDKIMRecord},
		{"empty-spec-fws-inside", "v=DKIM1; \t ;k=ed25519; p=" + ed25519Key, "", CodeNotDKIMRecord},
		{"empty-spec-first", ";v=DKIM1; k=ed25519; p=" + ed25519Key, "", CodeNotDKIMRecord},
		{"two-trailing-semicolons", "v=DKIM1; k=ed25519; p=" + ed25519Key + ";;", "", CodeNotDKIMRecord},
		{"free-text", "hello world", "", CodeNotDKIMRecord},
		{"no-name", "=abc", "", CodeNotDKIMRecord},
		{"name-starts-with-digit", "1p=abc", "1p", CodeNotDKIMRecord},
		{"name-with-dash", "google-site-verification=abc", "google-site-verification", CodeNotDKIMRecord},
		{"space-in-name", "k x=rsa; p=", "k x", CodeNotDKIMRecord},
		{"control-char", "p=abc\x00def", "p", CodeNotDKIMRecord},
		{"non-ascii", "v=DKIM1; n=caf\xc3\xa9; p=", "n", CodeNotDKIMRecord},
		{"duplicate", "v=DKIM1; p=; p=", "p", CodeDuplicateTag},
		{"duplicate-unknown", "x=1; p=; x=2", "x", CodeDuplicateTag},
		{"duplicate-v-not-first", "k=rsa; v=DKIM1; v=DKIM1", "v", CodeDuplicateTag},
		{"version-not-first", "k=rsa; v=DKIM1; p=", "v", CodeVersionNotFirst},
		{"version-other", "v=DKIM2; p=", "v", CodeInvalidVersion},
		{"version-lower", "v=dkim1; p=", "v", CodeInvalidVersion},
		{"version-dotted", "v=DKIM1.0; p=", "v", CodeInvalidVersion},
		{"version-empty", "v=; p=", "v", CodeInvalidVersion},
		{"spf-text", "v=spf1 -all", "v", CodeInvalidVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tc.in)
			require.ErrorIs(t, err, ErrSyntax, "Parse(%q) = %s, %v; want ErrSyntax", tc.in, dump(got), err)
			var se *SyntaxError
			if assert.ErrorAs(t, err, &se, "Parse(%q) error = %#v, want tag %q code %q", tc.in, err, tc.tag, tc.code) {
				assert.Equal(t, tc.tag, se.Tag, "Parse(%q) error = %#v", tc.in, err)
				assert.Equal(t, tc.code, se.Code, "Parse(%q) error = %#v", tc.in, err)
			}
			assert.Equal(t, Record{}, got, "Parse(%q) returned %s with its error, want the zero Record", tc.in, dump(got))
		})
	}
}

func TestRecordFacts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in                                  string
		test, strict, email, sha256, usable bool
	}{
		{"v=DKIM1; k=ed25519; p=" + ed25519Key, false, false, true, true, true},
		{"k=ed25519; t=s:y; s=*; h=sha256; p=" + ed25519Key, true, true, true, true, true},
		{"k=ed25519; s=email:tlsrpt; h=sha1:sha256; p=" + ed25519Key, false, false, true, true, true},
		{"k=ed25519; s=; p=" + ed25519Key, false, false, false, true, false},
		{"k=ed25519; h=sha512; p=" + ed25519Key, false, false, true, false, false},
		{"p=" + rsa1024Key, false, false, true, true, true},
		{"p=" + rsa512Key, false, false, true, true, false},
		{"p=", false, false, true, true, false},
		{"k=rsa", false, false, true, true, false},
		{"k=x; p=" + ed25519Key, false, false, true, true, false},
	} {
		r, err := Parse(tc.in)
		require.NoError(t, err, "Parse(%q)", tc.in)
		got := [5]bool{r.TestMode(), r.StrictIdentity(), r.EmailServiceAllowed(), r.SHA256Allowed(), r.Usable()}
		want := [5]bool{tc.test, tc.strict, tc.email, tc.sha256, tc.usable}
		assert.Equal(t, want, got, "Parse(%q): [test strict email sha256 usable]", tc.in)
	}
}

// TestRecordStringHidesKey proves that printing a Record, in any verb,
// never shows the key.
func TestRecordStringHidesKey(t *testing.T) {
	t.Parallel()
	r, err := Parse("v=DKIM1; h=sha256; s=email; t=y:s; p=" + rsa1024Key)
	require.NoError(t, err)
	assert.Equal(t, "v=DKIM1; k=rsa; h=sha256; s=email; t=y:s; p=[key]", r.String(), "String()")
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
		for _, arg := range []any{r, &r, []Record{r}} {
			assert.NotContains(t, fmt.Sprintf(verb, arg), rsa1024Key[30:60], "Sprintf(%q, %T) shows the key", verb, arg)
		}
	}
	revoked, err := Parse("p=")
	require.NoError(t, err)
	assert.Equal(t, "k=rsa; p=", revoked.String(), "String() of a revoked record")
}

func TestSyntaxErrorMessage(t *testing.T) {
	t.Parallel()
	_, err := Parse("v=DKIM1; p=; p=")
	assert.EqualError(t, err, `dkim: tag "p": tag occurs more than once`)
	_, err = Parse("")
	assert.EqualError(t, err, "dkim: empty tag-list")
}

func BenchmarkParse(b *testing.B) {
	for _, bc := range []struct{ name, in string }{
		{"rsa-1024", "v=DKIM1; k=rsa; h=sha256; p=" + rsa1024Key},
		{"ed25519", "v=DKIM1; k=ed25519; p=" + ed25519Key},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, err := Parse(bc.in)
				require.NoError(b, err)
			}
		})
	}
}
