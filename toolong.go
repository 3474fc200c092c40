package mailauth

// A domain of up to MaxDomainLen octets is a valid input, but the names
// some checks look under are longer: "_mta-sts." or "_smtp._tls."
// followed by a domain of more than 244 or 242 octets exceeds the limit
// of a DNS name, so the record cannot be published at all. That is a
// determinate fact about the domain, not a lookup that failed: those
// checks say so (info, left out of the score) instead of asking a name
// that cannot exist. DMARC's tree walk skips its own name the same way
// and goes on with the parent domains (package dmarc); CAA does not ask
// for an mta-sts host that cannot exist (package caa).

var (
	stsNameTooLong = rule{id: "mta-sts.name-too-long", status: StatusInfo, severity: SeverityInfo, say: msg(
		"没有发布 MTA-STS：它应发布在“_mta-sts.”加上域名的名称下，而这个名称超过了 DNS 名称 %d 个字符的上限，不可能存在。",
		"MTA-STS is not published: the name it would be published at, \"_mta-sts.\" followed by the domain, is longer than the %d-character limit of a DNS name, so it cannot exist.",
		MaxDomainLen)}
	rptNameTooLong = rule{id: "tls-rpt.name-too-long", status: StatusInfo, severity: SeverityInfo, say: msg(
		"没有发布 TLS-RPT：它应发布在“_smtp._tls.”加上域名的名称下，而这个名称超过了 DNS 名称 %d 个字符的上限，不可能存在。",
		"TLS-RPT is not published: the name it would be published at, \"_smtp._tls.\" followed by the domain, is longer than the %d-character limit of a DNS name, so it cannot exist.",
		MaxDomainLen)}
	txtNameTooLongFact = msg(
		"这不是该域名服务器的问题，而是域名本身的长度所致；较短的域名（例如上级域名）才能发布这类记录。",
		"This is not a fault of the domain's servers but of the domain's length; only a shorter name, such as a parent domain, can publish such a record.")
)

// tooLongPrefix maps the checks whose record lives under a fixed prefix
// of the domain to that prefix.
var tooLongPrefix = map[CheckID]string{
	CheckMTASTS: "_mta-sts.",
	CheckTLSRPT: "_smtp._tls.",
}

// nameTooLong reports whether prefix followed by domain is longer than a
// DNS name may be.
func nameTooLong(prefix, domain string) bool {
	return len(prefix)+len(domain) > MaxDomainLen
}

// tooLongVerdict returns the verdict of check id when the name its record
// would be published at cannot exist, and whether that is so.
func (r *run) tooLongVerdict(id CheckID) (verdict, bool) {
	prefix, ok := tooLongPrefix[id]
	if !ok || !nameTooLong(prefix, r.domain.ASCII) {
		return verdict{}, false
	}
	facts := []LocalizedText{txtNameTooLongFact.with()}
	switch id {
	case CheckMTASTS:
		d := &MTASTSDiagnostics{AnnouncementRecordCount: new(0), AnnouncementValid: new(false), PolicyFetchState: FetchNotAnnounced}
		return judge(stsNameTooLong, nil, facts, d), true
	default:
		d := &TLSRPTDiagnostics{RecordCount: new(0), Configured: new(false)}
		return judge(rptNameTooLong, nil, facts, d), true
	}
}

// tooLongRules lists the verdicts of check id for a name that cannot
// exist, for the developer page.
func tooLongRules(id CheckID) []rule {
	switch id {
	case CheckMTASTS:
		return []rule{stsNameTooLong}
	case CheckTLSRPT:
		return []rule{rptNameTooLong}
	}
	return nil
}
