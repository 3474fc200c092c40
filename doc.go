// Package mailauth diagnoses the public email-authentication and
// transport-security configuration of a domain, or of one sending IP.
//
// Start here:
//   - [New] makes a [Scanner] from a [Config]; the zero Config works.
//   - [Scanner.Scan] checks the domain of a [ScanRequest].
//   - [ScanSummary] is its result: grade, score, a [CheckSummary] per check.
//   - [Scanner.CheckIP] checks one sending IP alone.
//
// A scan, its errors and its result:
//
//	s := mailauth.New(mailauth.Config{})
//	sum, err := s.Scan(ctx, mailauth.ScanRequest{Domain: "example.com", DKIMSelector: "s1"})
//	var bad *mailauth.InputError
//	switch {
//	case errors.As(err, &bad): // the domain, selector or IP is not valid input
//	case errors.Is(err, mailauth.ErrResolverUnavailable): // our DNS resolver failed, not the domain
//	case err != nil: // ctx ended
//	}
//	fmt.Println(sum.Grade, sum.Score, sum.Summary.EN)
//	for _, c := range sum.Checks {
//		fmt.Println(c.ID, c.Status, c.Severity, c.Summary.EN)
//	}
//
// [CheckOrder] lists the checks, one per protocol package, from one table
// (checks.go): among them DMARC (RFC 9989), DKIM for a supplied selector,
// MTA-STS (RFC 8461, with a real HTTPS policy fetch) and PTR with forward
// confirmation for a supplied sending IP.
//
// A [Scanner] runs the checks concurrently over one per-scan resolver,
// judges their facts into a status and severity per check, a score and a
// grade, and words the result in Chinese and English. No result of this
// package carries raw records, hostnames, addresses, URIs, policy text or
// key material: only counts, states and the caller's own inputs. (A
// person who wants to see their own records reads them with the CLI's
// scan -records, which collects them itself through the protocol
// packages and prints them on their machine.)
//
// A Scanner bounds the scans it runs at once (Config.MaxConcurrentScans);
// more wait for a slot within their caller's context.
//
// Input normalization (domains given as names, URLs or mailboxes; sending
// IPs that must be public; DKIM selectors) lives here too, so that the
// library, the CLI and the HTTP service accept exactly the same inputs.
package mailauth

//go:generate go run ./internal/cmd/genalias
