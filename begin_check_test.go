package mailauth

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/dkim"
	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestBegunCheckVerdictComesWithItsAnswer: a check that waits without a
// goroutine (DKIM) asks its question through its Starter and gets its
// verdict when the answer is handed on, from the goroutine that hands
// it on; the verdict is the one the same answer gives the check run on a
// goroutine of its own.
func TestBegunCheckVerdictComesWithItsAnswer(t *testing.T) {
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ A 8.8.8.8\n"))})
	r := s.newRun()
	r.domain.ASCII, r.sel = "x.example.com", "s1"
	held := &questionStarter{}
	spec, ok := specOf(CheckDKIM)
	require.True(t, ok)
	require.NotNil(t, spec.begin, "DKIM waits without a goroutine")

	got := make(chan verdict, 1)
	fn := r.beginFunc(CheckDKIM, spec.begin, &faultLog{next: held})
	fn(t.Context(), func(v verdict) { got <- v })
	require.Equal(t, []string{"s1._domainkey.x.example.com/TXT"}, held.asked(), "the selector's TXT question is started")
	select {
	case v := <-got:
		require.FailNow(t, "a verdict before the answer", "%+v", v)
	default:
	}
	key := resolver.Answer{Outcome: resolver.Found, Rcode: 0, Records: []resolver.Record{{Name: "s1._domainkey.x.example.com", Type: resolver.TypeTXT,
		TXT: []string{"v=DKIM1; k=ed25519; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="}}}}
	held.answer("s1._domainkey.x.example.com", resolver.TypeTXT, key)
	v := <-got
	want := judgeDKIM(dkim.Evaluate(key))
	assert.Equal(t, want.status, v.status)
	assert.Equal(t, want.determination, v.determination)
	assert.Equal(t, StatusPass, v.status, "an Ed25519 key passes")
}

// TestBegunCheckPanicFallsBack: a panic in a begun check's judge, on the
// goroutine that hands its answer on, gives the check the internal-error
// fallback and is reported through OnPanic; it does not reach the
// goroutine that handed the answer on.
func TestBegunCheckPanicFallsBack(t *testing.T) {
	var panicked []CheckID
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ A 8.8.8.8\n")),
		OnPanic: func(id CheckID) { panicked = append(panicked, id) }})
	r := s.newRun()
	held := &questionStarter{}
	begin := func(_ *run, ctx context.Context, dns resolver.Resolver, done func(func() verdict, bool)) {
		resolver.Start(ctx, dns, "x.example.com", resolver.TypeTXT, func(resolver.Answer) {
			done(func() verdict { panic("a bug in the judge") }, false)
		})
	}
	got := make(chan verdict, 2)
	fn := r.beginFunc(CheckDKIM, begin, &faultLog{next: held})
	fn(t.Context(), func(v verdict) { got <- v })
	require.NotPanics(t, func() { held.answer("x.example.com", resolver.TypeTXT, noData) })
	v := <-got
	assert.Equal(t, UndeterminedInternal, v.determination)
	assert.Equal(t, []CheckID{CheckDKIM}, panicked)
}

// TestBegunCheckThatWaitsHasItsOwnGoroutine: a begun check whose judge
// waits (TLS-RPT without a record waits for the MX facts) is judged on a
// goroutine of its own: the goroutine that hands the answer on returns
// while the judge still waits.
func TestBegunCheckThatWaitsHasItsOwnGoroutine(t *testing.T) {
	s := New(Config{Resolver: dnstest.NewResolver(dnstest.MustParse(t, "$ORIGIN x.example.com.\n@ A 8.8.8.8\n"))})
	r := s.newRun()
	held := &questionStarter{}
	release := make(chan struct{})
	begin := func(_ *run, ctx context.Context, dns resolver.Resolver, done func(func() verdict, bool)) {
		resolver.Start(ctx, dns, "x.example.com", resolver.TypeTXT, func(resolver.Answer) {
			done(func() verdict {
				<-release
				return infoVerdict(txtDKIMNotEvaluated, txtDKIMNotEvaluatedDetails)
			}, true)
		})
	}
	got := make(chan verdict, 1)
	fn := r.beginFunc(CheckTLSRPT, begin, &faultLog{next: held})
	fn(t.Context(), func(v verdict) { got <- v })
	held.answer("x.example.com", resolver.TypeTXT, noData) // returns: the judge waits elsewhere
	close(release)
	v := <-got
	assert.Equal(t, Determined, v.determination)
}
