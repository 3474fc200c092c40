package mailauth

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

func memScanner(t *testing.T, mutate func(*dnstest.Resolver), cfg Config) *Scanner {
	t.Helper()
	mem := dnstest.NewResolver(dnstest.MustLoad(t, scanZone))
	if mutate != nil {
		mutate(mem)
	}
	cfg.Resolver = mem
	cfg.Now = func() time.Time { return fixedNow }
	return New(cfg)
}

func TestScanRejectsInvalidInput(t *testing.T) {
	s := memScanner(t, nil, Config{})
	tests := []struct {
		name  string
		req   ScanRequest
		field InputField
	}{
		{"ip target", ScanRequest{Domain: "192.0.2.1"}, "domain"},
		{"single label", ScanRequest{Domain: "localhost"}, "domain"},
		{"bad selector", ScanRequest{Domain: "good.example.com", DKIMSelector: "-x"}, "dkimSelector"},
		{"private ip", ScanRequest{Domain: "good.example.com", SendingIP: "10.0.0.1"}, "sendingIp"},
		{"ip too long for scan", ScanRequest{Domain: "good.example.com", SendingIP: "2606:4700:4700:0000:0000:0000:0000:1111:1111"}, "sendingIp"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Scan(context.Background(), tc.req)
			var ie *InputError
			require.ErrorAs(t, err, &ie, "err = %v, want an InputError on %s", err, tc.field)
			require.Equal(t, tc.field, ie.Field, "err = %v, want an InputError on %s", err, tc.field)
		})
	}
	_, err := s.CheckIP(context.Background(), mustAddr(t, "192.168.1.1"))
	require.Error(t, err, "CheckIP accepted a private address")
}

// TestScanResolverUnavailable: when no DNS server answers at all, the scan
// says so instead of reporting every record as missing.
func TestScanResolverUnavailable(t *testing.T) {
	for _, reason := range []resolver.Reason{resolver.ReasonTimeout, resolver.ReasonNetwork, resolver.ReasonRefused} {
		dead := resolver.Func(func(context.Context, string, resolver.Type) resolver.Answer { return resolver.Fail(reason) })
		s := New(Config{Resolver: dead})
		_, err := s.Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
		assert.ErrorIs(t, err, ErrResolverUnavailable, "%s: Scan err = %v, want ErrResolverUnavailable", reason, err)
		_, err = s.CheckIP(context.Background(), mustAddr(t, "8.8.8.8"))
		assert.ErrorIs(t, err, ErrResolverUnavailable, "%s: CheckIP err = %v, want ErrResolverUnavailable", reason, err)
	}
	// A resolver that SERVFAILs everything, the control question too (a
	// broken trust anchor, a wrong clock), is the service's fault: no
	// user gets a 200 that blames their domain.
	servfail := resolver.Func(func(context.Context, string, resolver.Type) resolver.Answer {
		return resolver.Fail(resolver.ReasonServFail)
	})
	_, err := New(Config{Resolver: servfail}).Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
	require.ErrorIs(t, err, ErrResolverUnavailable, "SERVFAIL everywhere")
	// Replies that cannot be used say nothing about whose DNS failed: the
	// checks stay undetermined, never pass or fail.
	malformed := resolver.Func(func(context.Context, string, resolver.Type) resolver.Answer {
		return resolver.Fail(resolver.ReasonMalformed)
	})
	got, err := New(Config{Resolver: malformed}).Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
	require.NoError(t, err, "malformed everywhere")
	for _, c := range got.Checks {
		assert.NotContains(t, []Status{StatusPass, StatusFail}, c.Status, "%s on malformed replies; unattributed must never pass or fail", c.ID)
	}
}

// TestScanFrozenResolver: a resolver that takes every question and never
// answers (UDP read and dropped, TCP accepted and held) fails the scan
// with ErrResolverUnavailable at the deadline (the service's 500), never
// a 200 with undetermined checks or one that blames the domain.
func TestScanFrozenResolver(t *testing.T) {
	udp, tcp := testlab.ListenPair(t, true)
	go func() {
		buf := make([]byte, 1500)
		for {
			if _, _, err := udp.ReadFrom(buf); err != nil {
				return
			}
		}
	}()
	go func() {
		for {
			c, err := tcp.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(io.Discard, c); c.Close() }()
		}
	}()
	client := &resolver.Client{Servers: []string{tcp.Addr().String()}}
	start := time.Now()
	_, err := New(Config{Resolver: client, ScanTimeout: 2 * time.Second}).Scan(t.Context(), ScanRequest{Domain: "good.example.com"})
	require.ErrorIs(t, err, ErrResolverUnavailable)
	assert.Less(t, time.Since(start), 10*time.Second, "the deadline and the control question bound it")
}

