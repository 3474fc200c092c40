package redact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

func TestVerifyFindsRecordedValues(t *testing.T) {
	s := NewSet()
	s.UseVocabulary(NewVocabulary("The record ends in -all; p=reject mx.", "testing mode: failures are reported; version: 2"))
	s.Allow("example.com", "s1", "8.8.8.8")
	s.AddText("v=spf1 include:_spf.canary-one.example -all")
	s.AddText("v=DMARC1; p=reject; rua=mailto:reports@canary-two.example")
	s.Add("mail.canary-three.example.", "203.0.113.9")
	s.Add("xn--bcher-kva.example")
	s.AddText("version: STSv1\nmode: testing\nmx: *.canary-four.example\nmax_age: 604800\n")
	s.AddText("v=STSv1; id=kanariidtoken99")

	tests := []struct {
		name string
		doc  any
		leak bool
	}{
		{"clean", map[string]any{"domain": "example.com", "summary": map[string]string{"en": "SPF is set up."}}, false},
		{"allowed echo", map[string]any{"dkimSelector": "s1", "sendingIp": "8.8.8.8"}, false},
		{"include target", map[string]any{"details": "uses _spf.canary-one.example"}, true},
		{"rua host", map[string]any{"x": []any{"reports to canary-two.example"}}, true},
		{"mailbox", map[string]any{"x": "reports@canary-two.example"}, true},
		{"mx host upper case", map[string]any{"x": "MAIL.CANARY-THREE.EXAMPLE"}, true},
		{"address", map[string]any{"x": "seen 203.0.113.9"}, true},
		{"unicode form of an A-label", map[string]any{"x": "bücher.example"}, true},
		{"whole record", map[string]any{"x": "v=spf1 include:_spf.canary-one.example -all"}, true},
		{"as a key", map[string]any{"203.0.113.9": 1}, true},
		{"policy pattern", map[string]any{"x": "covers *.canary-four.example"}, true},
		{"the output's own words are not values", map[string]any{"x": "p=reject -all mx"}, false},
		{"policy keys in the vocabulary", map[string]any{"x": "testing mode: failures are reported; version: 2"}, false},
		{"counts are not values", map[string]any{"x": "2 of 8 checks; 604800 s"}, false},
		{"opaque token without dots", map[string]any{"x": "id kanariidtoken99"}, true},
		{"escaped string", map[string]any{"x": "quote \" then <mail.canary-three.example>"}, true},
		{"non-ASCII string", map[string]any{"x": "服务器 mail.canary-three.example 已配置"}, true},
		{"escaped clean string", map[string]any{"x": "a \"quoted\" <word> & more\n"}, false},
		{"allowed echo in upper case", map[string]any{"domain": "EXAMPLE.COM"}, false},
		{"value at the very end", map[string]any{"x": "canary-two.example"}, true},
		{"deep in arrays", []any{1, []any{true, nil, []any{map[string]any{"k": "see 203.0.113.9"}}}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.doc)
			require.NoError(t, err)
			err = s.Verify(b)
			require.Equal(t, tc.leak, errors.Is(err, ErrLeak), "Verify leak (err %v)", err)
			if err != nil {
				require.NotContains(t, err.Error(), "canary", "error names a value")
				require.NotContains(t, err.Error(), "203.0.113.9", "error names a value")
			}
		})
	}
}

func TestVerifyRejectsInvalidJSON(t *testing.T) {
	err := NewSet().Verify([]byte("{"))
	require.Error(t, err, "Verify(invalid), want a decode error")
	require.NotErrorIs(t, err, ErrLeak, "Verify(invalid) = %v, want a decode error", err)
}

func TestAllowedValueRecordedIsNotALeak(t *testing.T) {
	s := NewSet()
	s.Add("example.com") // e.g. a PTR target equal to the scanned domain
	s.Allow("example.com")
	require.False(t, s.Contains("example.com"), "an allowed value must not count as a leak")
	require.False(t, s.Contains("text about example.com"), "an allowed value must not count as a leak")
}

