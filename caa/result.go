package caa

// Result holds the relevant record sets Check found.
type Result struct {
	// Domain is the relevant set of the domain itself.
	Domain Set
	// MTASTS is the relevant set of mta-sts.<domain>, the host whose HTTPS
	// certificate MTA-STS needs; MTASTS.CanIssue says whether it can get
	// one. When mta-sts.<domain> would be longer than MaxNameLen, the
	// host cannot exist: the set is empty with Outcome NXDomain and no
	// lookup.
	MTASTS Set
}