// TestScanDeadline: a check whose DNS hangs past the scan deadline is
// reported as not determined; the other checks keep their results.
func TestScanDeadline(t *testing.T) {
	// The other checks must end before the deadline to keep their
	// results: a run in which one of them did not (a loaded machine held
	// its goroutine past the deadline) does not count, and is made again
	// with twice the time. Time only says whether a run counts, never its
	// verdict; the DMARC lookup waits a minute, past every deadline here.
	for timeout := 200 * time.Millisecond; ; timeout *= 2 {
		require.LessOrEqual(t, timeout, 30*time.Second, "no run in which mx, spf and tls-rpt ended before the scan's deadline")
		s := memScanner(t, func(r *dnstest.Resolver) {
			r.SetFault("_dmarc.good.example.com", dnstest.AnyType, dnstest.Delay(time.Minute))
		}, Config{ScanTimeout: timeout})
		start := time.Now()
		got, err := s.Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
		require.NoError(t, err)
		elapsed := time.Since(start)
		require.Less(t, elapsed, time.Minute, "scan took %v: the deadline was not enforced", elapsed)
		byID := map[CheckID]CheckSummary{}
		for _, c := range got.Checks {
			byID[c.ID] = c
		}
		late := false
		for _, id := range []CheckID{CheckMX, CheckSPF, CheckTLSRPT} {
			d := byID[id].Determination
			late = late || d == UndeterminedTimeout || d == UndeterminedSlow
		}
		if late {
			continue
		}
		c := byID[CheckDMARC]
		assert.Equal(t, StatusWarn, c.Status, "dmarc = %s with diagnostics %v, want warn with diagnostics", c.Status, c.Diagnostics)
		assert.NotNil(t, c.Diagnostics, "dmarc = %s with diagnostics %v, want warn with diagnostics", c.Status, c.Diagnostics)
		for _, id := range []CheckID{CheckMX, CheckSPF, CheckTLSRPT} {
			assert.Equal(t, StatusPass, byID[id].Status, "%s = %s, want pass: it must keep its result", id, byID[id].Status)
		}
		return
	}
}

// TestScannerConcurrentUse runs scans in parallel on one Scanner (run with
// -race).
func TestScannerConcurrentUse(t *testing.T) {
	s := memScanner(t, nil, Config{})
	errs := make(chan error, 16)
	for i := 0; i < cap(errs); i++ {
		go func() {
			_, err := s.Scan(context.Background(), ScanRequest{Domain: "weak.example.com", SendingIP: "8.8.8.8"})
			errs <- err
		}()
	}
	for i := 0; i < cap(errs); i++ {
		require.NoError(t, <-errs)
	}
}

// TestScanDeadlineManyLateChecks: checks whose DNS ignores the context
// must not hold the scan past its deadline, however many there are.
func TestScanDeadlineManyLateChecks(t *testing.T) {
	mem := dnstest.NewResolver(dnstest.MustLoad(t, scanZone))
	// The stubborn lookups end only when the test lets them, after the
	// scan returned: a scan that waited for them would never return.
	// Their end, not the clock, shows the scan did not wait.
	// The scan's deadline passes once the three are asked (the test
	// closes it): a deadline that passed before a check asked would give
	// that check another verdict (slow: its lookup never went out).
	release := make(chan struct{})
	defer close(release)
	// The three checks' own questions: other "_" names (the MX check's
	// TLSA questions) are stubborn too, and may come first.
	var mu sync.Mutex
	waiting := map[string]bool{}
	for _, n := range []string{"_dmarc.good.example.com", "_mta-sts.good.example.com", "_smtp._tls.good.example.com"} {
		waiting[resolver.CanonicalName(n)] = true
	}
	dl := testlab.NewDeadline(context.Background())
	stubborn := resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
		if strings.HasPrefix(name, "_") { // ignore ctx
			mu.Lock()
			delete(waiting, resolver.CanonicalName(name))
			if len(waiting) == 0 {
				dl.Pass()
			}
			mu.Unlock()
			<-release
		}
		return mem.Lookup(ctx, name, qtype)
	})
	// ScanTimeout bounds a hang; the deadline that passes is dl's.
	s := New(Config{Resolver: stubborn, ScanTimeout: time.Hour, Now: func() time.Time { return fixedNow }})
	type result struct {
		got ScanSummary
		err error
	}
	done := make(chan result, 1)
	go func() {
		got, err := s.Scan(dl, ScanRequest{Domain: "good.example.com"})
		done <- result{got, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-time.After(30 * time.Second): // a bound on a hang: the stubborn lookups never end before the scan does
		require.FailNow(t, "the scan waited for its late checks past its deadline")
	}
	require.NoError(t, res.err)
	for _, c := range res.got.Checks {
		switch c.ID {
		case CheckDMARC, CheckMTASTS, CheckTLSRPT:
			assert.Equal(t, StatusWarn, c.Status, "%s = %s %q, want the not-finished verdict", c.ID, c.Status, c.Summary.EN)
			assert.Equal(t, txtTimedOut.format(), c.Summary, "%s = %s %q, want the not-finished verdict", c.ID, c.Status, c.Summary.EN)
		}
	}
}

