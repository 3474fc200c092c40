package redact

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

func TestVerifyFindsRecordedValues(t *testing.T) {
	s := NewSet()
	s.Allow("example.com", "s1", "8.8.8.8")
	s.AddText("v=spf1 include:_spf.canary-one.example -all")
	s.AddText("v=DMARC1; p=reject; rua=mailto:reports@canary-two.example")
	s.Add("mail.canary-three.example.", "203.0.113.9")
	s.Add("xn--bcher-kva.example")
	s.AddText("version: STSv1\nmode: testing\nmx: *.canary-four.example\n")

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
		{"short protocol words are not values", map[string]any{"x": "p=reject -all mx"}, false},
		{"policy keys are not values", map[string]any{"x": "testing mode: failures are reported; version: 2"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.doc)
			if err != nil {
				t.Fatal(err)
			}
			err = s.Verify(b)
			if got := errors.Is(err, ErrLeak); got != tc.leak {
				t.Fatalf("Verify leak = %v (err %v), want %v", got, err, tc.leak)
			}
			if err != nil && containsAny(err.Error(), "canary", "203.0.113.9") {
				t.Fatalf("error names a value: %v", err)
			}
		})
	}
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func TestVerifyRejectsInvalidJSON(t *testing.T) {
	if err := NewSet().Verify([]byte("{")); err == nil || errors.Is(err, ErrLeak) {
		t.Fatalf("Verify(invalid) = %v, want a decode error", err)
	}
}

func TestAllowedValueRecordedIsNotALeak(t *testing.T) {
	s := NewSet()
	s.Add("example.com") // e.g. a PTR target equal to the scanned domain
	s.Allow("example.com")
	if s.Contains("example.com") || s.Contains("text about example.com") {
		t.Fatal("an allowed value must not count as a leak")
	}
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
		if !s.Contains("x " + v + " y") {
			t.Errorf("value %q was not recorded", v)
		}
	}
}
