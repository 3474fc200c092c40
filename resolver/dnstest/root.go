package dnstest

// RootZone is a root zone as a lab's recursive resolver answers it: its
// SOA (what a readiness canary of the root asks) and NS set, every host
// on 127.0.0.1. Parse it with origin ".".
const RootZone = `$ORIGIN .
$TTL 300
@ SOA a.root-servers.test. hostmaster.test. 1 3600 600 86400 300
@ NS a.root-servers.test.
a.root-servers.test. A 127.0.0.1
`
