package resolver

import (
	"net"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPadded: a DNS-over-TLS query is padded to a multiple of 128
// octets (RFC 8467 block-length padding), whatever the name's length,
// and keeps its question and ID.
func TestPadded(t *testing.T) {
	t.Parallel()
	c := &Client{}
	for _, name := range []string{"", "a.test", "_dmarc.a-rather-long-label-of-a-domain.example.com", "x.y"} {
		q := c.query(name, TypeTXT, false)
		b, err := padded(q, 4242)
		require.NoError(t, err)
		assert.Zero(t, len(b)%dotPadBlock, "%q: %d octets", name, len(b))
		m := new(dns.Msg)
		require.NoError(t, m.Unpack(b))
		assert.Equal(t, uint16(4242), m.Id)
		assert.Equal(t, q.Question, m.Question)
		assert.Nil(t, q.IsEdns0().Option, "the caller's query is not changed")
	}
}

// FuzzDoTReader: whatever a DNS-over-TLS server sends, the reader never
// panics and hands a question only an answer with its ID and its
// question; when the connection ends, the question fails.
func FuzzDoTReader(f *testing.F) {
	q := (&Client{}).query("a.test", TypeA, false)
	good := q.Copy()
	good.Id, good.Response = 7, true
	wire, err := good.Pack()
	require.NoError(f, err)
	f.Add(append([]byte{0, byte(len(wire))}, wire...))
	f.Add([]byte{0, 14, 0, 7, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 0x3f, 'x'})
	f.Add([]byte{0xff, 0xff, 1})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, stream []byte) {
		client, server := net.Pipe()
		dc := &dotConn{pool: &dotPool{}, conn: client, pending: map[uint16]dotWait{}, idle: time.NewTimer(time.Hour)}
		ch := make(chan *dns.Msg, 1)
		dc.pending[7] = dotWait{q: q.Question[0], ch: ch}
		go func() {
			_, _ = server.Write(stream)
			_ = server.Close()
		}()
		dc.read()
		m, ok := <-ch
		if ok {
			require.NotNil(t, m)
			assert.Equal(t, uint16(7), m.Id)
			assert.True(t, m.Response)
			assert.True(t, sameDoTQuestion(q.Question[0], m.Question[0]))
		}
		assert.True(t, dc.isClosed())
	})
}
