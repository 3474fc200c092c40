package mx

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

type fault = dnstest.FaultAt

type checkCase struct {
	name   string // scenario label; the domain is <name>.mx.test
	faults []fault
	want   Result
}

const zoneFile = "testdata/mx.zone"

func found(records int, exchanges []string, c Counts, findings ...Code) Result {
	return Result{Outcome: resolver.Found, Kind: KindExplicit, RecordCount: records, Exchanges: exchanges, Counts: c, Findings: findings}
}

func one(name string) []string { return []string{name + ".mx.test"} }

var checkCases = []checkCase{
	{name: "pass", want: found(1, one("mx1.pass"), Counts{Distinct: 1, Checked: 1, Usable: 1})},
	{name: "multiple", want: found(3, []string{"c.multiple.mx.test", "a.multiple.mx.test", "b.multiple.mx.test"},
		Counts{Distinct: 3, Checked: 3, Usable: 3})},
	{name: "null", want: Result{Outcome: resolver.Found, Kind: KindNull, RecordCount: 1}},
	{name: "null-mixed", want: found(2, one("mx.null-mixed"), Counts{Distinct: 1, Checked: 1, Usable: 1}, CodeNullMXMixed)},
	{name: "null-nonzero", want: Result{Outcome: resolver.Found, Kind: KindNull, RecordCount: 1, Findings: []Code{CodeNullMXInvalid}}},
	{name: "implicit", want: Result{Outcome: resolver.NoData, Kind: KindImplicit, Exchanges: one("implicit"),
		Counts: Counts{Distinct: 1, Checked: 1, Usable: 1}}},
	{name: "implicit-v6", want: Result{Outcome: resolver.NoData, Kind: KindImplicit, Exchanges: one("implicit-v6"),
		Counts: Counts{Distinct: 1, Checked: 1, Usable: 1, IPv6Only: 1}, Findings: []Code{CodeExchangeIPv6Only}}},
	{name: "implicit-private", want: Result{Outcome: resolver.NoData, Kind: KindImplicit, Exchanges: one("implicit-private"),
		Counts: Counts{Distinct: 1, Checked: 1, NotPublic: 1}, Findings: []Code{CodeExchangeNotPublic, CodeNoUsableExchange}}},
	{name: "implicit-servfail", faults: []fault{{Name: "implicit-servfail.mx.test", Type: resolver.TypeA, Fault: dnstest.ServFail}},
		want: Result{Outcome: resolver.NoData, Kind: KindInconclusive}},
	{name: "no-mx-no-a", want: Result{Outcome: resolver.NoData, Kind: KindNone}},
	{name: "absent", want: Result{Outcome: resolver.NXDomain, Kind: KindNXDomain}},
	{name: "cname-exchange", want: found(1, one("alias.cname-exchange"), Counts{Distinct: 1, Checked: 1, Usable: 1, Alias: 1}, CodeExchangeAlias)},
	{name: "dangling-cname", want: found(1, one("alias.dangling-cname"), Counts{Distinct: 1, Checked: 1, Alias: 1, NXDomain: 1},
		CodeExchangeAlias, CodeExchangeNXDomain, CodeNoUsableExchange)},
	{name: "cname-domain", want: Result{Outcome: resolver.Found, Kind: KindExplicit, DomainAliased: true, RecordCount: 1,
		Exchanges: one("mx1.pass"), Counts: Counts{Distinct: 1, Checked: 1, Usable: 1}}},
	{name: "ip-literal", want: found(1, []string{"192.0.2.7"}, Counts{Distinct: 1, Checked: 1, IPLiteral: 1},
		CodeExchangeIPLiteral, CodeNoUsableExchange)},
	{name: "dangling", want: found(1, one("gone.dangling"), Counts{Distinct: 1, Checked: 1, NXDomain: 1},
		CodeExchangeNXDomain, CodeNoUsableExchange)},
	{name: "no-address", want: found(1, one("host.no-address"), Counts{Distinct: 1, Checked: 1, NoAddress: 1},
		CodeExchangeNoAddress, CodeNoUsableExchange)},
	{name: "private", want: found(1, one("mx.private"), Counts{Distinct: 1, Checked: 1, NotPublic: 1},
		CodeExchangeNotPublic, CodeNoUsableExchange)},
	{name: "partly-private", want: found(2, []string{"a.partly-private.mx.test", "b.partly-private.mx.test"},
		Counts{Distinct: 2, Checked: 2, Usable: 1, NotPublic: 1}, CodeExchangeNotPublic)},
	{name: "all-bad", want: found(3, []string{"192.0.2.8", "gone.all-bad.mx.test", "mx.all-bad.mx.test"},
		Counts{Distinct: 3, Checked: 3, IPLiteral: 1, NXDomain: 1, NotPublic: 1},
		CodeExchangeIPLiteral, CodeExchangeNXDomain, CodeExchangeNotPublic, CodeNoUsableExchange)},
	{name: "many", want: found(12, manyExchanges(), Counts{Distinct: 12, Checked: 10, Usable: 10}, CodeTooManyExchanges)},
	{name: "duplicate", want: found(2, one("mx.duplicate"), Counts{Distinct: 1, Checked: 1, Usable: 1, Duplicated: 1}, CodeExchangeDuplicated)},
	{name: "v6-only", want: found(1, one("mx.v6-only"), Counts{Distinct: 1, Checked: 1, Usable: 1, IPv6Only: 1}, CodeExchangeIPv6Only)},
	{name: "non-ldh", want: found(1, one("mx_1.non-ldh"), Counts{Distinct: 1, Checked: 1, Usable: 1, NotHostname: 1}, CodeExchangeNotHostname)},
	{name: "servfail", faults: []fault{{Name: "servfail.mx.test", Type: resolver.TypeMX, Fault: dnstest.ServFail}},
		want: Result{Outcome: resolver.Inconclusive, Reason: resolver.ReasonServFail, Kind: KindInconclusive}},
	{name: "refused", faults: []fault{{Name: "refused.mx.test", Type: resolver.TypeMX, Fault: dnstest.Refused}},
		want: Result{Outcome: resolver.Inconclusive, Reason: resolver.ReasonRefused, Kind: KindInconclusive}},
	{name: "timeout", faults: []fault{{Name: "timeout.mx.test", Type: resolver.TypeMX, Fault: dnstest.Drop}},
		want: Result{Outcome: resolver.Inconclusive, Reason: resolver.ReasonTimeout, Kind: KindInconclusive}},
	{name: "garbage", faults: []fault{{Name: "garbage.mx.test", Type: resolver.TypeMX, Fault: dnstest.Garbage}},
		want: Result{Outcome: resolver.Inconclusive, Reason: resolver.ReasonMalformed, Kind: KindInconclusive}},
	// The in-memory resolver answers a truncated question in full; the
	// TCP fallback is covered over the real server below.
	{name: "truncated", faults: []fault{{Name: "truncated.mx.test", Type: resolver.TypeMX, Fault: dnstest.Truncate}},
		want: found(1, one("mx1.pass"), Counts{Distinct: 1, Checked: 1, Usable: 1})},
	{name: "exchange-servfail", faults: []fault{{Name: "mx.exchange-servfail.mx.test", Type: dnstest.AnyType, Fault: dnstest.ServFail}},
		want: found(1, one("mx.exchange-servfail"), Counts{Distinct: 1, Checked: 1, Inconclusive: 1}, CodeExchangeInconclusive)},
	{name: "exchange-partial", faults: []fault{{Name: "mx.exchange-partial.mx.test", Type: resolver.TypeAAAA, Fault: dnstest.ServFail}},
		want: found(1, one("mx.exchange-partial"), Counts{Distinct: 1, Checked: 1, Inconclusive: 1}, CodeExchangeInconclusive)},
	{name: "exchange-v6-fails", faults: []fault{{Name: "mx.exchange-v6-fails.mx.test", Type: resolver.TypeAAAA, Fault: dnstest.Drop}},
		want: found(1, one("mx.exchange-v6-fails"), Counts{Distinct: 1, Checked: 1, Usable: 1})},
}