// TestMTASTSCoverageUnknown: when the MX lookup is inconclusive, an
// enforce policy cannot pass, since its coverage was not checked: it is
// undetermined when the failure has no attributable cause, and a fail
// naming the domain's name servers when they fail (the MX lookup's fault
// is the MTA-STS check's too).
func TestMTASTSCoverageUnknown(t *testing.T) {
	s, lab := newLabScanner(t, scanZone)
	lab.DNS.SetFault("good.example.com", resolver.TypeMX, dnstest.ServFail)
	got, err := s.Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
	require.NoError(t, err)
	sts := checkOf(t, got, CheckMTASTS)
	assert.Equal(t, StatusFail, sts.Status)
	assert.Equal(t, faultRules[faultNoAnswer][0].say.format(), sts.Summary)

	// The client waits out an undecodable reply, and ends that lookup
	// with its time-out once the reply came (a deadline would make it
	// slow); the scan's other questions wait as long as they need.
	lab = testlab.Start(t, []string{scanZone}, policies)
	s = labScanner(lab, oneApart{Client: &resolver.Client{Servers: []string{lab.DNS.Addr()}, Timeout: 30 * time.Second, Attempts: 1},
		apart: &resolver.Client{Servers: []string{lab.DNS.Addr()}, Timeout: 5 * time.Second, Attempts: 1},
		name:  "good.example.com", qtype: resolver.TypeMX})
	lab.DNS.SetFault("good.example.com", resolver.TypeMX, dnstest.Garbage)
	got, err = s.Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
	require.NoError(t, err)
	for _, c := range got.Checks {
		if c.ID == CheckMTASTS {
			require.Equal(t, StatusWarn, c.Status, "mta-sts = %s %q, want warn: coverage unknown", c.Status, c.Summary.EN)
			require.Equal(t, stsMXUnknown.say.format(), c.Summary, "mta-sts = %s %q, want warn: coverage unknown", c.Status, c.Summary.EN)
		}
		if c.ID == CheckMX {
			require.NotEqual(t, StatusPass, c.Status, "mx passed on SERVFAIL")
		}
	}
}

// TestCheckIPOneNameFails: a PTR lookup that times out while the resolver
// answers other questions is a result about that IP, not a dead resolver:
// slowness (warn, left out of the score, counts unknown), never a fail,
// for a time-out is no verdict. An unusable reply leaves it undetermined
// (warn).
func TestCheckIPOneNameFails(t *testing.T) {
	for fault, want := range map[*dnstest.Fault]Determination{&dnstest.Drop: UndeterminedSlow, &dnstest.Garbage: UndeterminedLookup} {
		s := memScanner(t, func(r *dnstest.Resolver) {
			r.SetFault("8.8.8.8.in-addr.arpa", dnstest.AnyType, *fault)
		}, Config{ScanTimeout: time.Minute}) // a bound on a hang: a deadline that passed before the PTR question went out would make any fault "slow"
		got, err := s.CheckIP(context.Background(), mustAddr(t, "8.8.8.8"))
		require.NoError(t, err, "CheckIP")
		d, ok := got.Check.Diagnostics.(*PTRDiagnostics)
		require.True(t, ok, "ptr diagnostics")
		assert.Equal(t, StatusWarn, got.Check.Status, "%+v", got.Check)
		assert.Equal(t, want, got.Check.Determination, "%+v", got.Check)
		assert.Nil(t, d.PTRRecordCount)
		assert.Nil(t, d.ForwardConfirmed)
	}
}

