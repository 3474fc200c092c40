package caa

import (
	"github.com/mailauth/mailauth/internal/findings"
	"github.com/mailauth/mailauth/resolver"
)

// issuers collects the issuer domain names of one kind of property.
type issuers struct {
	present bool
	names   map[string]bool
}

// add records one property value; malformed values authorize no CA
// (RFC 8659 §4.2) and add the code bad.
func (is *issuers) add(value string, f *findings.Set[Code], bad Code) {
	is.present = true
	v, err := ParseIssuerValue(value)
	if err != nil {
		f.Add(bad)
		if trailingDot(value) {
			f.Add(CodeIssuerTrailingDot)
		}
		return
	}
	if v.Domain == "" {
		return
	}
	if v.MixedCase {
		f.Add(CodeIssuerCase)
	}
	if is.names == nil {
		is.names = map[string]bool{}
	}
	is.names[v.Domain] = true
}

// permits reports whether these properties let some CA issue, given that
// they govern the request (RFC 8659 §4.2: authorizations are additive).
func (is issuers) permits() bool { return !is.present || len(is.names) > 0 }

// evaluate computes what a non-empty relevant record set allows.
func evaluate(recs []resolver.Record) Set {
	var f findings.Set[Code]
	var issue, wild, mail issuers
	critical := false
	for _, rec := range recs {
		p := Property{Flags: rec.CAAFlags, Tag: rec.CAATag, Value: rec.CAAValue}
		critical = checkTag(p, &f) || critical
		tag, _ := p.Known()
		switch tag {
		case TagIssue:
			issue.add(p.Value, &f, CodeIssueMalformed)
		case TagIssueWild:
			wild.add(p.Value, &f, CodeIssueWildMalformed)
		case TagIssueMail:
			mail.add(p.Value, &f, CodeIssueMailMalformed)
		case TagIodef:
			if !validIodef(p.Value) {
				f.Add(CodeIodefInvalid)
			}
		}
	}
	wildGov := issue
	if wild.present {
		wildGov = wild // RFC 8659 §4.3
	}
	return Set{
		Outcome:             resolver.Found,
		PropertyCount:       len(recs),
		Restricts:           issue.present || wild.present || critical,
		CanIssue:            !critical && issue.permits(),
		CanIssueWildcard:    !critical && wildGov.permits(),
		IssuerCount:         len(issue.names),
		WildcardIssuerCount: len(wild.names),
		MailIssuerCount:     len(mail.names),
		CriticalUnknown:     critical,
		Findings:            f.InOrder(order),
	}
}

// checkTag adds the findings about p's flags and tag and reports whether
// p is critical with a tag a CA does not understand (RFC 8659 §4.1).
func checkTag(p Property, f *findings.Set[Code]) bool {
	if p.Flags&^FlagCritical != 0 {
		f.Add(CodeReservedFlags)
	}
	_, known := p.Known()
	switch {
	case !ValidTag(p.Tag):
		f.Add(CodeInvalidTag)
	case !known && !p.Critical():
		f.Add(CodeUnknownTag)
	}
	if p.Critical() && !p.understood() {
		f.Add(CodeCriticalUnknown)
		return true
	}
	if p.Critical() && !p.required() {
		f.Add(CodeCriticalOptional)
	}
	return false
}
