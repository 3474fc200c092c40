package dmarc

import (
	"strconv"
	"strings"

	"github.com/mailauth/mailauth/internal/findings"
)

// Select keeps the TXT strings that begin with the DMARC version tag
// (RFC 9989 §4.10 steps 2 and 6): "v" (any case), optional whitespace,
// "=", optional whitespace, "DMARC1" (case-sensitive), then the end or a
// ";". Every other string is not a DMARC record and is dropped. The
// caller counts what remains: more than one means none applies.
func Select(txts []string) []string {
	var out []string
	for _, s := range txts {
		if hasVersion(s) {
			out = append(out, s)
		}
	}
	return out
}

// hasVersion reports whether s begins with a valid version tag.
func hasVersion(s string) bool {
	_, err := versionTag(s)
	return err == nil
}

// versionTag checks the first tag of s and returns its name as written.
func versionTag(s string) (string, error) {
	if s == "" || (s[0] != 'v' && s[0] != 'V') {
		return "", &SyntaxError{Tag: "v", Reason: "record does not begin with the version tag"}
	}
	first, _, _ := strings.Cut(s, ";")
	name, value, ok := strings.Cut(first, "=")
	if !ok || trimWSP(name) != s[:1] {
		return "", &SyntaxError{Tag: "v", Reason: "record does not begin with the version tag"}
	}
	if trimWSP(value) != Version {
		return "", &SyntaxError{Tag: "v", Reason: "version is not " + Version + " (case-sensitive)"}
	}
	return s[:1], nil
}

// Parse parses a DMARC policy record (RFC 9989 §4.7, §4.8). It fails,
// with an error wrapping ErrSyntax, only when s does not begin with the
// version tag: such a text is not a DMARC record at all. Every other
// problem leaves a usable Record and is reported in Record.Findings,
// because receivers discard bad tags in favour of defaults (§4.8) and
// decide on bad policies by the §4.10.1 fallback.
func Parse(s string) (Record, error) {
	name, err := versionTag(s)
	if err != nil {
		return Record{}, err
	}
	r := Record{VersionName: name}
	segments := strings.Split(s, ";")
	for _, seg := range segments[1:] {
		seg = trimWSP(seg)
		if seg == "" {
			continue // trailing separator (§4.8) or an empty segment
		}
		r.Tags = append(r.Tags, splitTag(seg))
	}
	var p parser
	p.rec = &r
	p.run()
	return r, nil
}

// splitTag turns one segment into a Tag; a malformed segment keeps its
// text in Value with an empty Name.
func splitTag(seg string) Tag {
	name, value, ok := strings.Cut(seg, "=")
	name = trimWSP(name)
	if !ok || !isAlpha(name) {
		return Tag{Value: seg}
	}
	return Tag{Name: name, Value: trimWSP(value)}
}

// parser derives a Record's typed fields and findings from its Tags.
type parser struct {
	rec      *Record
	seen     map[string]bool
	findings []Code
	pos      int // position of the tag being read, 1 for the first after v
}

func (p *parser) run() {
	p.seen = map[string]bool{"v": true}
	if p.rec.VersionName == "V" {
		p.add(CodeUppercaseVersionTag)
	}
	for i, t := range p.rec.Tags {
		p.pos = i + 1
		p.tag(t)
	}
	p.pos = 0
	p.finish()
	p.rec.Findings = findings.Normalize(p.findings)
}

func (p *parser) add(c Code) {
	p.findings = append(p.findings, c)
	if p.pos > 0 && p.rec.BadTag == 0 && tagDefects[c] {
		p.rec.BadTag = p.pos
	}
}

// tagDefects are the findings that make one tag wrong, so that
// Record.BadTag can say which.
var tagDefects = map[Code]bool{
	CodeMalformedTag: true, CodeDuplicateTag: true, CodeInvalidP: true, CodeInvalidSP: true, CodeInvalidNP: true,
	CodeInvalidPSD: true, CodeInvalidT: true, CodeInvalidADKIM: true, CodeInvalidASPF: true, CodeInvalidFO: true,
	CodeInvalidRUA: true, CodeInvalidRUF: true,
}

// tag handles one tag; only the first occurrence of a name counts.
func (p *parser) tag(t Tag) {
	if t.Name == "" {
		p.add(CodeMalformedTag)
		return
	}
	name := t.Name
	if lower := strings.ToLower(name); lower != name {
		if _, registered := tagHandlers[lower]; registered {
			// Tag names are case-sensitive (RFC 9989 §4.7, RFC 6376 §3.2):
			// "P" is not "p". Ignored like an unknown tag, with a finding
			// that names the case.
			p.add(CodeTagNameCase)
			return
		}
		if lower == "v" {
			name = lower // a second version tag: a duplicate
		}
	}
	if p.seen[name] {
		p.add(CodeDuplicateTag)
		return
	}
	p.seen[name] = true
	if h, ok := tagHandlers[name]; ok {
		h(p, t.Value)
		return
	}
	p.add(CodeUnknownTag)
	if t.Value == "" || !printable(t.Value) {
		p.add(CodeMalformedTag)
	}
}

