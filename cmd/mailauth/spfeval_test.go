package main

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

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
	if code != exitOK || errOut != "" || out != want {
		t.Errorf("pass: exit %d stderr %q\n%s", code, errOut, out)
	}

	// neither ip4 nor the included a matches: -all, after include (1) and a (2).
	code, out, errOut = runCLI(t, map[string]string{"MAILAUTH_DNS": dnsAddr}, "spf-eval", "-json", "-ip", "192.0.2.1", "-sender", "ev.test")
	var got spfEvalOutput
	if err := json.Unmarshal([]byte(out), &got); code != exitOK || errOut != "" || err != nil {
		t.Fatalf("json: exit %d stderr %q err %v\n%s", code, errOut, err, out)
	}
	wantJSON := spfEvalOutput{Domain: "ev.test", Identity: "mailfrom", Result: "fail", Reason: "mechanism_matched",
		Mechanism: new("all"), Term: new(3), Depth: new(0), Lookups: 2, LookupLimit: 10, VoidLookups: 0, VoidLimit: 2}
	if !reflect.DeepEqual(got, wantJSON) {
		t.Errorf("json:\n%s", dnstest.Diff(got, wantJSON))
	}

	// the HELO identity, in Chinese.
	code, out, _ = runCLI(t, map[string]string{"LANG": "zh_CN.UTF-8"}, "spf-eval", "-dns", dnsAddr, "-ip", "198.51.100.9", "-helo", "helo.ev.test")
	if code != exitOK || !strings.HasPrefix(out, "helo.ev.test 的 SPF 评估结果（helo 身份）：pass\n") {
		t.Errorf("helo: exit %d\n%s", code, out)
	}

	// a syntax error: permerror with its code; the record text never appears.
	code, out, _ = runCLI(t, nil, "spf-eval", "-dns", dnsAddr, "-ip", "203.0.113.7", "-sender", "x@bad.ev.test")
	if code != exitOK || !strings.Contains(out, ": permerror\n") || !strings.Contains(out, "syntax_bad_cidr") || strings.Contains(out, "203.0.113.0") {
		t.Errorf("syntax: exit %d\n%s", code, out)
	}
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
		if code != exitUsage || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d stdout %q stderr %q", tc.args, code, out, errOut)
		}
	}
	if code, _, _ := runCLI(t, nil, "spf-eval", "-h"); code != exitOK {
		t.Errorf("-h: exit %d", code)
	}
}

// TestSPFEvalUnavailable: the only resolver does not answer: exit 3.
func TestSPFEvalUnavailable(t *testing.T) {
	t.Parallel()
	addr := deadDNS(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var out, errOut strings.Builder
	code := run(ctx, []string{"spf-eval", "-dns", addr, "-ip", "192.0.2.1", "-sender", "a@ev.test"}, mapEnv(nil), stdio{out: &out, err: &errOut})
	if code != exitUnavailable || out.Len() != 0 || !strings.Contains(errOut.String(), "DNS unavailable") {
		t.Errorf("exit %d stdout %q stderr %q", code, out.String(), errOut.String())
	}
	if !strings.Contains(errOut.String(), "name a reachable recursive resolver with -dns") {
		t.Errorf("stderr %q does not suggest -dns like scan does", errOut.String())
	}
}

// TestSPFReasonTexts: every reason spf.Evaluate can give has a sentence in
// both languages.
func TestSPFReasonTexts(t *testing.T) {
	t.Parallel()
	for _, r := range spf.EvalReasons() {
		if tx, ok := spfReasonText[r]; !ok || tx[0] == "" || tx[1] == "" {
			t.Errorf("no sentence for %s", r)
		} else if strings.Contains(tx[0]+tx[1], "%") {
			t.Errorf("%s: unformatted verb in %q", r, tx)
		}
	}
	// the limits come from the spf package's constants, in both languages.
	for r, limit := range map[spf.EvalReason]int{
		spf.ReasonLookupLimit: spf.MaxLookups,
		spf.ReasonVoidLimit:   spf.MaxVoidLookups,
		spf.ReasonMXLimit:     spf.MaxMXNames,
	} {
		n := fmt.Sprintf(" %d ", limit)
		if tx := spfReasonText[r]; !strings.Contains(tx[0], n) || !strings.Contains(tx[1], n) {
			t.Errorf("%s: %q does not name the limit %d", r, tx, limit)
		}
	}
	if len(spfReasonText) != len(spf.EvalReasons()) {
		t.Errorf("%d sentences for %d reasons", len(spfReasonText), len(spf.EvalReasons()))
	}
}
