package resolver

import (
	"strings"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The query in flight in the demux tests: ID 0x1234, its name sent in
// mixed case (0x20), with a client cookie.
const (
	demuxID     = 0x1234
	demuxName   = "a.ExAmPle.TeST."
	demuxCookie = "0102030405060708"
)

// demuxTable returns the query table of the demux tests: the one question
// in flight under demuxID, exact when exact, requiring a cookie when
// needCookie.
func demuxTable(exact, needCookie bool) func(id uint16) (expect, bool) {
	return func(id uint16) (expect, bool) {
		if id != demuxID {
			return expect{}, false
		}
		return expect{q: dns.Question{Name: demuxName, Qtype: dns.TypeA, Qclass: dns.ClassINET}, exact: exact,
			cookie: demuxCookie, needCookie: needCookie}, true
	}
}

func packedReply(t testing.TB, edit func(m *dns.Msg)) []byte {
	t.Helper()
	q := new(dns.Msg)
	q.SetQuestion(demuxName, dns.TypeA)
	q.Id = demuxID
	m := new(dns.Msg)
	m.SetReply(q)
	edit(m)
	b, err := m.Pack()
	require.NoError(t, err)
	return b
}

// withCookieOpt adds a COOKIE option (hex) to m.
func withCookieOpt(m *dns.Msg, cookie string) {
	m.SetEdns0(1232, false)
	opt := m.IsEdns0()
	opt.Option = append(opt.Option, &dns.EDNS0_COOKIE{Code: dns.EDNS0COOKIE, Cookie: cookie})
}

func TestDemux(t *testing.T) {
	const serverCookie = "1112131415161718"
	tests := []struct {
		name       string
		edit       func(m *dns.Msg)
		exact      bool
		needCookie bool
		want       dropKind
	}{
		{"match", func(*dns.Msg) {}, true, false, dropNone},
		{"match-any-case-when-not-exact", func(m *dns.Msg) { m.Question[0].Name = "a.example.test." }, false, false, dropNone},
		{"lower-case-when-exact", func(m *dns.Msg) { m.Question[0].Name = "a.example.test." }, true, false, dropWrongCase},
		{"other-case-when-exact", func(m *dns.Msg) { m.Question[0].Name = "A.ExAmPle.TeST." }, true, false, dropWrongCase},
		{"unknown-id", func(m *dns.Msg) { m.Id = 0x1235 }, true, false, dropUnmatchedID},
		{"other-name", func(m *dns.Msg) { m.Question[0].Name = "b.ExAmPle.TeST." }, true, false, dropWrongQuestion},
		{"other-name-not-exact", func(m *dns.Msg) { m.Question[0].Name = "b.example.test." }, false, false, dropWrongQuestion},
		{"other-type", func(m *dns.Msg) { m.Question[0].Qtype = dns.TypeAAAA }, true, false, dropWrongQuestion},
		{"other-class", func(m *dns.Msg) { m.Question[0].Qclass = dns.ClassCHAOS }, true, false, dropWrongQuestion},
		{"no-question", func(m *dns.Msg) { m.Question = nil }, true, false, dropWrongQuestion},
		{"two-questions", func(m *dns.Msg) { m.Question = append(m.Question, m.Question[0]) }, true, false, dropWrongQuestion},
		{"a-query", func(m *dns.Msg) { m.Response = false }, true, false, dropWrongQuestion},
		{"other-opcode", func(m *dns.Msg) { m.Opcode = dns.OpcodeNotify }, true, false, dropWrongQuestion},
		{"our-cookie", func(m *dns.Msg) { withCookieOpt(m, demuxCookie+serverCookie) }, true, true, dropNone},
		{"our-cookie-not-needed", func(m *dns.Msg) { withCookieOpt(m, demuxCookie+serverCookie) }, true, false, dropNone},
		{"other-cookie", func(m *dns.Msg) { withCookieOpt(m, "0102030405060709"+serverCookie) }, true, false, dropWrongCookie},
		{"other-cookie-needed", func(m *dns.Msg) { withCookieOpt(m, "0102030405060709"+serverCookie) }, true, true, dropWrongCookie},
		{"no-cookie-needed", func(*dns.Msg) {}, true, true, dropNoCookie},
		{"no-cookie-option-needed", func(m *dns.Msg) { m.SetEdns0(1232, false) }, true, true, dropNoCookie},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id, m, kind := demux(packedReply(t, tc.edit), demuxTable(tc.exact, tc.needCookie))
			require.Equal(t, tc.want, kind)
			if tc.want != dropNone {
				assert.Nil(t, m)
				return
			}
			require.NotNil(t, m)
			assert.Equal(t, uint16(demuxID), id)
			assert.Equal(t, uint16(demuxID), m.Id)
		})
	}
	table := demuxTable(true, false)
	_, _, kind := demux([]byte{0x12, 0x34, 0x81}, table)
	assert.Equal(t, dropUndecodable, kind, "shorter than a header")
	_, _, kind = demux([]byte{0x12, 0x34, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 0x3f, 'x'}, table)
	assert.Equal(t, dropUndecodable, kind, "a known ID on a datagram that is no DNS message")
	_, _, kind = demux([]byte{0x12, 0x35, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 0x3f, 'x'}, table)
	assert.Equal(t, dropUnmatchedID, kind, "an unknown ID is dropped before decoding")
	assert.Equal(t, []string{"unmatched_id", "undecodable", "wrong_question", "wrong_case", "wrong_cookie", "wrong_source", "icmp"}, SpoofDropKinds())
}

