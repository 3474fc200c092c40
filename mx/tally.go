package mx

import "github.com/mailauth/mailauth/internal/findings"

// tally sums the facts of the checked hosts; distinct is the number of
// distinct exchanges, checked or not.
func tally(hosts []host, distinct int) Counts {
	c := Counts{Distinct: distinct, Checked: len(hosts)}
	for _, h := range hosts {
		c.Alias += b2i(h.alias)
		c.NotHostname += b2i(h.notHostname)
		c.IPv6Only += b2i(h.ipv6Only)
		c.Duplicated += b2i(h.duplicated)
		switch h.state {
		case stateUsable:
			c.Usable++
		case stateNotPublic:
			c.NotPublic++
		case stateNXDomain:
			c.NXDomain++
		case stateNoAddress:
			c.NoAddress++
		case stateInconclusive:
			c.Inconclusive++
		case stateIPLiteral:
			c.IPLiteral++
		}
	}
	return c
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// addCounts adds the findings the counts imply; truncated tells that some
// exchanges were not checked.
func addCounts(f *findings.Set[Code], c Counts, truncated bool) {
	for _, x := range []struct {
		n    int
		code Code
	}{
		{c.Alias, CodeExchangeAlias}, {c.IPLiteral, CodeExchangeIPLiteral},
		{c.NotHostname, CodeExchangeNotHostname}, {c.NXDomain, CodeExchangeNXDomain},
		{c.NoAddress, CodeExchangeNoAddress}, {c.NotPublic, CodeExchangeNotPublic},
		{c.IPv6Only, CodeExchangeIPv6Only}, {c.Duplicated, CodeExchangeDuplicated},
		{c.Inconclusive, CodeExchangeInconclusive},
	} {
		if x.n > 0 {
			f.Add(x.code)
		}
	}
	if c.Checked > 0 && c.Usable == 0 && c.Inconclusive == 0 && !truncated {
		f.Add(CodeNoUsableExchange)
	}
}
