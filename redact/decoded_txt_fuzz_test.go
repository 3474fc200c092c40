package redact

import (
	"slices"
	"strings"
	"testing"

	"github.com/mailauth/mailauth/resolver"
	"github.com/miekg/dns"
	"github.com/stretchr/testify/require"
)

// A TXT record decoded from a reply (its strings pieces of the kept joined
// text) records what the same strings in a plain slice record.
func FuzzDecodedTXT(f *testing.F) {
	f.Add("v=spf1 ip4:192.0.2.7/24 include:_spf.Example.net ~all", uint8(7))
	f.Add("v=spf1 include:a.example\\032include:B.example -all", uint8(3))
	f.Add("v=DMARC1; rua=mailto:a@b.example?x#y,https://h.example/p", uint8(0))
	f.Fuzz(func(t *testing.T, text string, chunk uint8) {
		parts := chunks(text, int(chunk))
		if len(parts) > 255 {
			parts = parts[:255]
		}
		m := new(dns.Msg)
		m.SetQuestion("a.example.", dns.TypeTXT)
		m.Rcode = dns.RcodeSuccess
		m.Answer = []dns.RR{&dns.TXT{Hdr: dns.RR_Header{Name: "a.example.", Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 60}, Txt: parts}}
		a, _ := resolver.FromMsg("a.example.", resolver.TypeTXT, m)
		if a.Outcome != resolver.Found || len(a.Records) != 1 {
			return
		}
		r := a.Records[0]
		plain := r
		plain.TXT = slices.Clip(slices.Clone(r.TXT))
		require.Equal(t, strings.Join(plain.TXT, ""), r.JoinedTXT())
		got, want := NewSet(), NewSet()
		got.addAnswer(a)
		want.addAnswer(resolver.Answer{Outcome: resolver.Found, Records: []resolver.Record{plain}})
		require.Equal(t, want.Len(), got.Len())
		searches := append([]string{r.JoinedTXT()}, r.TXT...)
		searches = append(searches, tokens(r.JoinedTXT())...)
		for _, s := range searches {
			require.Equal(t, want.Contains(s), got.Contains(s), "%q", s)
			require.Equal(t, want.Contains(strings.ToUpper(s)), got.Contains(strings.ToUpper(s)), "%q", s)
		}
	})
}