func manyExchanges() []string {
	out := []string{"mx12.many.mx.test"}
	for i := 1; i <= 11; i++ {
		out = append(out, fmt.Sprintf("mx%02d.many.mx.test", i))
	}
	return out
}

// run checks tc's domain through r and reports a Result other than tc.want.
func (tc checkCase) run(t *testing.T, r resolver.Resolver) {
	t.Helper()
	got := Check(t.Context(), r, tc.name+".mx.test")
	assert.Equal(t, tc.want, got, "Check(%s)", tc.name)
}

func TestCheck(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, zoneFile)
	for _, tc := range checkCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := dnstest.NewResolver(z)
			r.Apply(tc.faults...)
			tc.run(t, r)
		})
	}
}

// TestCheckServer runs scenarios over real UDP and TCP: truncation makes
// the client retry over TCP, a dropped reply times out.
func TestCheckServer(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, zoneFile)
	byName := map[string]checkCase{}
	for _, tc := range checkCases {
		byName[tc.name] = tc
	}
	cases := []checkCase{
		byName["pass"], byName["truncated"], byName["timeout"], byName["implicit-v6"], byName["dangling-cname"],
		{name: "exchange-truncated", faults: []fault{{Name: "mx.exchange-truncated.mx.test", Type: resolver.TypeA, Fault: dnstest.Truncate}},
			want: found(1, one("mx.exchange-truncated"), Counts{Distinct: 1, Checked: 1, Usable: 1})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := dnstest.Start(t, z)
			srv.Apply(tc.faults...)
			tc.run(t, srv.PatientResolver())
			if tc.name == "truncated" {
				assert.Equal(t, 2, srv.Count("truncated.mx.test", resolver.TypeMX), "truncated: MX queries, want 2 (UDP then TCP)")
			}
		})
	}
}

