package mtasts

import "github.com/mailauth/mailauth/resolver"

// Result holds the facts Check found. A fact that may be unknown is a
// pointer, nil when unknown (the API's null; see the resolver package
// doc). Nothing in it but Policy comes from the wire.
type Result struct {
	// Outcome and Reason are the outcome of the TXT lookup at
	// _mta-sts.<domain>.
	Outcome resolver.Outcome
	Reason  resolver.Reason
	// AnnouncementRecordCount is the number of v=STSv1 TXT records; nil
	// when Outcome is Inconclusive, 0 when the name has no TXT records or
	// only other ones.
	AnnouncementRecordCount *int
	// AnnouncementValid is true when there is exactly one v=STSv1 record
	// and it parses; nil when AnnouncementRecordCount is nil.
	AnnouncementValid *bool
	// FetchState is the outcome of discovery and fetch; always set.
	FetchState FetchState
	// HTTPStatus is the status code of the policy response, 0 when no
	// HTTP response was received.
	HTTPStatus int
	// PolicyValid is true when the fetched policy is valid (RFC 8461
	// §3.2); nil unless FetchState is Fetched.
	PolicyValid *bool
	// PolicyMode is the mode of the fetched policy; "" (unknown) when no
	// policy was fetched or its mode field is missing or invalid.
	PolicyMode Mode
	// MaxAge is the valid max_age of the fetched policy in seconds; nil
	// when no policy was fetched or max_age is missing or invalid.
	MaxAge *int64
	// MXPatternCount is the number of mx fields in the fetched policy,
	// valid or not; nil unless FetchState is Fetched.
	MXPatternCount *int
	// Policy is the fetched policy as far as it could be parsed, for
	// Covers and Policy.Matches; the zero Policy unless FetchState is
	// Fetched. It holds MX patterns from the wire: in memory only, never
	// serialise it or show its values.
	Policy Policy
	// Findings lists the finding codes, sorted, without duplicates.
	Findings []Code
}