// tagHandlers maps each registered tag (RFC 9989 Table 2, §9.3) to the
// function that records its value.
var tagHandlers = map[string]func(p *parser, v string){
	"p":     func(p *parser, v string) { p.rec.P = p.policy(v, CodeInvalidP) },
	"sp":    func(p *parser, v string) { p.rec.SP = p.policy(v, CodeInvalidSP) },
	"np":    func(p *parser, v string) { p.rec.NP = p.policy(v, CodeInvalidNP) },
	"psd":   (*parser).psd,
	"t":     (*parser).t,
	"adkim": func(p *parser, v string) { p.rec.ADKIM = p.alignment(v, CodeInvalidADKIM) },
	"aspf":  func(p *parser, v string) { p.rec.ASPF = p.alignment(v, CodeInvalidASPF) },
	"rua":   func(p *parser, v string) { p.rec.RUA = p.uris(v, CodeInvalidRUA) },
	"ruf":   func(p *parser, v string) { p.rec.RUF = p.uris(v, CodeInvalidRUF) },
	"fo":    (*parser).fo,
	"pct":   (*parser).pct,
	"rf":    func(p *parser, _ string) { p.add(CodeLegacyRF) },
	"ri":    func(p *parser, _ string) { p.add(CodeLegacyRI) },
}

func (p *parser) policy(v string, bad Code) Policy {
	switch pol := Policy(strings.ToLower(v)); pol {
	case PolicyNone, PolicyQuarantine, PolicyReject:
		return pol
	}
	p.add(bad)
	return PolicyInvalid
}

// pct records the historic pct tag (RFC 7489 §6.3: 1*3DIGIT, 0 to 100).
// Below 100 it is a finding of its own; 100, or an invalid value that
// RFC 7489 receivers replace by the default 100, is harmless.
func (p *parser) pct(v string) {
	p.rec.HasPct = true
	n, err := strconv.Atoi(v)
	if err != nil || len(v) > 3 || v[0] < '0' || v[0] > '9' || n > 100 {
		n = 100
	}
	p.rec.Pct = n
	if n < 100 {
		p.add(CodeLegacyPct)
		return
	}
	p.add(CodeLegacyPctFull)
}

func (p *parser) psd(v string) {
	switch psd := PSD(strings.ToLower(v)); psd {
	case PSDYes, PSDNo, PSDUnknown:
		p.rec.PSD = psd
	default:
		p.rec.PSD = PSDInvalid
		p.add(CodeInvalidPSD)
	}
}

func (p *parser) t(v string) {
	switch f := Flag(strings.ToLower(v)); f {
	case FlagYes:
		p.rec.T = f
		p.add(CodeTestMode)
	case FlagNo:
		p.rec.T = f
	default:
		p.rec.T = FlagInvalid
		p.add(CodeInvalidT)
	}
}

func (p *parser) alignment(v string, bad Code) Alignment {
	switch strings.ToLower(v) {
	case "r":
		return AlignmentRelaxed
	case "s":
		return AlignmentStrict
	}
	p.add(bad)
	return AlignmentUnknown
}

// uris splits a dmarc-urilist (RFC 9989 §4.8): URIs separated by commas
// with optional whitespace around them.
func (p *parser) uris(v string, bad Code) []URI {
	parts := strings.Split(v, ",")
	out := make([]URI, 0, len(parts))
	for _, raw := range parts {
		u := parseURI(trimWSP(raw))
		switch {
		case !u.Valid:
			p.add(bad)
		case u.Scheme != "mailto" && u.Scheme != "https":
			p.add(CodeUnsupportedScheme)
		case u.NoAddress:
			p.add(CodeURINoAddress)
		}
		if u.SizeLimit {
			p.add(CodeSizeSuffix)
		}
		out = append(out, u)
	}
	return out
}

// fo checks a dmarc-fo list (RFC 9989 §4.8): options 0, 1, d, s separated
// by colons, 0 and 1 mutually exclusive, each at most once.
func (p *parser) fo(v string) {
	p.rec.FO = v
	seen := map[string]bool{}
	for _, opt := range strings.Split(strings.ToLower(v), ":") {
		switch {
		case opt != "0" && opt != "1" && opt != "d" && opt != "s", seen[opt]:
			p.add(CodeInvalidFO)
			return
		}
		seen[opt] = true
	}
	if seen["0"] && seen["1"] {
		p.add(CodeInvalidFO)
	}
}

// finish adds the findings that depend on the whole record.
func (p *parser) finish() {
	if p.rec.P == "" {
		p.add(CodeMissingP)
	}
	if p.seen["fo"] && !p.seen["ruf"] {
		p.add(CodeFOWithoutRUF)
	}
}

// trimWSP removes spaces and horizontal tabs (RFC 5234 WSP) around s.
func trimWSP(s string) string { return strings.Trim(s, " \t") }

// isAlpha reports whether s is 1*ALPHA (a tag name, RFC 9989 §4.8).
func isAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) {
			return false
		}
	}
	return s != ""
}

// printable reports whether s is made of dmarc-value characters:
// %x20-3A / %x3C-7E (RFC 9989 §4.8).
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == ';' {
			return false
		}
	}
	return true
}
