package dkim

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// FuzzParse checks that Parse never panics, that an error is always a
// *SyntaxError with a code and a zero Record, that a Record is internally
// consistent, and that its canonical form parses back to an equal Record.
// Seeds: literal edge cases and every TXT record of testdata/dkim.zone.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", ";", "v=DKIM1; p=", "v=DKIM1; k=rsa", "p=" + rsa512Key, "p=" + rsa1024Key,
		"v=DKIM1; k=ed25519; p=" + ed25519Key, "k=ed25519; h=sha1; s=tlsrpt; t=y:s; p=" + ed25519Key,
		"v=DKIM1; p=!!notbase64", "k=rsa; v=DKIM1; p=", "v=DKIM1; p=a; p=b", "v=DKIM2; p=",
		" v = DKIM1 ;\r\n\tp = MIGf MA0G ;", "h=; s=; t=; p=", "h=:; k=; p=", "x=1; n=a b c; g=*",
		"v=spf1 -all", "google-site-verification=abc", "p=\x00", "k=RSA; h=SHA256; p=MA==",
	} {
		f.Add(s)
	}
	z := dnstest.MustLoad(f, "testdata/dkim.zone")
	r := dnstest.NewResolver(z)
	for _, name := range z.Names() {
		for _, txt := range r.Lookup(f.Context(), name, resolver.TypeTXT).TXTs() {
			f.Add(txt)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		rec, err := Parse(s)
		if err != nil {
			checkSyntaxError(t, s, rec, err)
			return
		}
		checkRecord(t, s, rec)
		canon := rec.render(rec.p)
		again, err := Parse(canon)
		require.NoError(t, err, "Parse(%q) ok, but its canonical form %q fails", s, canon)
		require.Equal(t, rec, again, "round trip of %q via %q:\n got %s\nwant %s", s, canon, dump(again), dump(rec))
	})
}

func checkSyntaxError(t *testing.T, s string, rec Record, err error) {
	t.Helper()
	var se *SyntaxError
	require.ErrorIs(t, err, ErrSyntax, "Parse(%q) error %v is not a *SyntaxError wrapping ErrSyntax", s, err)
	require.ErrorAs(t, err, &se, "Parse(%q) error %v is not a *SyntaxError wrapping ErrSyntax", s, err)
	require.Contains(t, []Code{CodeNotDKIMRecord, CodeInvalidVersion, CodeVersionNotFirst, CodeDuplicateTag}, se.Code,
		"Parse(%q) error code %q is not a syntax code", s, se.Code)
	require.Equal(t, Record{}, rec, "Parse(%q) returned %s with an error", s, dump(rec))
}

func checkRecord(t *testing.T, s string, r Record) {
	t.Helper()
	msg := func(what string) string { return fmt.Sprintf("Parse(%q) = %s: %s", s, dump(r), what) }
	require.True(t, slices.IsSorted(r.Findings), msg("findings not sorted and unique"))
	require.Len(t, slices.Compact(slices.Clone(r.Findings)), len(r.Findings), msg("findings not sorted and unique"))
	require.Contains(t, []KeyType{KeyTypeRSA, KeyTypeEd25519, KeyTypeUnknown}, r.KeyType, msg("bad key type"))
	require.Equal(t, r.p != "", r.Key == KeyPresent, msg("key state does not match p"))
	require.Contains(t, []KeyState{KeyPresent, KeyRevoked, KeyMissing}, r.Key, msg("key state does not match p"))
	require.GreaterOrEqual(t, r.KeyBits, 0, msg("key bits without an RSA key"))
	if r.KeyBits > 0 {
		require.Equal(t, KeyTypeRSA, r.KeyType, msg("key bits without an RSA key"))
		require.Equal(t, KeyPresent, r.Key, msg("key bits without an RSA key"))
	}
	if r.Usable() {
		require.Equal(t, KeyPresent, r.Key, msg("usable without a usable key"))
		require.NotEqual(t, KeyTypeUnknown, r.KeyType, msg("usable without a usable key"))
		require.True(t, r.SHA256Allowed(), msg("usable without a usable key"))
		require.True(t, r.EmailServiceAllowed(), msg("usable without a usable key"))
	}
	for _, c := range r.Findings {
		require.NotContains(t, []Code{CodeNotDKIMRecord, CodeInvalidVersion, CodeVersionNotFirst, CodeDuplicateTag,
			CodeNoRecord, CodeDanglingCNAME, CodeMultipleRecords}, c, msg("record carries a lookup or syntax code"))
	}
}
