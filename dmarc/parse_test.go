package dmarc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSelect(t *testing.T) {
	t.Parallel()
	in := []string{
		"v=DMARC1; p=reject",   // kept
		"V=DMARC1;p=none",      // kept: the tag name is case-insensitive
		"v = DMARC1 ; p=none",  // kept: whitespace around "="
		"v=DMARC1",             // kept: nothing else
		"v=DMARC1;",            // kept
		"v=DMARC1\t",           // kept: trailing whitespace
		" v=DMARC1; p=reject",  // leading whitespace: not a record
		"v=dmarc1; p=reject",   // the value is case-sensitive
		"v=DMARC10; p=reject",  // another value
		"v=DMARC1 p=reject",    // no separator: the value is "DMARC1 p=reject"
		"p=reject; v=DMARC1",   // not first
		"v=spf1 -all",          // another protocol
		"vv=DMARC1",            // another tag
		"",                     // empty
		"v:DMARC1; p=reject",   // no "="
		"v=DMARC1,p=reject",    // wrong separator
		"version=DMARC1; p=no", // another tag name
	}
	want := []string{"v=DMARC1; p=reject", "V=DMARC1;p=none", "v = DMARC1 ; p=none", "v=DMARC1", "v=DMARC1;", "v=DMARC1\t"}
	assert.Equal(t, want, Select(in), "Select")
	assert.Nil(t, Select(nil), "Select(nil), want nil")
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", " v=DMARC1", "v=dmarc1", "p=none; v=DMARC1", "v=DMARC2", "v=DMARC1 p=none", "x"} {
		_, err := Parse(s)
		var se *SyntaxError
		assert.ErrorIs(t, err, ErrSyntax, "Parse(%q) error = %v, want a *SyntaxError for v wrapping ErrSyntax", s, err)
		if assert.ErrorAs(t, err, &se, "Parse(%q) error = %v, want a *SyntaxError for v wrapping ErrSyntax", s, err) {
			assert.Equal(t, "v", se.Tag, "Parse(%q) error = %v, want a *SyntaxError for v wrapping ErrSyntax", s, err)
		}
	}
}

// TestParseRecord compares whole Records for a few inputs.
func TestParseRecord(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want Record
	}{
		{"minimal", "v=DMARC1", Record{VersionName: "v", Findings: []Code{CodeMissingP}}},
		{"full", "v=DMARC1; p=reject; sp=quarantine; np=none; psd=n; t=n; adkim=s; aspf=r; fo=1:d; " +
			"rua=mailto:a@example.com; ruf=https://r.example.net/f",
			Record{
				VersionName: "v",
				Tags: []Tag{
					{"p", "reject"}, {"sp", "quarantine"}, {"np", "none"}, {"psd", "n"}, {"t", "n"},
					{"adkim", "s"}, {"aspf", "r"}, {"fo", "1:d"}, {"rua", "mailto:a@example.com"},
					{"ruf", "https://r.example.net/f"},
				},
				P: PolicyReject, SP: PolicyQuarantine, NP: PolicyNone, PSD: PSDNo, T: FlagNo,
				ADKIM: AlignmentStrict, ASPF: AlignmentRelaxed, FO: "1:d",
				RUA: []URI{{Raw: "mailto:a@example.com", Valid: true, Scheme: "mailto", Host: "example.com"}},
				RUF: []URI{{Raw: "https://r.example.net/f", Valid: true, Scheme: "https", Host: "r.example.net"}},
			}},
		{"whitespace-and-malformed", "V = DMARC1 ;  p = Reject ; junk ; =x ;; rua = mailto:a@b.example , x ;",
			Record{
				VersionName: "V",
				Tags:        []Tag{{"p", "Reject"}, {"", "junk"}, {"", "=x"}, {"rua", "mailto:a@b.example , x"}},
				P:           PolicyReject,
				RUA: []URI{
					{Raw: "mailto:a@b.example", Valid: true, Scheme: "mailto", Host: "b.example"},
					{Raw: "x"},
				},
				Findings: []Code{CodeInvalidRUA, CodeMalformedTag, CodeUppercaseVersionTag},
				BadTag:   2, // "junk"
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tc.in)
			require.NoError(t, err, "Parse(%q)", tc.in)
			assert.Equal(t, tc.want, got, "Parse(%q)", tc.in)
		})
	}
}

