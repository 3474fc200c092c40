package tlsrpt

import "github.com/mailauth/mailauth/resolver"

// Result holds the facts Check found. The counts are -1 (unknown, the
// API's null) exactly when the DNS lookup was inconclusive; a record that
// was looked up and is absent, ambiguous or invalid gives 0 and false.
// Nothing in it comes from the wire.
type Result struct {
	// Outcome and Reason are those of the TXT lookup at
	// _smtp._tls.<domain>.
	Outcome resolver.Outcome
	Reason  resolver.Reason
	// RecordCount is the number of v=TLSRPTv1 TXT records; -1 when Outcome
	// is Inconclusive.
	RecordCount int
	// RecordValid is true when there is exactly one record and it parses.
	// Unknown when RecordCount is -1.
	RecordValid bool
	// Configured is true when there is exactly one record, it parses, and
	// it has at least one valid mailto or https destination. Unknown when
	// RecordCount is -1.
	Configured bool
	// DestinationCount is the number of distinct valid destinations of the
	// one valid record (0 when there is no such record); -1 when Outcome
	// is Inconclusive.
	DestinationCount int
	// MailtoDestinationCount counts the valid mailto: destinations among
	// them; -1 when Outcome is Inconclusive.
	MailtoDestinationCount int
	// HTTPSDestinationCount counts the valid https: destinations among
	// them; -1 when Outcome is Inconclusive.
	HTTPSDestinationCount int
	// Findings lists the finding codes, sorted, without duplicates.
	Findings []Code
}
