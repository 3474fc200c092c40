package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackVerifyEncodings: every JSON spelling of a recorded value, in
// keys and values, escaped or not, in any case a lower-casing maps onto
// it, is found.
func TestAttackVerifyEncodings(t *testing.T) {
	s := NewSet()
	s.UseVocabulary(NewVocabulary("The record ends in -all; p=reject mx.", "reject"))
	s.Add("kelvin-secret.example", "xn--mnchen-3ya.example", "info-İd.example", "bad\xffutf8.example", "straße-ß.example")
	s.AddText("v=spf1 include:split-token.example -all")
	for _, doc := range []string{
		`{"a":"kelvin-secret.example"}`,
		`{"a":"KELVIN-SECRET.EXAMPLE"}`,
		`{"a":"\u212Aelvin-secret.example"}`,     // KELVIN SIGN lower-cases to k
		"{\"a\":\"\u212Aelvin-secret.example\"}", // raw, not escaped
		`{"a":"\u006belvin-secret.example"}`,
		`{"a":"kelvin\u002dsecret.example"}`,
		`{"a":"x kelvin-secret.example\/y"}`,
		`{"kelvin-secret.example":1}`,
		`{"k\u0065lvin-secret.example":1}`,
		`[[[{"a":[1,"kelvin-secret.example"]}]]]`,
		`{"a":"münchen.example"}`,
		`{"a":"MÜNCHEN.EXAMPLE"}`,
		`{"a":"m\u00fcnchen.example"}`,
		`{"a":"XN--MNCHEN-3YA.EXAMPLE"}`,
		"{\"a\":\"bad\xffutf8.example\"}",
		`{"a":"bad\ufffdutf8.example"}`,
		`{"a":"split-token.example"}`,
		`{"a":"info-İd.example"}`,
		`{"a":"INFO-İD.EXAMPLE"}`,
		`{"a":"straße-ß.example"}`,
		`{"a":"STRAẞE-ẞ.EXAMPLE"}`,
	} {
		assert.True(t, json.Valid([]byte(doc)), doc)
		assert.ErrorIs(t, s.Verify([]byte(doc)), ErrLeak, "%q", doc)
	}
}

// TestAttackVerifyValidity: a document json.Valid rejects is never
// vouched for, whatever it carries.
func TestAttackVerifyValidity(t *testing.T) {
	s := NewSet()
	for _, doc := range []string{
		``, ` `, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `[}`, `{]`, `"\u12"`, `"\u12g4"`,
		`"a` + "\x00" + `b"`, `"\x"`, `01`, `-`, `1.`, `1e`, `1e+`, `.5`, `+1`, `tru`, `nul`, `[1 2]`, `{"a":1 "b":2}`,
		"\xef\xbb\xbf{}", `{} {}`, `"a"x`, `[` + strings.Repeat("[", 10000) + strings.Repeat("]", 10001),
		`{"a":1}}`, `[]]`, `"\`, `"\u0041`, "[\"a\"\x0b]",
	} {
		assert.Equal(t, json.Valid([]byte(doc)), scanJSON([]byte(doc), func(int, int, bool) {}), "%q", doc)
		if !json.Valid([]byte(doc)) {
			assert.Error(t, s.Verify([]byte(doc)), "%q", doc)
		}
	}
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	assert.Equal(t, json.Valid([]byte(deep)), scanJSON([]byte(deep), func(int, int, bool) {}))
	deeper := "[" + deep + "]"
	assert.Equal(t, json.Valid([]byte(deeper)), scanJSON([]byte(deeper), func(int, int, bool) {}))
}