// summary is the part of a Record the tag table below checks.
type summary struct {
	P, SP, NP   Policy
	PSD         PSD
	T           Flag
	ADKIM, ASPF Alignment
	ValidRUA    bool
	Pct         bool
	Valid       bool // ValidPolicies
	Findings    []Code
}

func summarize(r Record) summary {
	return summary{r.P, r.SP, r.NP, r.PSD, r.T, r.ADKIM, r.ASPF, r.HasValidRUA(), r.HasPct, r.ValidPolicies(), r.Findings}
}

// TestParsePct: the historic pct tag is judged by its value: below 100
// (RFC 7489 receivers sample) it is legacy_pct; 100, the old default, or
// an invalid value those receivers replace by 100 is legacy_pct_100.
func TestParsePct(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		pct  int
		code Code
	}{
		{"pct=100", 100, CodeLegacyPctFull},
		{"pct=0", 0, CodeLegacyPct},
		{"pct=50", 50, CodeLegacyPct},
		{"pct=99", 99, CodeLegacyPct},
		{"pct=050", 50, CodeLegacyPct},
		{"pct=101", 100, CodeLegacyPctFull},
		{"pct=1000", 100, CodeLegacyPctFull},
		{"pct=+50", 100, CodeLegacyPctFull},
		{"pct=-1", 100, CodeLegacyPctFull},
		{"pct=half", 100, CodeLegacyPctFull},
		{"pct=", 100, CodeLegacyPctFull},
	} {
		rec, err := Parse("v=DMARC1; p=quarantine; " + tc.in)
		require.NoError(t, err, "Parse(%q)", tc.in)
		assert.True(t, rec.HasPct, "%s: HasPct", tc.in)
		assert.Equal(t, tc.pct, rec.Pct, "%s: Pct", tc.in)
		assert.Equal(t, []Code{tc.code}, rec.Findings, "%s: findings", tc.in)
	}
	rec, err := Parse("v=DMARC1; p=quarantine")
	require.NoError(t, err)
	assert.False(t, rec.HasPct, "no pct tag: HasPct")
	assert.Zero(t, rec.Pct, "no pct tag: Pct")
}

