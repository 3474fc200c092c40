package resolver

import (
	"net"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
)

// flakyRR is a record whose header says TXT at the calls of Header in
// txtAt and A at the others: only a type outside miekg/dns, which
// unpacks none, can do that.
type flakyRR struct {
	*dns.A
	calls *int
	txtAt map[int]bool
}

func (f flakyRR) Header() *dns.RR_Header {
	*f.calls++
	h := f.A.Hdr
	if f.txtAt[*f.calls] {
		h.Rrtype = dns.TypeTXT
	}
	return &h
}

// TestFromMsgHeaderNotPure: recordsAt counts the records it will decode
// (countAt) when it meets the first and then fills that many slots; a
// record whose Header says another type when countAt asks breaks the
// count. The reference appends and cannot overrun.
func TestFromMsgHeaderNotPure(t *testing.T) {
	n := 0
	// Calls 1 and 2 are recordsAt's at the first record (A); 3 to 6
	// are countAt's, two per record, the second of each its type.
	rr := flakyRR{A: &dns.A{Hdr: dns.RR_Header{Name: "a.test.", Rrtype: dns.TypeA, Class: dns.ClassINET}, A: net.IPv4(192, 0, 2, 1)},
		calls: &n, txtAt: map[int]bool{4: true, 6: true}}
	m := &dns.Msg{Answer: []dns.RR{rr, rr}}
	n = 0
	want := callFromMsg(refFromMsg, "a.test", TypeA, m)
	n = 0
	got := callFromMsg(FromMsg, "a.test", TypeA, m)
	assert.Empty(t, want.panicked, "reference")
	assert.Empty(t, got.panicked, "FromMsg")
}
