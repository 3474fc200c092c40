package dane

// Result holds the facts Check found. It carries no name or record data.
type Result struct {
	// MXValidated is the validation of the MX RRset, as the caller gave it.
	MXValidated bool
	// Hosts is the number of mail servers asked about (at most MaxHosts).
	Hosts int
	// Counts summarises the hosts' TLSA sets.
	Counts Counts
	// Findings lists the findings in the order of the Code constants.
	Findings []Code
}

// Counts counts the mail servers by what their TLSA lookup found. A host
// is counted once in Published, Absent or Inconclusive.
type Counts struct {
	// Published: hosts with a TLSA set.
	Published int
	// Validated: of those, hosts whose TLSA set was DNSSEC-validated.
	Validated int
	// Usable: of those, hosts with at least one usable record.
	Usable int
	// Absent: hosts without TLSA records (NODATA or NXDOMAIN).
	Absent int
	// Inconclusive: hosts whose TLSA lookup gave no conclusive answer.
	Inconclusive int
}

// Usable reports whether DANE-aware senders enforce authenticated TLS to
// every mail server: the MX set was validated and every host asked has a
// validated TLSA set with a usable record.
func (r Result) Usable() bool {
	return r.MXValidated && r.Hosts > 0 && r.Counts.Usable == r.Hosts
}

// Published reports whether any mail server publishes TLSA records.
func (r Result) Published() bool { return r.Counts.Published > 0 }
