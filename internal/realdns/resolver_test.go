package realdns_test

import (
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/realdns"
)

// answer is what one query to a resolver gave.
type answer struct {
	msg *dns.Msg
	err error
}

// rcode is the answer's rcode name, or "timeout"/"error" without one.
func (a answer) rcode() string {
	if a.err != nil {
		return "no answer"
	}
	return dns.RcodeToString[a.msg.Rcode]
}

// ede returns the RFC 8914 Extended DNS Error codes of the answer.
func (a answer) ede() []uint16 {
	if a.msg == nil {
		return nil
	}
	var codes []uint16
	if o := a.msg.IsEdns0(); o != nil {
		for _, op := range o.Option {
			if e, ok := op.(*dns.EDNS0_EDE); ok {
				codes = append(codes, e.InfoCode)
			}
		}
	}
	return codes
}

// count returns how many answer records of type t the answer has.
func (a answer) count(t uint16) int {
	if a.msg == nil {
		return 0
	}
	n := 0
	for _, rr := range a.msg.Answer {
		if rr.Header().Rrtype == t {
			n++
		}
	}
	return n
}

// query is one recursive query with EDNS0 (DO set).
func query(name string, qtype uint16, cd bool) *dns.Msg {
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	m.SetEdns0(1232, true)
	m.CheckingDisabled = cd
	return m
}

// ask sends one recursive query to server and returns its reply, however
// late ([realdns.Exchange]: sent again every second, the first reply to
// any send taken, within a hang bound): what the resolver says, never
// how fast a loaded machine let it say it.
func ask(server, name string, qtype uint16, cd bool) answer {
	in, err := realdns.Exchange(server, query(name, qtype, cd))
	return answer{msg: in, err: err}
}

// askSilent sends one query to a server that must not give data (nothing
// listens, it never replies, or the resolver of a domain whose servers do
// neither), and gives up after 3 s: a reply with data, early or late,
// fails the test either way, and no reply and SERVFAIL are both what it
// expects, so the time decides nothing.
func askSilent(server, name string, qtype uint16) answer {
	c := &dns.Client{Timeout: 3 * time.Second}
	in, _, err := c.Exchange(query(name, qtype, false), server)
	return answer{msg: in, err: err}
}

// askUntil repeats a query until done accepts its answer or attempts run
// out, and returns every answer. Unbound drops a query it cannot answer
// within its discard-timeout (1.9 s) and answers the next one from what it
// learnt meanwhile, so the first answer alone says little.
func askUntil(server, name string, qtype uint16, attempts int, done func(answer) bool) []answer {
	var all []answer
	for range attempts {
		a := ask(server, name, qtype, false)
		all = append(all, a)
		if done(a) {
			break
		}
	}
	return all
}

// rcodes lists the rcode names of answers.
func rcodes(as []answer) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.rcode()
	}
	return out
}

// noData asks the resolver twice for the MX of a domain whose servers do
// not answer: Unbound drops the query after its discard-timeout (the
// client sees no answer) or answers SERVFAIL, never data.
func noData(t *testing.T, r, domain string) {
	t.Helper()
	as := []answer{askSilent(r, domain, dns.TypeMX), askSilent(r, domain, dns.TypeMX)}
	for _, a := range as {
		assert.Contains(t, []string{"no answer", "SERVFAIL"}, a.rcode(), "%v", rcodes(as))
		assert.Zero(t, a.count(dns.TypeMX))
	}
	t.Logf("%s: %v, EDE %v", domain, rcodes(as), as[len(as)-1].ede())
}

