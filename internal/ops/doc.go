// Package ops is the operator's side of `mailauth serve`: readiness (each
// dependency's state, cached so that a probe never waits), the resolver
// canary, Prometheus metrics and the admin handler that serves them on a
// listener apart from the public API.
//
// Metrics carry no domain, address, selector or utm value: every label
// value comes from a fixed set (routes as the access log names them,
// status codes, check ids and statuses, decision names). Other parts of
// the service add their figures through Metrics.Register (a
// prometheus.Collector) or Metrics.CounterFunc/GaugeFunc (a function read
// at scrape time, e.g. a counter kept with sync/atomic), naming them
// mailauth_*; a label may only take values from a fixed set.
package ops