func TestParseTags(t *testing.T) {
	t.Parallel()
	const rua = "; rua=mailto:d@example.com"
	tests := []struct {
		name string
		in   string
		want summary
	}{
		{"reject", "v=DMARC1; p=reject", summary{P: PolicyReject, Valid: true}},
		{"keywords-any-case", "v=DMARC1; p=QuaRantine; sp=NONE; np=Reject; psd=Y; t=Y; adkim=S; aspf=R",
			summary{P: PolicyQuarantine, SP: PolicyNone, NP: PolicyReject, PSD: PSDYes, T: FlagYes,
				ADKIM: AlignmentStrict, ASPF: AlignmentRelaxed, Valid: true, Findings: []Code{CodeTestMode}}},
		{"missing-p", "v=DMARC1" + rua, summary{ValidRUA: true, Findings: []Code{CodeMissingP}}},
		{"empty-p", "v=DMARC1; p=", summary{P: PolicyInvalid, Findings: []Code{CodeInvalidP}}},
		{"invalid-p", "v=DMARC1; p=block", summary{P: PolicyInvalid, Findings: []Code{CodeInvalidP}}},
		{"p-with-space", "v=DMARC1; p=re ject", summary{P: PolicyInvalid, Findings: []Code{CodeInvalidP}}},
		{"p-with-control", "v=DMARC1; p=reject\r\n", summary{P: PolicyInvalid, Findings: []Code{CodeInvalidP}}},
		{"invalid-sp", "v=DMARC1; p=reject; sp=maybe",
			summary{P: PolicyReject, SP: PolicyInvalid, Findings: []Code{CodeInvalidSP}}},
		{"invalid-np", "v=DMARC1; p=reject; np=x",
			summary{P: PolicyReject, NP: PolicyInvalid, Findings: []Code{CodeInvalidNP}}},
		{"invalid-psd", "v=DMARC1; p=none; psd=yes",
			summary{P: PolicyNone, PSD: PSDInvalid, Valid: true, Findings: []Code{CodeInvalidPSD}}},
		{"psd-u", "v=DMARC1; p=none; psd=u", summary{P: PolicyNone, PSD: PSDUnknown, Valid: true}},
		{"invalid-t", "v=DMARC1; p=none; t=maybe",
			summary{P: PolicyNone, T: FlagInvalid, Valid: true, Findings: []Code{CodeInvalidT}}},
		{"invalid-alignment", "v=DMARC1; p=none; adkim=x; aspf=relaxed",
			summary{P: PolicyNone, ADKIM: AlignmentUnknown, ASPF: AlignmentUnknown, Valid: true,
				Findings: []Code{CodeInvalidADKIM, CodeInvalidASPF}}},
		{"fo-valid", "v=DMARC1; p=none; fo=0:d:s; ruf=mailto:f@example.com", summary{P: PolicyNone, Valid: true}},
		{"fo-0-and-1", "v=DMARC1; p=none; fo=0:1; ruf=mailto:f@example.com",
			summary{P: PolicyNone, Valid: true, Findings: []Code{CodeInvalidFO}}},
		{"fo-repeated", "v=DMARC1; p=none; fo=d:d; ruf=mailto:f@example.com",
			summary{P: PolicyNone, Valid: true, Findings: []Code{CodeInvalidFO}}},
		{"fo-empty-item", "v=DMARC1; p=none; fo=1:; ruf=mailto:f@example.com",
			summary{P: PolicyNone, Valid: true, Findings: []Code{CodeInvalidFO}}},
		{"fo-without-ruf", "v=DMARC1; p=none; fo=1", summary{P: PolicyNone, Valid: true, Findings: []Code{CodeFOWithoutRUF}}},
		{"legacy", "v=DMARC1; p=reject; pct=50; rf=afrf; ri=86400",
			summary{P: PolicyReject, Pct: true, Valid: true, Findings: []Code{CodeLegacyPct, CodeLegacyRF, CodeLegacyRI}}},
		{"duplicate-first-wins", "v=DMARC1; p=reject; p=none",
			summary{P: PolicyReject, Valid: true, Findings: []Code{CodeDuplicateTag}}},
		// Tag names are case-sensitive (RFC 9989 §4.7, RFC 6376 §3.2): P is
		// not p, so it is no duplicate; it is ignored.
		{"other-case-no-duplicate", "v=DMARC1; p=reject; P=none",
			summary{P: PolicyReject, Valid: true, Findings: []Code{CodeTagNameCase}}},
		{"duplicate-version", "v=DMARC1; p=reject; v=DMARC1",
			summary{P: PolicyReject, Valid: true, Findings: []Code{CodeDuplicateTag}}},
		{"duplicate-unknown", "v=DMARC1; p=reject; x=1; x=2",
			summary{P: PolicyReject, Valid: true, Findings: []Code{CodeDuplicateTag, CodeUnknownTag}}},
		{"unknown-tag", "v=DMARC1; p=reject; foo=bar", summary{P: PolicyReject, Valid: true, Findings: []Code{CodeUnknownTag}}},
		{"unknown-tag-empty", "v=DMARC1; p=reject; foo=",
			summary{P: PolicyReject, Valid: true, Findings: []Code{CodeMalformedTag, CodeUnknownTag}}},
		{"tag-name-digits", "v=DMARC1; p=reject; x1=y", summary{P: PolicyReject, Valid: true, Findings: []Code{CodeMalformedTag}}},
		{"no-equals", "v=DMARC1; p=reject; reject", summary{P: PolicyReject, Valid: true, Findings: []Code{CodeMalformedTag}}},
		{"uppercase-version", "V=DMARC1; p=reject", summary{P: PolicyReject, Valid: true, Findings: []Code{CodeUppercaseVersionTag}}},
		{"uppercase-tag", "v=DMARC1; P=reject", summary{Findings: []Code{CodeMissingP, CodeTagNameCase}}},
		{"uppercase-tag-rua", "v=DMARC1; P=reject" + rua, summary{ValidRUA: true, Findings: []Code{CodeMissingP, CodeTagNameCase}}},
		{"mixed-case-tags", "v=DMARC1; p=reject; Sp=none; aDkim=s",
			summary{P: PolicyReject, Valid: true, Findings: []Code{CodeTagNameCase}}},
		{"uppercase-unknown-tag", "v=DMARC1; p=reject; FOO=bar", summary{P: PolicyReject, Valid: true, Findings: []Code{CodeUnknownTag}}},
		{"trailing-separator", "v=DMARC1; p=reject;", summary{P: PolicyReject, Valid: true}},
		{"tabs", "v=DMARC1;\tp\t=\treject\t;", summary{P: PolicyReject, Valid: true}},
		{"rua-valid", "v=DMARC1; p=none" + rua, summary{P: PolicyNone, ValidRUA: true, Valid: true}},
		{"rua-list-spaces", "v=DMARC1; p=none; rua=mailto:a@example.com , mailto:b@example.net",
			summary{P: PolicyNone, ValidRUA: true, Valid: true}},
		{"rua-no-scheme", "v=DMARC1; p=none; rua=d@example.com", summary{P: PolicyNone, Valid: true, Findings: []Code{CodeInvalidRUA}}},
		{"rua-empty", "v=DMARC1; p=none; rua=", summary{P: PolicyNone, Valid: true, Findings: []Code{CodeInvalidRUA}}},
		{"rua-one-bad-one-good", "v=DMARC1; p=none; rua=bad,mailto:d@example.com",
			summary{P: PolicyNone, ValidRUA: true, Valid: true, Findings: []Code{CodeInvalidRUA}}},
		{"rua-size-suffix", "v=DMARC1; p=none; rua=mailto:d@example.com!10m",
			summary{P: PolicyNone, ValidRUA: true, Valid: true, Findings: []Code{CodeSizeSuffix}}},
		{"rua-other-scheme", "v=DMARC1; p=none; rua=ftp://example.com/x",
			summary{P: PolicyNone, ValidRUA: true, Valid: true, Findings: []Code{CodeUnsupportedScheme}}},
		{"ruf-invalid", "v=DMARC1; p=none; ruf=mailto:d@", summary{P: PolicyNone, Valid: true, Findings: []Code{CodeInvalidRUF}}},
		{"ruf-no-address", "v=DMARC1; p=none; ruf=mailto:", summary{P: PolicyNone, Valid: true, Findings: []Code{CodeURINoAddress}}},
		// A valid URI (RFC 3986, RFC 6068) naming no mailbox still supplies
		// the none fallback (RFC 9989 §4.10.1).
		{"rua-no-address", "v=DMARC1; rua=mailto:", summary{ValidRUA: true, Findings: []Code{CodeMissingP, CodeURINoAddress}}},
		{"fallback-none-needs-rua", "v=DMARC1; p=block" + rua,
			summary{P: PolicyInvalid, ValidRUA: true, Findings: []Code{CodeInvalidP}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := Parse(tc.in)
			require.NoError(t, err, "Parse(%q)", tc.in)
			assert.Equal(t, tc.want, summarize(r), "Parse(%q)", tc.in)
			again, err := Parse(r.String())
			assert.NoError(t, err, "round trip of %q via %q", tc.in, r.String())
			assert.Equal(t, r, again, "round trip of %q via %q", tc.in, r.String())
		})
	}
}