// TestScanIncomplete: a scan whose DNS gives no conclusive answer is not
// graded as a weak configuration: the undetermined checks leave the
// score, the summary says the scan was incomplete, and when nothing could
// be determined the score is 0, grade F.
func TestScanIncomplete(t *testing.T) {
	t.Run("all inconclusive", func(t *testing.T) {
		malformed := resolver.Func(func(context.Context, string, resolver.Type) resolver.Answer {
			return resolver.Fail(resolver.ReasonMalformed)
		})
		got, err := New(Config{Resolver: malformed}).Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
		require.NoError(t, err)
		msg := "score %d grade %s incomplete %v, want 0 F incomplete"
		require.Equal(t, 0, got.Score, msg, got.Score, got.Grade, got.Incomplete())
		require.Equal(t, GradeF, got.Grade, msg, got.Score, got.Grade, got.Incomplete())
		require.True(t, got.Incomplete(), msg, got.Score, got.Grade, got.Incomplete())
		n := undetermined(got.Checks)
		want := txtOverallIncomplete.format(n, n)
		require.Equal(t, want, got.Summary, "summary = %q, want %q", got.Summary.EN, want.EN)
	})
	t.Run("answers too late", func(t *testing.T) {
		// No answer about the domain comes before the scan deadline, and
		// the Resolver says nothing of why (it only ends with the
		// context): the lookups ran out of time, which is slowness, not a
		// verdict (the real Client says ReasonSlow, see
		// TestAttributionSlowScan). The resolver answers the control
		// question. No check fails, none is scored, and the summary says
		// the scan ran out of time.
		mem := dnstest.NewResolver(dnstest.MustLoad(t, scanZone))
		late := resolver.Func(func(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
			if name != probeName {
				<-ctx.Done()
			}
			return mem.Lookup(ctx, name, qtype)
		})
		got, err := New(Config{Resolver: late, ScanTimeout: 100 * time.Millisecond, Now: func() time.Time { return fixedNow }}).
			Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
		require.NoError(t, err)
		n := undetermined(got.Checks)
		msg := "score %d grade %s summary %q, want 0 F and the ran-out-of-time summary"
		require.Equal(t, 0, got.Score, msg, got.Score, got.Grade, got.Summary.EN)
		require.Equal(t, GradeF, got.Grade, msg, got.Score, got.Grade, got.Summary.EN)
		require.True(t, got.Incomplete(), msg, got.Score, got.Grade, got.Summary.EN)
		require.True(t, got.Slow(), msg, got.Score, got.Grade, got.Summary.EN)
		require.Equal(t, txtOverallSlow.format(n, n), got.Summary, msg, got.Score, got.Grade, got.Summary.EN)
		for _, c := range got.Checks {
			assert.NotEqual(t, StatusFail, c.Status, "%s: %s", c.ID, c.Summary.EN)
		}
	})
	t.Run("most inconclusive", func(t *testing.T) {
		// mx and caa answer; spf, dmarc, mta-sts and tls-rpt cannot.
		s := memScanner(t, func(r *dnstest.Resolver) {
			r.SetFault("good.example.com", resolver.TypeTXT, dnstest.Garbage)
			for _, n := range []string{"_dmarc.good.example.com", "_mta-sts.good.example.com", "_smtp._tls.good.example.com"} {
				r.SetFault(n, dnstest.AnyType, dnstest.Garbage)
			}
		}, Config{})
		got, err := s.Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
		require.NoError(t, err)
		checkInvariants(t, got)
		n := undetermined(got.Checks)
		require.Equal(t, 4, n, "%d undetermined, incomplete %v; want 4, true", n, got.Incomplete())
		require.True(t, got.Incomplete(), "%d undetermined, incomplete %v; want 4, true", n, got.Incomplete())
		msg := "score %d summary %q; want 100 (mx and caa pass) and the incomplete summary"
		require.Equal(t, 100, got.Score, msg, got.Score, got.Summary.EN)
		require.Equal(t, txtOverallIncomplete.format(4, 6), got.Summary, msg, got.Score, got.Summary.EN)
	})
	t.Run("one inconclusive", func(t *testing.T) {
		s := memScanner(t, func(r *dnstest.Resolver) {
			r.SetFault("_smtp._tls.good.example.com", dnstest.AnyType, dnstest.Garbage)
		}, Config{})
		got, err := s.Scan(context.Background(), ScanRequest{Domain: "good.example.com"})
		require.NoError(t, err)
		// mx 15 + spf 20 + dmarc 25 + caa 5 pass, mta-sts 10 fails (no
		// HTTPS server in memory): 65/75 = 86.7; tls-rpt is left out.
		msg := "incomplete %v score %d grade %s; want a complete B 87"
		require.False(t, got.Incomplete(), msg, got.Incomplete(), got.Score, got.Grade)
		require.Equal(t, 87, got.Score, msg, got.Incomplete(), got.Score, got.Grade)
		require.Equal(t, GradeB, got.Grade, msg, got.Incomplete(), got.Score, got.Grade)
		want := joinTexts([]LocalizedText{txtOverallB.format(4, 6), txtOverallUndetermined.format(1)})
		require.Equal(t, want, got.Summary, "summary = %q, want %q", got.Summary.EN, want.EN)
	})
}

// verifyOnly is encode without its bytes, for tests of the guard.
func (r *run) verifyOnly(v any) error {
	_, err := r.encode(v)
	return err
}
