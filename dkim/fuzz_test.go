package dkim

import (
	"errors"
	"reflect"
	"slices"
	"testing"

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
		if err != nil {
			t.Fatalf("Parse(%q) ok, but its canonical form %q fails: %v", s, canon, err)
		}
		if !reflect.DeepEqual(again, rec) {
			t.Fatalf("round trip of %q via %q:\n got %s\nwant %s", s, canon, dump(again), dump(rec))
		}
	})
}

func checkSyntaxError(t *testing.T, s string, rec Record, err error) {
	t.Helper()
	var se *SyntaxError
	if !errors.Is(err, ErrSyntax) || !errors.As(err, &se) {
		t.Fatalf("Parse(%q) error %v is not a *SyntaxError wrapping ErrSyntax", s, err)
	}
	switch se.Code {
	case CodeNotDKIMRecord, CodeInvalidVersion, CodeVersionNotFirst, CodeDuplicateTag:
	default:
		t.Fatalf("Parse(%q) error code %q is not a syntax code", s, se.Code)
	}
	if !reflect.DeepEqual(rec, Record{}) {
		t.Fatalf("Parse(%q) returned %s with an error", s, dump(rec))
	}
}

func checkRecord(t *testing.T, s string, r Record) {
	t.Helper()
	fail := func(what string) { t.Fatalf("Parse(%q) = %s: %s", s, dump(r), what) }
	if !slices.IsSorted(r.Findings) || len(slices.Compact(slices.Clone(r.Findings))) != len(r.Findings) {
		fail("findings not sorted and unique")
	}
	switch r.KeyType {
	case KeyTypeRSA, KeyTypeEd25519, KeyTypeUnknown:
	default:
		fail("bad key type")
	}
	if (r.Key == KeyPresent) != (r.p != "") || (r.Key != KeyPresent && r.Key != KeyRevoked && r.Key != KeyMissing) {
		fail("key state does not match p")
	}
	if r.KeyBits < 0 || r.KeyBits > 0 && (r.KeyType != KeyTypeRSA || r.Key != KeyPresent) {
		fail("key bits without an RSA key")
	}
	if r.Usable() && (r.Key != KeyPresent || r.KeyType == KeyTypeUnknown || !r.SHA256Allowed() || !r.EmailServiceAllowed()) {
		fail("usable without a usable key")
	}
	for _, c := range r.Findings {
		switch c {
		case CodeNotDKIMRecord, CodeInvalidVersion, CodeVersionNotFirst, CodeDuplicateTag,
			CodeNoRecord, CodeDanglingCNAME, CodeMultipleRecords:
			fail("record carries a lookup or syntax code")
		}
	}
}