// TestCheckQueries proves the lookup bounds: one MX query, A and AAAA per
// checked exchange, nothing for IP literals or beyond MaxExchanges, and no
// address lookup of the domain when MX records exist.
func TestCheckQueries(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, zoneFile)
	for _, tc := range []struct {
		domain string
		want   int
	}{
		{"many.mx.test", 1 + 2*MaxExchanges},
		{"ip-literal.mx.test", 1},
		{"null.mx.test", 1},
		{"pass.mx.test", 3},
		{"duplicate.mx.test", 3},
		{"implicit.mx.test", 3},
		{"absent.mx.test", 1},
	} {
		r := dnstest.NewResolver(z)
		Check(t.Context(), r, tc.domain)
		assert.Len(t, r.Queries(), tc.want, "%s: queries", tc.domain)
		if strings.HasPrefix(tc.domain, "many") {
			assert.Equal(t, 0, r.Count("mx11.many.mx.test", dnstest.AnyType), "many: the 11th exchange by preference was resolved")
		}
	}
}

func TestCheckNormalizesDomain(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, zoneFile)
	got := Check(t.Context(), dnstest.NewResolver(z), "Implicit.MX.Test.")
	assert.Equal(t, KindImplicit, got.Kind, "got %+v, want implicit MX with the canonical domain", got)
	assert.Equal(t, one("implicit"), got.Exchanges, "got %+v, want implicit MX with the canonical domain", got)
}

func TestCheckCanceled(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, zoneFile)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	got := Check(ctx, dnstest.NewResolver(z), "pass.mx.test")
	want := Result{Outcome: resolver.Inconclusive, Reason: resolver.ReasonCanceled, Kind: KindInconclusive}
	assert.Equal(t, want, got, "canceled")
}

// TestExchanges: Exchanges orders a Found answer's exchanges as
// Result.Exchanges does, without the root or duplicates.
func TestExchanges(t *testing.T) {
	recs := []resolver.Record{
		{Type: resolver.TypeMX, Preference: 20, Target: "b.example"},
		{Type: resolver.TypeMX, Preference: 10, Target: "c.example"},
		{Type: resolver.TypeMX, Preference: 20, Target: "a.example"},
		{Type: resolver.TypeMX, Preference: 5, Target: "b.example"},
		{Type: resolver.TypeMX, Preference: 0, Target: ""},
	}
	assert.Equal(t, []string{"b.example", "c.example", "a.example"}, Exchanges(recs))
	assert.Empty(t, Exchanges(nil))
}

// TestAddressNamesAreChecks: for every scenario (and the many-exchange,
// duplicate and cname-domain zones), the A and AAAA questions Check asks
// are AddressNames of its MX answer, each once for each type: what the
// scan asks before the check runs is what the check asks.
func TestAddressNamesAreChecks(t *testing.T) {
	t.Parallel()
	z := dnstest.MustLoad(t, zoneFile)
	domains := []string{"many.mx.test", "duplicate.mx.test"}
	for _, tc := range checkCases {
		domains = append(domains, tc.name+".mx.test")
	}
	faults := map[string][]fault{}
	for _, tc := range checkCases {
		faults[tc.name+".mx.test"] = tc.faults
	}
	for _, domain := range domains {
		r := dnstest.NewResolver(z)
		r.Apply(faults[domain]...)
		Check(t.Context(), r, domain)
		asked := map[resolver.Type][]string{}
		for _, q := range r.Queries() {
			if q.Type == resolver.TypeA || q.Type == resolver.TypeAAAA {
				asked[q.Type] = append(asked[q.Type], resolver.CanonicalName(q.Name))
			}
		}
		mx := dnstest.NewResolver(z)
		mx.Apply(faults[domain]...)
		want := AddressNames(domain, mx.Lookup(t.Context(), domain, resolver.TypeMX))
		for _, qt := range []resolver.Type{resolver.TypeA, resolver.TypeAAAA} {
			assert.ElementsMatch(t, want, asked[qt], "%s: %s questions", domain, qt)
		}
		if domain == "many.mx.test" {
			assert.Len(t, want, MaxExchanges, "many: only the exchanges Check resolves")
		}
	}
	assert.Empty(t, AddressNames("x.example", resolver.Answer{Outcome: resolver.NXDomain}), "NXDOMAIN: no exchange")
	assert.Empty(t, AddressNames("x.example", resolver.Fail(resolver.ReasonTimeout)), "inconclusive: no exchange")
}