// TestResolverFacts: what the real validating resolver (Unbound 1.17,
// Debian defaults, ede: yes) says about each scenario, asked directly.
// These are the facts the scanner's attribution must read; they hold
// whatever the scanner does.
func TestResolverFacts(t *testing.T) {
	w := realdns.Start(t)
	r := w.Resolver(t)

	t.Run("signed: NOERROR, validated (AD)", func(t *testing.T) {
		a := ask(r, realdns.Signed, dns.TypeMX, false)
		require.NoError(t, a.err)
		assert.Equal(t, "NOERROR", a.rcode())
		assert.True(t, a.msg.AuthenticatedData, "AD bit")
		assert.Equal(t, 1, a.count(dns.TypeMX))
	})
	t.Run("bogus: SERVFAIL with a DNSSEC EDE, an answer with CD", func(t *testing.T) {
		a := ask(r, realdns.Bogus, dns.TypeMX, false)
		require.NoError(t, a.err)
		assert.Equal(t, "SERVFAIL", a.rcode())
		require.NotEmpty(t, a.ede(), "EDE option")
		assert.True(t, a.ede()[0] >= dns.ExtendedErrorCodeDNSBogus && a.ede()[0] <= dns.ExtendedErrorCodeNSECMissing,
			"EDE %v is one of 6..12 (DNSSEC)", a.ede())
		cd := ask(r, realdns.Bogus, dns.TypeMX, true)
		require.NoError(t, cd.err)
		assert.Equal(t, "NOERROR", cd.rcode())
		assert.Equal(t, 1, cd.count(dns.TypeMX), "the data is there without validation")
		assert.False(t, cd.msg.AuthenticatedData)
	})
	t.Run("refused: NSD answers REFUSED, the resolver SERVFAIL", func(t *testing.T) {
		direct := ask(w.NSD, realdns.Refused, dns.TypeMX, false)
		require.NoError(t, direct.err)
		assert.Equal(t, "REFUSED", direct.rcode())
		a := ask(r, realdns.Refused, dns.TypeMX, false)
		require.NoError(t, a.err)
		assert.Equal(t, "SERVFAIL", a.rcode())
	})
	t.Run("lame: the dead port refuses; the resolver gives no data", func(t *testing.T) {
		t.Parallel()
		assert.Error(t, askSilent(w.Lame, realdns.Lame, dns.TypeMX).err, "nothing listens")
		noData(t, r, realdns.Lame)
	})
	t.Run("blackhole: never answers; the resolver gives no data", func(t *testing.T) {
		t.Parallel()
		assert.Error(t, askSilent(w.Blackhole, realdns.Blackhole, dns.TypeMX).err, "the blackhole answered")
		noData(t, r, realdns.Blackhole)
	})
	for _, d := range []string{realdns.Slow1, realdns.Slow3} {
		t.Run(d+": answered once Unbound has it", func(t *testing.T) {
			t.Parallel()
			as := askUntil(r, d, dns.TypeMX, 6, func(a answer) bool { return a.err == nil })
			last := as[len(as)-1]
			require.NoError(t, last.err, "an answer within %d attempts: %v", len(as), rcodes(as))
			assert.Equal(t, "NOERROR", last.rcode())
			assert.Equal(t, 1, last.count(dns.TypeMX))
			t.Logf("%s: %v", d, rcodes(as))
		})
	}
	t.Run("loop: SERVFAIL", func(t *testing.T) {
		a := ask(r, realdns.Loop, dns.TypeMX, false)
		require.NoError(t, a.err)
		assert.Equal(t, "SERVFAIL", a.rcode())
	})
	t.Run("chain: 11 CNAMEs followed", func(t *testing.T) {
		a := ask(r, realdns.Chain, dns.TypeMX, false)
		require.NoError(t, a.err)
		assert.Equal(t, "NOERROR", a.rcode())
		assert.Equal(t, realdns.ChainLinks, a.count(dns.TypeCNAME))
		assert.Equal(t, 1, a.count(dns.TypeMX))
	})
	t.Run("long chain: 12 CNAMEs are one too many", func(t *testing.T) {
		a := ask(r, realdns.LongChain, dns.TypeMX, false)
		require.NoError(t, a.err)
		assert.Equal(t, "SERVFAIL", a.rcode())
		direct := ask(w.NSD, realdns.LongChain, dns.TypeMX, false)
		require.NoError(t, direct.err)
		assert.Equal(t, realdns.LongChainLinks, direct.count(dns.TypeCNAME), "NSD serves the whole chain")
	})
	t.Run("servfail-all resolver", func(t *testing.T) {
		sf := w.ServfailResolver(t)
		for _, q := range []struct {
			name  string
			qtype uint16
		}{{".", dns.TypeSOA}, {"example.com", dns.TypeSOA}, {realdns.Signed, dns.TypeMX}} {
			a := ask(sf, q.name, q.qtype, false)
			require.NoError(t, a.err)
			assert.Equal(t, "SERVFAIL", a.rcode(), q.name)
			assert.NotEmpty(t, a.ede(), "%s: EDE", q.name)
		}
	})
	t.Run("dead resolver", func(t *testing.T) {
		a := askSilent(w.DeadResolver(t), ".", dns.TypeSOA)
		assert.Error(t, a.err)
	})
}
