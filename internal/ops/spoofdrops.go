package ops

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mailauth/mailauth/resolver"
)

// SpoofDrops adds mailauth_dns_spoof_drops_total{kind}: the datagrams and
// ICMP errors the DNS client dropped instead of taking them as a reply,
// by kind (resolver.SpoofDropKinds; every kind is always present), read
// from drops at scrape time (resolver.Client.SpoofDrops). A nil drops
// reports zeros (a service that asks through another Resolver).
func (m *Metrics) SpoofDrops(drops func() map[string]uint64) {
	m.reg.MustRegister(&spoofDrops{drops: drops, desc: prometheus.NewDesc("mailauth_dns_spoof_drops_total",
		"Datagrams and ICMP errors the DNS client dropped instead of taking them as a reply, by kind: unmatched_id (no query in flight has its ID: a late reply or a guess), undecodable, wrong_question, wrong_case (0x20), wrong_cookie, wrong_source, icmp.",
		[]string{"kind"}, nil)})
}

// spoofDrops is the collector of mailauth_dns_spoof_drops_total.
type spoofDrops struct {
	drops func() map[string]uint64
	desc  *prometheus.Desc
}

// Describe implements prometheus.Collector.
func (s *spoofDrops) Describe(ch chan<- *prometheus.Desc) { ch <- s.desc }

// Collect implements prometheus.Collector.
func (s *spoofDrops) Collect(ch chan<- prometheus.Metric) {
	var got map[string]uint64
	if s.drops != nil {
		got = s.drops()
	}
	for _, kind := range resolver.SpoofDropKinds() {
		ch <- prometheus.MustNewConstMetric(s.desc, prometheus.CounterValue, float64(got[kind]), kind)
	}
}
