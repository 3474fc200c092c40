package dane

// Code is a stable identifier of one finding about the domain's DANE.
type Code string

// Findings, in the order they are reported.
const (
	// CodeBogus: a TLSA lookup failed DNSSEC validation; DANE-aware
	// senders defer mail to that server (RFC 7672 §2.2).
	CodeBogus Code = "tlsa_bogus"
	// CodeMXUnsigned: TLSA records are published, but the domain's MX
	// records were not DNSSEC-validated: an attacker who forges the MX
	// set can lead senders elsewhere (RFC 7672 §2.2.1).
	CodeMXUnsigned Code = "mx_unsigned"
	// CodeUnsigned: a TLSA set was not DNSSEC-validated (an unsigned
	// zone); senders ignore it (RFC 7672 §2.2).
	CodeUnsigned Code = "tlsa_unsigned"
	// CodePKIXOnly: a validated TLSA set has only PKIX usages (0, 1),
	// which SMTP clients treat as unusable (RFC 7672 §3.1.3).
	CodePKIXOnly Code = "tlsa_pkix_only"
	// CodeParameters: a validated TLSA record has an unknown usage,
	// selector or matching type, or association data of the wrong length
	// for its matching type (RFC 6698 §2.1, RFC 7671 §9).
	CodeParameters Code = "tlsa_parameters"
	// CodePartial: some mail servers publish TLSA records and others do
	// not; mail to the latter is not protected by DANE.
	CodePartial Code = "tlsa_partial"
	// CodeInconclusive: a TLSA lookup gave no conclusive answer.
	CodeInconclusive Code = "tlsa_inconclusive"
)

var order = []Code{CodeBogus, CodeMXUnsigned, CodeUnsigned, CodePKIXOnly, CodeParameters, CodePartial, CodeInconclusive}

// Codes returns every finding code Check can report, in the order
// Result.Findings uses.
func Codes() []Code { return append([]Code(nil), order...) }