func TestMixCase(t *testing.T) {
	const name = "_dmarc.mail-1.example.com."
	seen := map[string]bool{}
	for range 64 {
		got := mixCase(name)
		require.True(t, strings.EqualFold(got, name), "%q is %q in another case", got, name)
		for i := range got {
			if c := name[i] | 0x20; c < 'a' || c > 'z' {
				require.Equal(t, name[i], got[i], "only letters change: %q", got)
			}
		}
		seen[got] = true
	}
	// 19 letters: 64 draws of 2^19 cases collide with odds below 2^-7.
	assert.Greater(t, len(seen), 60, "the case is drawn at random")
	assert.Equal(t, "1.2.0.192.-.", mixCase("1.2.0.192.-."), "no letters, nothing to change")
}

// FuzzDemux: whatever arrives, demux never panics, and it hands a message
// to a query only when the message's ID, QR bit, opcode, question (name
// byte for byte when exact) and cookie match it.
func FuzzDemux(f *testing.F) {
	f.Add(packedReply(f, func(*dns.Msg) {}), true, false)
	f.Add(packedReply(f, func(m *dns.Msg) { m.Question[0].Name = "a.example.test." }), true, false)
	f.Add(packedReply(f, func(m *dns.Msg) { m.Question[0].Name = "b.example.test." }), false, false)
	f.Add(packedReply(f, func(m *dns.Msg) { m.Response = false }), true, false)
	f.Add(packedReply(f, func(m *dns.Msg) { withCookieOpt(m, demuxCookie+"1112131415161718") }), true, true)
	f.Add(packedReply(f, func(m *dns.Msg) { withCookieOpt(m, "ffffffffffffffff1112131415161718") }), true, false)
	f.Add(packedReply(f, func(m *dns.Msg) {
		m.Answer = []dns.RR{&dns.A{Hdr: dns.RR_Header{Name: demuxName, Rrtype: dns.TypeA, Class: dns.ClassINET}, A: []byte{192, 0, 2, 1}}}
	}), true, false)
	f.Add([]byte{0x12, 0x34, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 0x3f, 'x'}, true, false)
	f.Add([]byte{}, false, false)
	f.Fuzz(func(t *testing.T, b []byte, exact, needCookie bool) {
		table := demuxTable(exact, needCookie)
		id, m, kind := demux(b, table)
		if kind != dropNone {
			require.Nil(t, m, "dropped (%d) with a message", kind)
			require.Less(t, kind, numDropKinds)
			return
		}
		want, ok := table(id)
		require.True(t, ok && m != nil && m.Id == id && m.Response && m.Opcode == dns.OpcodeQuery && len(m.Question) == 1,
			"matched a datagram that answers no query in flight: id %#x, %v", id, m)
		got := m.Question[0]
		require.True(t, got.Qtype == want.q.Qtype && got.Qclass == want.q.Qclass && strings.EqualFold(got.Name, want.q.Name),
			"matched question %v, want %v", got, want.q)
		if exact {
			require.Equal(t, want.q.Name, got.Name, "0x20: the name byte for byte")
		}
		c, has := cookieOf(m)
		if has {
			require.True(t, strings.HasPrefix(c, demuxCookie), "matched with another client cookie %q", c)
		}
		if needCookie {
			require.True(t, has, "matched without a cookie from a server that sends them")
		}
	})
}
