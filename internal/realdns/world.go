package realdns

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/mailauth/mailauth/internal/testlab"
)

// World is the running set of authoritative servers, proxies and policy
// server of one test. Resolvers over it are started with [World.Resolver].
type World struct {
	// HTTPSPort is the port of the MTA-STS policy server on 127.0.0.1.
	HTTPSPort int
	// CAFile is the PEM file of the test CA that signed its certificate.
	CAFile string
	// Knot and NSD are the addresses of the two authoritative servers.
	Knot, NSD string
	// Lame is the dead port Lame is delegated to; Blackhole the server
	// that never answers.
	Lame, Blackhole string

	dir        string
	stubs      []stub
	anchors    []string
	insecure   []string
	rootAnchor string
}

// Start writes and signs the zones and starts the authoritative servers,
// the proxies and the MTA-STS policy server. Everything stops when tb
// ends. It fails (CI=true) or skips the test when a program is missing.
func Start(tb testing.TB) *World {
	tb.Helper()
	Need(tb, Programs...)
	w := &World{dir: tb.TempDir()}
	// The root is signed, as the real one is, with its key-signing key
	// as the validating resolver's trust anchor: a validating resolver
	// sets AD on the root's SOA, which is how mailauth learns that it
	// validates (resolver.Properties). It delegates com (unsigned, no
	// DS), so that its signed denials (NSEC) never deny com's names to
	// a resolver that uses them (RFC 8198, RFC 8020: Unbound's
	// defaults). com, example.com and the other unsigned zones are
	// domain-insecure; every zone is a stub of the resolver.
	root := sign(tb, w.dir, ".", zoneFile(tb, w.dir, ".", soa+"com NS ns.com.\nns.com. A 127.0.0.1\n"), false)
	zones := []zoneConf{
		{".", root.file},
		{"com", zoneFile(tb, w.dir, "com", soa)},
		{"example.com", zoneFile(tb, w.dir, "example.com", soa)},
		{Slow1, zoneFile(tb, w.dir, Slow1, configured(Slow1))},
		{Slow3, zoneFile(tb, w.dir, Slow3, configured(Slow3))},
		{reverseZone, zoneFile(tb, w.dir, reverseZone, reverseRecords())},
	}
	good := sign(tb, w.dir, Signed, zoneFile(tb, w.dir, Signed, configured(Signed)+tlsaRecord), false)
	bogus := sign(tb, w.dir, Bogus, zoneFile(tb, w.dir, Bogus, configured(Bogus)), true)
	dane := sign(tb, w.dir, DANEOnly, zoneFile(tb, w.dir, DANEOnly, daneOnly(DANEOnly)), false)
	zones = append(zones, zoneConf{Signed, good.file}, zoneConf{Bogus, bogus.file}, zoneConf{DANEOnly, dane.file})
	w.anchors = []string{root.anchor, good.anchor, bogus.anchor, dane.anchor}
	w.rootAnchor = wrongRootAnchor(tb, w.dir)
	w.Knot = startKnot(tb, w.dir, zones)
	w.NSD = startNSD(tb, w.dir, []zoneConf{{cnameZone, zoneFile(tb, w.dir, cnameZone, cnameRecords())}})
	w.Lame, w.Blackhole = deadAddr(tb), startBlackhole(tb)
	w.stubs = []stub{
		{".", w.Knot}, {"com", w.Knot}, {"example.com", w.Knot},
		{Signed, w.Knot}, {Bogus, w.Knot}, {DANEOnly, w.Knot}, {reverseZone, w.Knot},
		{Slow1, startDelay(tb, w.Knot, time.Second)},
		{Slow3, startDelay(tb, w.Knot, 3*time.Second)},
		{cnameZone, w.NSD},
		{Refused, w.NSD},
		{Lame, w.Lame},
		{Blackhole, w.Blackhole},
	}
	w.insecure = []string{"com", "example.com", Slow1, Slow3, cnameZone, Refused, Lame, Blackhole, reverseZone}
	w.startPolicies(tb)
	return w
}

// startPolicies serves the MTA-STS policy of every configured domain.
func (w *World) startPolicies(tb testing.TB) {
	tb.Helper()
	policies := map[string]string{}
	for _, d := range []string{Signed, Bogus, Slow1, Slow3, Chain, LongChain} {
		policies["mta-sts."+d] = policy(d)
	}
	lab := testlab.Start(tb, nil, policies)
	w.HTTPSPort = lab.HTTPSPort
	w.CAFile = filepath.Join(w.dir, "ca.pem")
	writeFile(tb, w.CAFile, string(lab.CAPEM))
}

// Resolver starts a validating Unbound over the world (its own cache,
// cold) and returns its address, 127.0.0.1:port.
func (w *World) Resolver(tb testing.TB) string {
	tb.Helper()
	return startUnbound(tb, w.dir, unboundConf{stubs: w.stubs, anchors: w.anchors, insecure: w.insecure})
}

// NonValidatingResolver starts an Unbound over the world with DNSSEC
// validation off (module-config "iterator"): it answers the bogus
// domain's records like any others and never sets AD.
func (w *World) NonValidatingResolver(tb testing.TB) string {
	tb.Helper()
	return startUnbound(tb, w.dir, unboundConf{stubs: w.stubs, noValidation: true})
}

// ServfailResolver starts an Unbound whose only trust anchor is a root
// key the root zone never had: every answer is bogus, so it answers
// SERVFAIL to every question (a broken trust anchor, or a wrong clock).
func (w *World) ServfailResolver(tb testing.TB) string {
	tb.Helper()
	return startUnbound(tb, w.dir, unboundConf{stubs: w.stubs, anchors: []string{w.rootAnchor}})
}

// SlowResolver starts a validating Unbound over the world behind a
// proxy that passes every answer back delay late (the scenarios use
// 2.2 s: a resolver slow on every question), and returns the proxy's address.
func (w *World) SlowResolver(tb testing.TB, delay time.Duration) string {
	tb.Helper()
	return startDelay(tb, w.Resolver(tb), delay)
}

// DeadResolver returns an address where no resolver listens.
func (w *World) DeadResolver(tb testing.TB) string {
	tb.Helper()
	return deadAddr(tb)
}
