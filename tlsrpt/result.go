package tlsrpt

import "github.com/mailauth/mailauth/resolver"

// Result holds the facts Check found. A fact that may be unknown is a
// pointer, nil when unknown (the API's null; see the resolver package
// doc): every one is nil exactly when the DNS lookup was inconclusive; a
// record that was looked up and is absent, ambiguous or invalid gives 0
// and false. Nothing in it comes from the wire.
type Result struct {
	// Outcome and Reason are those of the TXT lookup at
	// _smtp._tls.<domain>.
	Outcome resolver.Outcome
	Reason  resolver.Reason
	// RecordCount is the number of v=TLSRPTv1 TXT records.
	RecordCount *int
	// RecordValid is true when there is exactly one record and it parses.
	RecordValid *bool
	// Configured is true when there is exactly one record, it parses, and
	// it has at least one valid mailto or https destination.
	Configured *bool
	// DestinationCount is the number of distinct valid destinations of the
	// one valid record (0 when there is no such record).
	DestinationCount *int
	// MailtoDestinationCount counts the valid mailto: destinations among
	// them.
	MailtoDestinationCount *int
	// HTTPSDestinationCount counts the valid https: destinations among
	// them.
	HTTPSDestinationCount *int
	// Findings lists the finding codes, sorted, without duplicates.
	Findings []Code
}
