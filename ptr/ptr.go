package ptr

// MaxForward is the number of distinct PTR host names looked up forward.
// It is a product bound (doc/rfc-notes.md §8.1); RFC 8601 §3 sets none,
// and the SPF "ptr" mechanism's limit of 10 (RFC 7208 §5.5) is a different
// rule.
const MaxForward = 8

// Confirmation says whether the address is forward-confirmed.
type Confirmation string

// The values of forward confirmation (doc/rfc-notes.md §8.2).
const (
	Confirmed    Confirmation = "confirmed"     // a forward answer equals the address (iprev pass)
	NotConfirmed Confirmation = "not_confirmed" // every selected forward lookup completed, none matched, or no name to check (iprev fail/permerror)
	Unknown      Confirmation = "unknown"       // DNS errors prevent a conclusion (iprev temperror)
)
