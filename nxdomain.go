package mailauth

// txtOverallNXDomain follows the scanned name at the start of the overall
// summary of a domain that does not exist: the name is the user's own
// input (normalized), the one value a summary may carry.
var txtOverallNXDomain = msg(
	"在 DNS 中不存在，请检查拼写是否正确。下面的各项检查针对的都是一个不存在的名称。",
	"does not exist in the DNS — check the spelling. Every check below describes a name that does not exist.")

// nxdomainFirst puts "<domain> does not exist in the DNS" before the
// overall summary when the MX check found the name does not exist
// (NXDOMAIN), so that a typo is said first rather than eight findings
// that follow from it. Other summaries are returned unchanged.
func (r *run) nxdomainFirst(summary LocalizedText) LocalizedText {
	select {
	case <-r.mxDone:
	default:
		return summary // the mx check did not finish: existence is unknown
	}
	if !r.mx.nxdomain {
		return summary
	}
	t := txtOverallNXDomain.with()
	name := r.domain.Unicode
	if name == "" {
		name = r.domain.ASCII
	}
	lead := LocalizedText{ZH: name + " " + t.ZH, EN: name + " " + t.EN}
	return joinTexts([]LocalizedText{lead, summary})
}