func TestParseURI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw  string
		want URI
	}{
		{"mailto:d@example.com", URI{Valid: true, Scheme: "mailto", Host: "example.com"}},
		{"MAILTO:D@Example.COM.", URI{Valid: true, Scheme: "mailto", Host: "example.com"}},
		{"mailto:d@example.com!10m", URI{Valid: true, Scheme: "mailto", Host: "example.com", SizeLimit: true}},
		{"mailto:d@example.com!10", URI{Valid: true, Scheme: "mailto", Host: "example.com", SizeLimit: true}},
		{"mailto:d@example.com!10K", URI{Valid: true, Scheme: "mailto", Host: "example.com", SizeLimit: true}},
		{"mailto:d@example.com!m", URI{}},   // no digits
		{"mailto:d@example.com!10x", URI{}}, // bad unit
		{"mailto:d!x@example.com", URI{}},   // raw "!" must be encoded
		{"mailto:d%21x@example.com", URI{Valid: true, Scheme: "mailto", Host: "example.com"}},
		{"mailto:a@example.com%2Cb@example.net", URI{Valid: true, Scheme: "mailto", Host: "example.com"}},
		{"mailto:first.last+tag@sub.example.com?subject=x", URI{Valid: true, Scheme: "mailto", Host: "sub.example.com"}},
		{"mailto:%22a%20b%22@example.com", URI{Valid: true, Scheme: "mailto", Host: "example.com"}},
		{"mailto:d@[192.0.2.1]", URI{Valid: true, Scheme: "mailto"}},
		{"mailto:d@localhost", URI{Valid: true, Scheme: "mailto", Host: "localhost"}},
		{"mailto:d@", URI{}},
		{"mailto:@example.com", URI{}},
		{"mailto:d.@example.com", URI{}},
		{"mailto:d..e@example.com", URI{}},
		{"mailto:d@-bad.example", URI{}},
		{"mailto:d@exa_mple.com", URI{}},
		{"mailto:d@example..com", URI{}},
		// RFC 6068 mailtoURI = "mailto:" [ to ] [ hfields ]: valid, no mailbox.
		{"mailto:", URI{Valid: true, Scheme: "mailto", NoAddress: true}},
		{"mailto:?subject=report", URI{Valid: true, Scheme: "mailto", NoAddress: true}},
		{"mailto:d e@example.com", URI{}},
		{"mailto:d@example.com%", URI{}},
		{"mailto:d@example.com%zz", URI{}},
		{"d@example.com", URI{}},
		{"https://r.example.com/dmarc?x=1", URI{Valid: true, Scheme: "https", Host: "r.example.com"}},
		{"https://user@r.example.com:8443/x", URI{Valid: true, Scheme: "https", Host: "r.example.com"}},
		{"https://[2001:db8::1]:443/x", URI{Valid: true, Scheme: "https"}},
		{"https://r.example.com:x/", URI{}},
		{"https:r.example.com", URI{}},
		{"https:///path", URI{}},
		{"http://r.example.com", URI{Valid: true, Scheme: "http", Host: "r.example.com"}},
		{"urn:isbn:0451450523", URI{Valid: true, Scheme: "urn"}},
		{"1abc:x", URI{}},
		{":x", URI{}},
		{"", URI{}},
		{"mailto:é@example.com", URI{}},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			t.Parallel()
			tc.want.Raw = tc.raw
			assert.Equal(t, tc.want, parseURI(tc.raw), "parseURI(%q)", tc.raw)
		})
	}
}

func TestRecordString(t *testing.T) {
	t.Parallel()
	r, err := Parse("V = DMARC1 ;p = reject;junk;; rua= mailto:a@example.com ,x ;")
	require.NoError(t, err)
	const want = "V=DMARC1; p=reject; junk; rua=mailto:a@example.com ,x"
	assert.Equal(t, want, r.String(), "String()")
	assert.Equal(t, "v=DMARC1", (Record{}).String(), "zero Record String()")
}
