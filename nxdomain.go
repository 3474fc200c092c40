package mailauth

import (
	"strings"

	"golang.org/x/net/publicsuffix"
)

// txtOverallNXDomain follows the scanned name at the start of the overall
// summary of a domain that does not exist: the name is the user's own
// input (normalized), the one value a summary may carry.
var txtOverallNXDomain = msg(
	"在 DNS 中不存在，请检查拼写是否正确。不存在的名称没有等级和得分；下面的各项检查针对的都是一个不存在的名称。",
	"does not exist in the DNS — check the spelling. A name that does not exist gets no grade and no score; every check below describes a name that does not exist.")

// txtNotTLD follows ".<last label>" (the user's own input) when the last
// label of a name that does not exist is not a top-level domain.
var txtNotTLD = msg("不是顶级域名。", "is not a top-level domain.")

// nxdomainFirst replaces the overall summary with "<domain> does not
// exist in the DNS — check the spelling" when the MX check found the name
// does not exist (NXDOMAIN), so that a typo is said, alone, rather than a
// grade and eight findings that follow from it; when the last label is
// not a top-level domain, it says that too. The JSON keeps its grade and
// score (the contract requires them); the page and the CLI show neither
// for such a name (Nonexistent). Other summaries are returned unchanged.
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
	parts := []LocalizedText{{ZH: name + " " + t.ZH, EN: name + " " + t.EN}}
	if tld, ok := notTLD(r.domain.ASCII, r.domain.Unicode); ok {
		n := txtNotTLD.with()
		parts = append(parts, LocalizedText{ZH: "“." + tld + "” " + n.ZH, EN: "\"." + tld + "\" " + n.EN})
	}
	return joinTexts(parts)
}

// notTLD returns the last label of a name (in the Unicode form when there
// is one) and whether it is not a top-level domain of the ICANN section
// of the Public Suffix List. publicsuffix answers an unknown label with
// its default rule ("*"), icann false, which is how it is told apart.
func notTLD(ascii, unicode string) (string, bool) {
	ascii = strings.TrimSuffix(ascii, ".")
	last := ascii[strings.LastIndexByte(ascii, '.')+1:]
	if last == "" {
		return "", false
	}
	if suffix, icann := publicsuffix.PublicSuffix(last); icann && suffix == last {
		return "", false
	}
	if unicode != "" {
		u := strings.TrimSuffix(unicode, ".")
		return u[strings.LastIndexByte(u, '.')+1:], true
	}
	return last, true
}

// Nonexistent reports whether a scan found that its name does not exist
// in the DNS: the MX check's summary is NXDomainSummary, or the DMARC
// check found the name nonexistent. Such a scan has no grade to show:
// the page and the CLI show none (the JSON carries the contract's
// required grade and score, and a summary that says so).
func Nonexistent(s ScanSummary) bool {
	nx := NXDomainSummary()
	for _, c := range s.Checks {
		if c.ID == CheckMX && c.Summary == nx {
			return true
		}
		if d, ok := c.Diagnostics.(*DMARCDiagnostics); ok && c.ID == CheckDMARC && d.DomainExistence != nil && *d.DomainExistence == DomainNonexistent {
			return true
		}
	}
	return false
}