// TestValueInsideAnAllowedOneIsNotALeak: an occurrence of a recorded
// value lying wholly inside a standalone occurrence of an allowed value
// (the PTR name "p.example.com" inside the domain "shop.example.com") is
// not a leak; the same value anywhere else in the string, or across the
// occurrence's edge, is.
func TestValueInsideAnAllowedOneIsNotALeak(t *testing.T) {
	t.Parallel()
	s := NewSet()
	s.Add("p.example.com", "com evil")
	s.Allow("shop.example.com", "8.8.4.4")
	for text, want := range map[string]bool{
		"shop.example.com does not exist in the DNS": false,
		"SHOP.EXAMPLE.COM does not exist":            false, // compared in lower case
		"shop.example.com 在 DNS 中不存在":                false,
		"8.8.4.4 has no PTR record":                  false,
		"p.example.com":                              true, // the value alone
		"shop.example.com and p.example.com":         true, // the value beside the occurrence
		"x.shop.example.com":                         true, // joined by '.': another name, not the allowed one
		"shop.example.com-p.example.com":             true,
		"see shop.example.com evil":                  true,  // "com evil" crosses the occurrence's edge
		"shop.example.com.":                          false, // a sentence's full stop: still standalone
		"shop.example.com, p.example.com":            true,
		"myshop.example.com":                         true, // the allowed name joined to a letter: another name
		"üshop.example.com":                          true, // or to a non-ASCII letter
		"ü.shop.example.com":                         true,
		"shop.example.comü":                          true,
	} {
		assert.Equal(t, want, s.Contains(text), "Contains(%q)", text)
	}
	var out bytes.Buffer
	require.NoError(t, json.NewEncoder(&out).Encode(map[string]string{"summary": "shop.example.com does not exist"}))
	require.NoError(t, s.Verify(out.Bytes()), "Verify of a sentence naming only the allowed domain")

	// Whether an occurrence stands alone is read in the whole text, not in
	// a piece left by cutting a generated value: "shop.рф" joined to the
	// generated "2026" is another name.
	g := NewSet()
	g.Add("hop.рф")
	g.Allow("shop.рф")
	g.Generated("2026")
	assert.True(t, g.Contains("shop.рф2026"), "an allowed name joined to a generated value")
	assert.False(t, g.Contains("shop.рф 2026"), "the allowed name standing alone beside a generated value")
}

// FuzzAllowedCover: allowedCover says t[i:j], at least MinLen bytes as
// a recorded value is, lies inside a standalone occurrence of an allowed
// value exactly when trying every place such an occurrence could start
// (refInsideAllowed) finds one.
func FuzzAllowedCover(f *testing.F) {
	f.Add("shop.example.com does not exist", "shop.example.com", "example.com")
	f.Add("aaaa.aaa aaaa", "aa", "aaa")
	f.Add("üshop.рф 2026 shop.рф", "shop.рф", "рф")
	f.Fuzz(func(t *testing.T, text, a, b string) {
		if len(text) > 64 {
			text = text[:64]
		}
		allowed := map[string]struct{}{}
		for _, v := range []string{a, b} {
			if v != "" {
				allowed[v] = struct{}{}
			}
		}
		cover := allowedCover(text, allowed)
		for i := 0; i <= len(text); i++ {
			for j := i + MinLen; j <= len(text); j++ {
				got := cover != nil && cover[i] >= j
				require.Equal(t, refInsideAllowed(text, i, j, allowed), got, "text %q allowed %q span [%d,%d)", text, allowed, i, j)
			}
		}
	})
}

// FuzzValueInsideAllowed: excusing the occurrences inside allowed values
// never panics and never finds a value the search without them would
// not; and a recorded value that is no part of the allowed one is still
// found wherever it stands.
func FuzzValueInsideAllowed(f *testing.F) {
	f.Add("p.example.com", "shop.example.com", "shop.example.com does not exist")
	f.Add("com evil", "shop.example.com", "see shop.example.com evil")
	f.Fuzz(func(t *testing.T, recorded, allowed, text string) {
		plain := NewSet()
		plain.Add(recorded)
		excusing := NewSet()
		excusing.Add(recorded)
		excusing.Allow(allowed)
		if excusing.Contains(text) {
			require.True(t, plain.Contains(text), "excusing added a match: recorded %q allowed %q text %q", recorded, allowed, text)
		}
		lower, _ := forms(recorded)
		a, au := forms(allowed)
		if lower == "" || !plain.Contains(lower) || strings.Contains(a, lower) || au != "" && strings.Contains(au, lower) {
			return
		}
		require.True(t, excusing.Contains("["+recorded+"]"), "a recorded value %q that is no part of the allowed %q was excused", recorded, allowed)
	})
}

func TestResolverRecordsAnswers(t *testing.T) {
	z := dnstest.MustParse(t, `$ORIGIN example.test.
@ TXT "v=spf1 include:_spf.canary-txt.test -all"
@ MX 10 mx-canary.example.test.
mx-canary A 192.0.2.55
alias CNAME target-canary.other.test.
@ CAA 0 iodef "mailto:sec@canary-caa.test"
`)
	s := NewSet()
	r := s.Resolver(dnstest.NewResolver(z))
	ctx := context.Background()
	for _, q := range []struct {
		name  string
		qtype resolver.Type
	}{{"example.test", resolver.TypeTXT}, {"example.test", resolver.TypeMX}, {"mx-canary.example.test", resolver.TypeA}, {"alias.example.test", resolver.TypeA}, {"example.test", resolver.TypeCAA}} {
		r.Lookup(ctx, q.name, q.qtype)
	}
	for _, v := range []string{"_spf.canary-txt.test", "mx-canary.example.test", "192.0.2.55", "target-canary.other.test", "sec@canary-caa.test", "canary-caa.test", "alias.example.test"} {
		assert.True(t, s.Contains("x "+v+" y"), "value %q was not recorded", v)
	}
}

