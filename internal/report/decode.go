package report

import (
	"encoding/json"
	"fmt"
)

// NewDiagnostics returns an empty diagnostics object of the type the
// contract gives check id, or nil for a check the contract gives none
// (mx, caa) or an unknown id.
func NewDiagnostics(id CheckID) Diagnostics {
	switch id {
	case CheckSPF:
		return &SPFDiagnostics{}
	case CheckDKIM:
		return &DKIMDiagnostics{}
	case CheckDMARC:
		return &DMARCDiagnostics{}
	case CheckMTASTS:
		return &MTASTSDiagnostics{}
	case CheckTLSRPT:
		return &TLSRPTDiagnostics{}
	case CheckPTR:
		return &PTRDiagnostics{}
	}
	return nil
}

// checkFields is CheckSummary without its methods, so that decoding it
// does not recurse into UnmarshalJSON; its raw Diagnostics shadows the
// interface-typed field.
type checkFields CheckSummary

// UnmarshalJSON decodes a CheckSummary from the API's JSON, choosing the
// diagnostics type by the check's id. Diagnostics on a check the contract
// gives none are ignored. Determination is left Determined: the JSON does
// not carry it (the root's RestoreDetermination reads it back).
func (c *CheckSummary) UnmarshalJSON(b []byte) error {
	var w struct {
		checkFields
		Diagnostics json.RawMessage `json:"diagnostics"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = CheckSummary(w.checkFields)
	c.Diagnostics = nil
	if len(w.Diagnostics) == 0 || string(w.Diagnostics) == "null" {
		return nil
	}
	d := NewDiagnostics(c.ID)
	if d == nil {
		return nil
	}
	if err := json.Unmarshal(w.Diagnostics, d); err != nil {
		return fmt.Errorf("%s diagnostics: %w", c.ID, err)
	}
	c.Diagnostics = d
	return nil
}
