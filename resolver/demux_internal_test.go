package resolver

import (
	"strings"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// demuxPending is the query table of the demux tests: one question in
// flight under ID 0x1234.
func demuxPending(id uint16) (dns.Question, bool) {
	if id != 0x1234 {
		return dns.Question{}, false
	}
	return dns.Question{Name: "a.example.test.", Qtype: dns.TypeA, Qclass: dns.ClassINET}, true
}

func packedReply(t testing.TB, edit func(m *dns.Msg)) []byte {
	t.Helper()
	q := new(dns.Msg)
	q.SetQuestion("a.example.test.", dns.TypeA)
	q.Id = 0x1234
	m := new(dns.Msg)
	m.SetReply(q)
	edit(m)
	b, err := m.Pack()
	require.NoError(t, err)
	return b
}

func TestDemux(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(m *dns.Msg)
		wantErr error
	}{
		{"match", func(*dns.Msg) {}, nil},
		{"match-other-case", func(m *dns.Msg) { m.Question[0].Name = "A.Example.TEST." }, nil},
		{"unknown-id", func(m *dns.Msg) { m.Id = 0x1235 }, errUnknownID},
		{"other-name", func(m *dns.Msg) { m.Question[0].Name = "b.example.test." }, errNotReply},
		{"other-type", func(m *dns.Msg) { m.Question[0].Qtype = dns.TypeAAAA }, errNotReply},
		{"other-class", func(m *dns.Msg) { m.Question[0].Qclass = dns.ClassCHAOS }, errNotReply},
		{"no-question", func(m *dns.Msg) { m.Question = nil }, errNotReply},
		{"two-questions", func(m *dns.Msg) { m.Question = append(m.Question, m.Question[0]) }, errNotReply},
		{"a-query", func(m *dns.Msg) { m.Response = false }, errNotReply},
		{"other-opcode", func(m *dns.Msg) { m.Opcode = dns.OpcodeNotify }, errNotReply},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id, m, err := demux(packedReply(t, tc.edit), demuxPending)
			if tc.wantErr != nil {
				assert.ErrorIs(t, err, tc.wantErr)
				assert.Nil(t, m)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, uint16(0x1234), id)
			assert.Equal(t, uint16(0x1234), m.Id)
		})
	}
	_, _, err := demux([]byte{0x12, 0x34, 0x81}, demuxPending)
	assert.ErrorIs(t, err, errShort)
	_, _, err = demux([]byte{0x12, 0x34, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 0x3f, 'x'}, demuxPending)
	assert.ErrorIs(t, err, errUndecodable, "a known ID on a datagram that is no DNS message")
	_, _, err = demux([]byte{0x12, 0x35, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 0x3f, 'x'}, demuxPending)
	assert.ErrorIs(t, err, errUnknownID, "an unknown ID is dropped before decoding")
}

// FuzzDemux: whatever arrives, demux never panics, and it hands a message
// to a query only when the message's ID, QR bit and question match it.
func FuzzDemux(f *testing.F) {
	f.Add(packedReply(f, func(*dns.Msg) {}))
	f.Add(packedReply(f, func(m *dns.Msg) { m.Question[0].Name = "b.example.test." }))
	f.Add(packedReply(f, func(m *dns.Msg) { m.Response = false }))
	f.Add(packedReply(f, func(m *dns.Msg) {
		m.Answer = []dns.RR{&dns.A{Hdr: dns.RR_Header{Name: "a.example.test.", Rrtype: dns.TypeA, Class: dns.ClassINET}, A: []byte{192, 0, 2, 1}}}
	}))
	f.Add([]byte{0x12, 0x34, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 0x3f, 'x'})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		id, m, err := demux(b, demuxPending)
		if err != nil {
			require.Nil(t, m, "error %v with a message", err)
			return
		}
		q, ok := demuxPending(id)
		require.True(t, ok && m != nil && m.Id == id && m.Response && len(m.Question) == 1,
			"matched a datagram that answers no query in flight: id %#x, %v", id, m)
		got := m.Question[0]
		require.True(t, got.Qtype == q.Qtype && got.Qclass == q.Qclass && strings.EqualFold(got.Name, q.Name),
			"matched question %v, want %v", got, q)
	})
}
