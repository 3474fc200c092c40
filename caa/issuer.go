package caa

import (
	"net/url"
	"strings"
)

// IssuerValue is the value of an issue, issuewild or issuemail property
// (RFC 8659 §4.2, §4.3; RFC 9495 §3).
type IssuerValue struct {
	// Domain is the issuer domain name, lower-case; "" when the value
	// names no issuer, which authorizes no CA.
	Domain string
	// MixedCase reports that the published issuer domain name had
	// upper-case letters, which CAs comparing exactly do not match.
	MixedCase bool
	// Params are the CA-defined parameters (e.g. accounturi and
	// validationmethods, RFC 8657), in order; nil when there are none.
	Params []Param
}

// Param is one "tag=value" parameter of an IssuerValue.
type Param struct {
	Tag   string
	Value string
}

// ParseIssuerValue reads an issue, issuewild or issuemail value by the
// grammar of RFC 8659 §4.2:
//
//	issue-value = *WSP [issuer-domain-name *WSP] [";" *WSP [parameters *WSP]]
//	issuer-domain-name = label *("." label)
//	label = (ALPHA / DIGIT) *( *("-") (ALPHA / DIGIT))
//	parameters = (parameter *WSP ";" *WSP parameters) / parameter
//	parameter = tag *WSP "=" *WSP value
//	tag = (ALPHA / DIGIT) *( *("-") (ALPHA / DIGIT))
//	value = *(%x21-3A / %x3C-7E)
//
// A value that does not match authorizes no CA (RFC 8659 §4.2), as an
// empty issuer does. Errors wrap [ErrSyntax].
func ParseIssuerValue(s string) (IssuerValue, error) {
	i := skipWSP(s, 0)
	j := i
	for j < len(s) && s[j] != ';' && !isWSP(s[j]) {
		j++
	}
	var v IssuerValue
	if dom := s[i:j]; dom != "" {
		if !isLabels(dom, ".") {
			return IssuerValue{}, syntaxErr("issuer", "%q is not a domain name of letter-digit-hyphen labels", dom)
		}
		v.Domain = strings.ToLower(dom)
		v.MixedCase = v.Domain != dom
	}
	i = skipWSP(s, j)
	if i == len(s) {
		return v, nil
	}
	if s[i] != ';' {
		return IssuerValue{}, syntaxErr("issuer", "unexpected text after the issuer domain name")
	}
	params, err := parseParams(s, skipWSP(s, i+1))
	if err != nil {
		return IssuerValue{}, err
	}
	v.Params = params
	return v, nil
}

// parseParams reads the parameters that start at s[i:].
func parseParams(s string, i int) ([]Param, error) {
	var params []Param
	for i < len(s) {
		j := i
		for j < len(s) && (isAlnum(s[j]) || s[j] == '-') {
			j++
		}
		tag := s[i:j]
		if !isLabels(tag, "") {
			return nil, syntaxErr("parameter", "tag %q is not letters, digits and inner hyphens", tag)
		}
		i = skipWSP(s, j)
		if i == len(s) || s[i] != '=' {
			return nil, syntaxErr("parameter", "missing '=' after %q", tag)
		}
		i = skipWSP(s, i+1)
		j = i
		for j < len(s) && s[j] >= 0x21 && s[j] <= 0x7e && s[j] != ';' {
			j++
		}
		params = append(params, Param{Tag: tag, Value: s[i:j]})
		if i = skipWSP(s, j); i == len(s) {
			break
		}
		if s[i] != ';' {
			return nil, syntaxErr("parameter", "unexpected character after %q", tag)
		}
		if i = skipWSP(s, i+1); i == len(s) {
			return nil, syntaxErr("parameter", "';' not followed by a parameter")
		}
	}
	return params, nil
}

// isLabels reports whether s is one or more labels of RFC 8659's label
// rule, joined by sep ("" for a single label).
func isLabels(s, sep string) bool {
	labels := []string{s}
	if sep != "" {
		labels = strings.Split(s, sep)
	}
	for _, l := range labels {
		if l == "" || !isAlnum(l[0]) || !isAlnum(l[len(l)-1]) {
			return false
		}
		for k := 0; k < len(l); k++ {
			if !isAlnum(l[k]) && l[k] != '-' {
				return false
			}
		}
	}
	return true
}

// String returns v in canonical form: "domain", "domain; tag=value; …",
// or ";" for a value that names no issuer and has no parameters.
func (v IssuerValue) String() string {
	if v.Domain == "" && len(v.Params) == 0 {
		return ";"
	}
	var b strings.Builder
	b.WriteString(v.Domain)
	for _, p := range v.Params {
		b.WriteString("; " + p.Tag + "=" + p.Value)
	}
	return b.String()
}

// trailingDot reports whether the issuer domain name of an issue value
// would be well-formed but for a trailing dot ("letsencrypt.org.").
func trailingDot(s string) bool {
	i := skipWSP(s, 0)
	j := i
	for j < len(s) && s[j] != ';' && !isWSP(s[j]) {
		j++
	}
	dom := s[i:j]
	return strings.HasSuffix(dom, ".") && isLabels(strings.TrimSuffix(dom, "."), ".")
}

// validIodef reports whether an iodef value is a URL of a scheme RFC 8659
// §4.4 names: mailto: with an address, or http:/https: with a host.
func validIodef(s string) bool {
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "mailto":
		return u.Opaque != ""
	case "http", "https":
		return u.Host != ""
	}
	return false
}