func TestVocabularyWordsAreNotRecorded(t *testing.T) {
	s := NewSet()
	s.UseVocabulary(NewVocabulary("There are several v=STSv1 records."))
	s.AddText("v=STSv1") // a whole TXT string equal to a word of the output
	require.False(t, s.Contains("There are several v=STSv1 records."), "a word of the output's own vocabulary was flagged")
	s2 := NewSet()
	s2.AddText("v=STSv1")
	require.True(t, s2.Contains("x v=stsv1 y"), "without a vocabulary the value must be recorded")
}

func TestSetIsBounded(t *testing.T) {
	s := NewSet()
	var b strings.Builder
	for i := 0; i < 3*MaxValues; i++ {
		fmt.Fprintf(&b, "host%d.canary.example ", i)
	}
	s.AddText(b.String())
	require.LessOrEqual(t, s.Len(), MaxValues, "Len %d, Overflowed %v: the set must stop at MaxValues and say so", s.Len(), s.Overflowed())
	require.True(t, s.Overflowed(), "Len %d, Overflowed %v: the set must stop at MaxValues and say so", s.Len(), s.Overflowed())
	long := strings.Repeat("x", MaxValueLen) + "é" + strings.Repeat("y", 10)
	s2 := NewSet()
	s2.Add(long)
	require.Equal(t, 1, s2.Len(), "a value longer than MaxValueLen is stored by its first MaxValueLen bytes")
	require.Equal(t, MaxValueLen, s2.Bytes(), "only the first MaxValueLen bytes are stored")
	require.True(t, s2.Contains("k "+long+" k"), "an output carrying the long value carries its stored prefix")
	s3 := NewSet()
	s3.Add(strings.Repeat("x", MaxValueLen-1) + "é")
	require.Equal(t, MaxValueLen-1, s3.Bytes(), "the cut never splits a character")
}

func TestVocabularyContains(t *testing.T) {
	v := NewVocabulary("The DMARC policy is none: it only", "策略为 none：只收集")
	for in, want := range map[string]bool{"none": true, "dmarc policy": true, "policy is none:": true, "only": true, "mail.example.com": false, "nonexistent": false, "abc": false} {
		assert.Equal(t, want, v.contains(in), "contains(%q)", in)
	}
	var nilV *Vocabulary
	assert.False(t, nilV.contains("none"), "a nil vocabulary contains nothing")
}

// TestGenerated: generated values are masked only where they stand alone;
// wire values around or containing them are still found.
func TestGenerated(t *testing.T) {
	t.Parallel()
	s := NewSet()
	s.AddText("4T05 3 of 5 host3.example.net 192.0.2.3 kanari.example.org 2001:db8::3")
	s.Generated("2026-11-24T05:00:00Z", "3", "5")
	for text, want := range map[string]bool{
		"2026-11-24T05:00:00Z":                    false, // the generated value itself
		"scanned 2026-11-24T05:00:00Z":            false, // standalone inside a string
		"3 of 5 evaluated checks pass.":           false,
		"3 of 5 pass. kanari.example.org":         true,
		"2026-11-24T05:00:00Z kanari.example.org": true,
		"see 4T05":                                   true, // the wire token alone, not generated
		"relay host3.example.net":                    true,
		"address 192.0.2.3":                          true, // '3' joined by '.': not masked
		"address 2001:db8::3":                        true,
		"2026-11-24T05:00:00Z and 2026-11-24T05:00Z": true, // the second is not the generated value
	} {
		assert.Equal(t, want, s.Contains(text), "Contains(%q)", text)
	}
}

// TestSetByteBound: values of up to MaxValueLen each stop at MaxBytes in
// total, well before MaxValues: a memory bound per scan.
func TestSetByteBound(t *testing.T) {
	t.Parallel()
	s := NewSet()
	for i := range MaxValues {
		s.Add(fmt.Sprintf("%04d", i) + strings.Repeat("k", MaxValueLen-4))
	}
	require.LessOrEqual(t, s.Bytes(), MaxBytes, "bytes %d len %d overflowed %v: want at most %d bytes", s.Bytes(), s.Len(), s.Overflowed(), MaxBytes)
	require.True(t, s.Overflowed(), "bytes %d len %d overflowed %v: want at most %d bytes", s.Bytes(), s.Len(), s.Overflowed(), MaxBytes)
	require.Less(t, s.Len(), MaxValues, "bytes %d len %d overflowed %v: want at most %d bytes", s.Bytes(), s.Len(), s.Overflowed(), MaxBytes)
}

// FuzzGenerated: masking generated values never panics and never finds a
// value the unmasked search would not (it only ever removes matches).
func FuzzGenerated(f *testing.F) {
	f.Add("4T05 host3.example.net", "2026-11-24T05:00:00Z", "scanned 2026-11-24T05:00:00Z at host3.example.net")
	f.Add("3 of 5", "3", "3 of 5 checks")
	f.Fuzz(func(t *testing.T, recorded, generated, text string) {
		plain := NewSet()
		plain.AddText(recorded)
		masked := NewSet()
		masked.AddText(recorded)
		masked.Generated(generated)
		if masked.Contains(text) {
			require.True(t, plain.Contains(text), "masking added a match: recorded %q generated %q text %q", recorded, generated, text)
		}
	})
}
