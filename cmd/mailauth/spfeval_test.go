package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver/dnstest"
	"github.com/mailauth/mailauth/spf"
)

// spfEvalZone is served by the loopback DNS server; its addresses are
// only compared with the -ip value, never connected to.
const spfEvalZone = `$ORIGIN ev.test.
@     SOA ns.ev.test. hostmaster.ev.test. 1 3600 600 86400 300
@     TXT "v=spf1 ip4:203.0.113.0/24 include:inc.ev.test -all"
inc   TXT "v=spf1 a:mail.ev.test ~all"
mail  A 198.51.100.25
helo  TXT "v=spf1 a -all"
helo  A 198.51.100.9
bad   TXT "v=spf1 ip4:203.0.113.0/33 -all"
`

// TestSPFEval runs spf-eval in-process against the loopback DNS server.
func TestSPFEval(t *testing.T) {
	t.Parallel()
	srv := dnstest.Start(t, dnstest.MustParse(t, spfEvalZone))
	dnsAddr := srv.Addr()

	code, out, errOut := runCLI(t, nil, "spf-eval", "-dns", dnsAddr, "-ip", "203.0.113.7", "-sender", "alice@ev.test", "-helo", "x.example")
	want := "SPF result for ev.test (mailfrom identity): pass\n" +
		"Reason: A mechanism matched the client; its qualifier gives the result. (mechanism_matched)\n" +
		"Matched: term 1 (ip4) of the record at depth 0 (0 is the domain's own record)\n" +
		"DNS lookups: 0 (limit 10); void lookups: 0 (limit 2)\n"
	assert.Equal(t, exitOK, code, "pass: stderr %q", errOut)
	assert.Empty(t, errOut, "pass: exit %d", code)
	assert.Equal(t, want, out, "pass")

	// neither ip4 nor the included a matches: -all, after include (1) and a (2).
	code, out, errOut = runCLI(t, map[string]string{"MAILAUTH_DNS": dnsAddr}, "spf-eval", "-json", "-ip", "192.0.2.1", "-sender", "ev.test")
	var got spfEvalOutput
	err := json.Unmarshal([]byte(out), &got)
	require.Equal(t, exitOK, code, "json: stderr %q err %v\n%s", errOut, err, out)
	require.Empty(t, errOut, "json: exit %d err %v\n%s", code, err, out)
	require.NoError(t, err, "json: exit %d stderr %q\n%s", code, errOut, out)
	wantJSON := spfEvalOutput{Domain: "ev.test", Identity: "mailfrom", Result: "fail", Reason: "mechanism_matched",
		Mechanism: new("all"), Term: new(3), Depth: new(0), Lookups: 2, LookupLimit: 10, VoidLookups: 0, VoidLimit: 2}
	assert.Equal(t, wantJSON, got, "json")

	// the HELO identity, in Chinese.
	code, out, _ = runCLI(t, map[string]string{"LANG": "zh_CN.UTF-8"}, "spf-eval", "-dns", dnsAddr, "-ip", "198.51.100.9", "-helo", "helo.ev.test")
	assert.Equal(t, exitOK, code, "helo:\n%s", out)
	assert.True(t, strings.HasPrefix(out, "helo.ev.test 的 SPF 评估结果（helo 身份）：pass\n"), "helo: exit %d\n%s", code, out)

	// a syntax error: permerror with its code; the record text never appears.
	code, out, _ = runCLI(t, nil, "spf-eval", "-dns", dnsAddr, "-ip", "203.0.113.7", "-sender", "x@bad.ev.test")
	assert.Equal(t, exitOK, code, "syntax:\n%s", out)
	assert.Contains(t, out, ": permerror\n", "syntax: exit %d", code)
	assert.Contains(t, out, "syntax_bad_cidr", "syntax: exit %d", code)
	assert.NotContains(t, out, "203.0.113.0", "syntax: exit %d", code)
}

func TestSPFEvalUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-sender", "a@ev.test"}, "-ip"},
		{[]string{"-ip", "300.1.1.1", "-sender", "a@ev.test"}, "-ip"},
		{[]string{"-ip", "fe80::1%eth0", "-sender", "a@ev.test"}, "-ip"},
		{[]string{"-ip", "192.0.2.1"}, "-sender or -helo"},
		{[]string{"-ip", "192.0.2.1", "-sender", strings.Repeat("a", 300)}, "-sender"},
		{[]string{"-ip", "192.0.2.1", "-helo", strings.Repeat("a", 300)}, "-helo"},
		{[]string{"-ip", "192.0.2.1", "-sender", "a@ev.test", "-dns", "dns.example"}, "-dns"},
		{[]string{"-ip", "192.0.2.1", "-sender", "a@ev.test", "-lang", "fr"}, "-lang"},
		{[]string{"-ip", "192.0.2.1", "-sender", "a@ev.test", "extra"}, "no arguments"},
		{[]string{"-bogus"}, ""},
	} {
		code, out, errOut := runCLI(t, nil, append([]string{"spf-eval"}, tc.args...)...)
		const msg = "%v: exit %d stdout %q stderr %q"
		assert.Equal(t, exitUsage, code, msg, tc.args, code, out, errOut)
		assert.Empty(t, out, msg, tc.args, code, out, errOut)
		assert.Contains(t, errOut, tc.want, msg, tc.args, code, out, errOut)
	}
	code, _, _ := runCLI(t, nil, "spf-eval", "-h")
	assert.Equal(t, exitOK, code, "-h: exit")
}

// TestSPFEvalUnavailable: the only resolver does not answer: exit 3.
func TestSPFEvalUnavailable(t *testing.T) {
	t.Parallel()
	addr := deadDNS(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var out, errOut strings.Builder
	code := run(ctx, []string{"spf-eval", "-dns", addr, "-ip", "192.0.2.1", "-sender", "a@ev.test"}, mapEnv(nil), stdio{out: &out, err: &errOut})
	const msg = "exit %d stdout %q stderr %q"
	assert.Equal(t, exitUnavailable, code, msg, code, out.String(), errOut.String())
	assert.Zero(t, out.Len(), msg, code, out.String(), errOut.String())
	assert.Contains(t, errOut.String(), "DNS unavailable", msg, code, out.String(), errOut.String())
	assert.Contains(t, errOut.String(), "name a reachable recursive resolver with -dns", "stderr does not suggest -dns like scan does")
}

// TestSPFReasonTexts: every reason spf.Evaluate can give has a sentence in
// both languages.
func TestSPFReasonTexts(t *testing.T) {
	t.Parallel()
	for _, r := range spf.EvalReasons() {
		tx, ok := spfReasonText[r]
		if assert.True(t, ok, "no sentence for %s", r) && assert.NotEmpty(t, tx[0], "no sentence for %s", r) && assert.NotEmpty(t, tx[1], "no sentence for %s", r) {
			assert.NotContains(t, tx[0]+tx[1], "%", "%s: unformatted verb in %q", r, tx)
		}
	}
	// the limits come from the spf package's constants, in both languages.
	for r, limit := range map[spf.EvalReason]int{
		spf.ReasonLookupLimit: spf.MaxLookups,
		spf.ReasonVoidLimit:   spf.MaxVoidLookups,
		spf.ReasonMXLimit:     spf.MaxMXNames,
	} {
		n := fmt.Sprintf(" %d ", limit)
		tx := spfReasonText[r]
		assert.Contains(t, tx[0], n, "%s: %q does not name the limit %d", r, tx, limit)
		assert.Contains(t, tx[1], n, "%s: %q does not name the limit %d", r, tx, limit)
	}
	assert.Len(t, spfReasonText, len(spf.EvalReasons()), "%d sentences for %d reasons", len(spfReasonText), len(spf.EvalReasons()))
}

// TestSPFEvalSaysWhereItStops: over the lookup limit, the report says
// the evaluation stops at the 11th lookup, in both languages; under it,
// nothing.
func TestSPFEvalSaysWhereItStops(t *testing.T) {
	over := spfEvalOutput{Domain: "example.com", Identity: "mailfrom", Result: "permerror", Reason: string(spf.ReasonLookupLimit),
		Lookups: 11, LookupLimit: spf.MaxLookups, VoidLimit: spf.MaxVoidLookups}
	for lang, want := range map[string]string{"en": "Evaluation stops at lookup 11", "zh": "评估在第 11 次查询时停止"} {
		var b strings.Builder
		renderSPFEval(&b, over, lang)
		assert.Contains(t, b.String(), want, lang)
		under := over
		under.Reason, under.Lookups = string(spf.ReasonMatched), 3
		b.Reset()
		renderSPFEval(&b, under, lang)
		assert.NotContains(t, b.String(), want, lang)
	}
}
