package mailauth

import "net/netip"

// ScanInput is a ScanRequest after validation: the normalized domain, and
// the selector and sending IP when supplied.
type ScanInput struct {
	Domain    Domain
	Selector  string     // "" when none was supplied
	SendingIP netip.Addr // invalid when none was supplied
}

// Validate checks req by the input rules every entry point shares (the
// HTTP API, the scanner and the command line call it, or
// ValidateScanFields, and nothing else): the domain first, then the
// selector and the sending IP when supplied. The error is an *InputError.
func (req ScanRequest) Validate() (ScanInput, error) {
	var sel, ip *string
	if req.DKIMSelector != "" {
		sel = &req.DKIMSelector
	}
	if req.SendingIP != "" {
		ip = &req.SendingIP
	}
	return ValidateScanFields(req.Domain, sel, ip)
}

// ValidateScanFields is Validate for a caller that tells "absent" (nil)
// from "present but empty" (the API's JSON, where an empty string is
// present and invalid); ScanRequest reads "" as absent.
func ValidateScanFields(domain string, selector, sendingIP *string) (ScanInput, error) {
	var in ScanInput
	d, err := NormalizeDomain(domain)
	if err != nil {
		return in, err
	}
	in.Domain = d
	if selector != nil {
		if err := ValidateSelector(*selector); err != nil {
			return in, err
		}
		in.Selector = *selector
	}
	if sendingIP != nil {
		addr, err := ScanSendingIP.Normalize(*sendingIP)
		if err != nil {
			return in, err
		}
		in.SendingIP = addr
	}
	return in, nil
}
