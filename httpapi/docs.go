package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/dmarc"
	"github.com/mailauth/mailauth/mtasts"
	ptrcheck "github.com/mailauth/mailauth/ptr" // ptr is the tests' pointer helper
	"github.com/mailauth/mailauth/spf"
)

// The developer pages, rendered once from templates and from what the code
// and the contract say: field tables from openapi.json, the score, grade
// and status tables from the root package, limits and error messages from
// this package's constants and catalogue.

// docPage is one developer page: its path, template, title and meta
// description.
type docPage struct {
	path, template, title, description string
}

var docPages = []docPage{
	{"/developers/api/", "api.html", "mailauth API",
		"The mailauth JSON API: scan a domain's " + checkNames() + ", or check one sending IP. Every field, the score, errors and limits."},
	{"/developers/cli/", "cli.html", "mailauth command line",
		"The mailauth command: scan a domain or a sending IP from a terminal, run the service, read its statistics."},
	{"/help/", "help-index.html", "mailauth help: the checks",
		"What each of mailauth's checks looks at, what a good record looks like, and how each finding is usually fixed."},
}

// checkNames lists the checks in order, in upper case, for prose: "MX,
// SPF, …, PTR and CAA".
func checkNames() string {
	ids := mailauth.CheckOrder()
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = strings.ToUpper(string(id))
	}
	last := len(names) - 1
	return strings.Join(names[:last], ", ") + " and " + names[last]
}

// docSchemaOrder lists the contract's objects in the order the API page
// shows them. A union (CheckSummary) is followed by its branches, one
// item schema per check, in the document's order (docSchemas).
var docSchemaOrder = []string{
	"ScanRequest", "PtrCheckRequest", "ScanSummary", "PtrCheckSummary", "CheckSummary",
	"SpfDiagnostics", "DmarcDiagnostics", "DkimDiagnostics", "MtaStsDiagnostics",
	"TlsRptDiagnostics", "PtrDiagnostics", "StatusCounts", "LocalizedText", "Health", "Error",
}

// docField is one property of a schema, as the page lists it.
type docField struct {
	Name, Type, Bounds, Description string
	Required                        bool
}

// docSchema is one object of the contract, or a union of objects.
type docSchema struct {
	Name, Description string
	Fields            []docField
	// Variants are a union's objects: which value of its discriminator
	// chooses which object.
	Variants []docVariant
}

// docVariant is one object of a union: the discriminator's value (a
// check id) that chooses it, and its diagnostics object ("" for none).
type docVariant struct {
	Value, Schema, Diagnostics string
}

// docGrade is one row of the grade table.
type docGrade struct {
	Grade    mailauth.Grade
	Min, Max int
}

// docRuleGroup is the status table of one check.
type docRuleGroup struct {
	ID    mailauth.CheckID
	Title mailauth.LocalizedText
	Rules []mailauth.StatusRule
}

// docError is one row of the error table.
type docError struct {
	Status    int
	Condition string
	Messages  []string
}

// docLimit is one row of the limits table.
type docLimit struct {
	Name, Value, AppliesTo string
}

// docData is everything the developer pages show.
type docData struct {
	Title, Path   string
	Checks        []mailauth.CheckID // the checks, in order (mailauth.CheckOrder)
	Description   string
	Help          *helpPage  // the check of a help page
	HelpPages     []helpPage // every check's help page
	BaseURL       string     // the base URL the examples use
	SendingIP     string     // the sending IP the examples use
	SendingIPv6   string     // the IPv6 sending IP the examples use
	Schemas       []docSchema
	Weights       []mailauth.ScoreWeight
	Grades        []docGrade
	SharedRules   []mailauth.StatusRule
	RuleGroups    []docRuleGroup
	Errors        []docError
	Limits        []docLimit
	ScanSample    string
	PtrSample     string
	HealthSample  string
	MaxBodyBytes  int
	RateLimit     int
	RateWindowSec int
}

// developerPages renders the developer pages and the help pages.
func developerPages() ([]page, error) {
	tmpl, err := template.New("").ParseFS(webFiles, "web/developers/*.html", "web/help/*.html")
	if err != nil {
		return nil, fmt.Errorf("developer page templates: %w", err)
	}
	data, err := newDocData()
	if err != nil {
		return nil, err
	}
	out := make([]page, 0, len(docPages)+len(data.HelpPages))
	render := func(path, name string, d docData) error {
		var b bytes.Buffer
		if err := tmpl.ExecuteTemplate(&b, name, d); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, htmlPage(path, b.Bytes()))
		return nil
	}
	for _, p := range docPages {
		data.Title, data.Path, data.Description = p.title, p.path, p.description
		if err := render(p.path, p.template, data); err != nil {
			return nil, err
		}
	}
	for i := range data.HelpPages {
		h := &data.HelpPages[i]
		d := data
		d.Help, d.Path = h, h.Path
		d.Title = "mailauth help: " + h.Title.EN
		d.Description = "What mailauth's " + h.Title.EN + " check looks at, what a good record looks like, and how each finding is usually fixed."
		if err := render(h.Path, "help.html", d); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// newDocData collects the tables the pages show.
func newDocData() (docData, error) {
	d := docData{
		Checks:        mailauth.CheckOrder(),
		Weights:       mailauth.ScoreWeights(),
		Grades:        docGrades(),
		Errors:        docErrors(),
		Limits:        docLimits(),
		MaxBodyBytes:  MaxBodyBytes,
		RateLimit:     DefaultRateLimit,
		RateWindowSec: int(DefaultRateWindow.Seconds()),
	}
	d.SharedRules, d.RuleGroups = docRules()
	d.BaseURL, d.SendingIP, d.SendingIPv6 = docBaseURL, docSendingIP, docSendingIPv6
	var err error
	if d.HelpPages, err = helpPages(); err != nil {
		return d, err
	}
	if d.Schemas, err = docSchemas(openAPIDocument); err != nil {
		return d, err
	}
	if d.ScanSample, err = readSample("web/developers/sample-scan.json"); err != nil {
		return d, err
	}
	if d.PtrSample, err = readSample("web/developers/sample-ptr-check.json"); err != nil {
		return d, err
	}
	d.HealthSample, err = readSample("web/developers/sample-health.json")
	return d, err
}

// The values the documented examples use: the address `mailauth serve`
// listens on by default (the pages replace it with their own origin in a
// browser, see doc.js), and public sending IPs the API accepts (not the
// documentation ranges, which it rejects) that the loopback lab of the
// tests serves (TestDocumentedExamples runs every example).
const (
	docBaseURL     = "http://127.0.0.1:8080"
	docSendingIP   = "8.8.8.8"
	docSendingIPv6 = "2001:4860:4860::8888"
)

func readSample(name string) (string, error) {
	b, err := webFiles.ReadFile(name)
	return string(b), err
}

// docGrades turns the grade floors into ranges.
func docGrades() []docGrade {
	var out []docGrade
	top := 100
	for _, f := range mailauth.GradeFloors() {
		out = append(out, docGrade{Grade: f.Grade, Min: f.MinScore, Max: top})
		top = f.MinScore - 1
	}
	return out
}

// docRules groups the status rules by check.
func docRules() (shared []mailauth.StatusRule, groups []docRuleGroup) {
	byCheck := map[mailauth.CheckID][]mailauth.StatusRule{}
	for _, r := range mailauth.StatusRules() {
		if r.Check == "" {
			shared = append(shared, r)
			continue
		}
		byCheck[r.Check] = append(byCheck[r.Check], r)
	}
	for _, id := range mailauth.CheckOrder() {
		groups = append(groups, docRuleGroup{ID: id, Title: mailauth.CheckTitle(id), Rules: byCheck[id]})
	}
	return shared, groups
}

// docErrors is the contract's error table with the service's messages.
func docErrors() []docError {
	return []docError{
		{http.StatusBadRequest, "Invalid JSON body, unknown or repeated field, malformed query string, invalid domain, selector, sending IP or utm_source.",
			[]string{errBodyRead.msg, errBodyEncoding.msg, errBodySyntax.msg, errBodyNotObject.msg, errBodyTrailing.msg,
				errUnknownField.msg, errDuplicateField.msg, errQuerySyntax.msg, errUTMRepeated.msg,
				"FIELD: RULE (names the field and the rule, never the value)"}},
		{http.StatusNotFound, "No such path. A browser asking for a page (GET or HEAD outside /api/, text/html in Accept) gets an HTML page instead.", []string{errNotFound.msg}},
		{http.StatusMethodNotAllowed, "Wrong method for the path (the Allow header lists the right ones). OPTIONS too: cross-origin requests are not supported.", []string{errMethod.msg}},
		{http.StatusRequestEntityTooLarge, "The request body exceeds 8 KiB.", []string{errTooLarge.msg}},
		{http.StatusUnsupportedMediaType, "Content-Type is not application/json.", []string{errMediaType.msg}},
		{http.StatusTooManyRequests, "Over the rate limit of the source address, or of its IPv6 network, or its diagnostic time used up; Retry-After gives the whole seconds until the window resets (at least 1).",
			[]string{errRateLimited.msg, errNetworkLimited.msg, errSourceBudget.msg}},
		{http.StatusInternalServerError, "A DNS, HTTPS, storage or runtime dependency is temporarily unavailable, DNS answers were unusable for most checks or the scan ran out of time waiting for the domain's servers (no grade can be given), or the service's capacity (or this source's share of it) is in use; retry later.",
			[]string{errResolverDown.msg, errScanIncomplete.msg, errScanSlow.msg, errBusy.msg, errLimiterDown.msg, errCanceledRequest.msg, errInternal.msg}},
	}
}

// docLimits is the limits table, from the constants that enforce it.
func docLimits() []docLimit {
	n := func(v int) string { return fmt.Sprint(v) }
	checks := len(mailauth.CheckOrder())
	return []docLimit{
		{"Request body size", n(MaxBodyBytes) + " bytes (8 KiB)", "scan, ptr-check"},
		{"Request rate", fmt.Sprintf("%d requests per %d-second window per source address (IPv4 address or IPv6 /64), shared by both endpoints", DefaultRateLimit, int(DefaultRateWindow.Seconds())), "scan, ptr-check"},
		{"IPv6 network rate", fmt.Sprintf("%d requests per window per /56, %d per /48 (429 beyond)", network56Factor*DefaultRateLimit, network48Factor*DefaultRateLimit), "scan, ptr-check"},
		{"Remaining allowance", "reported in X-RateLimit-Remaining on 200", "scan, ptr-check"},
		{"Diagnostics in flight", fmt.Sprintf("%d per source address, %d per IPv6 /56, %d per /48; a request waits its turn at most %d seconds (500 beyond); while the service is busy, a scan whose domain has sent no DNS reply and no byte of its MTA-STS policy for %d seconds may be ended early for a waiting request (one that had replies only for a source with nothing recent), its unanswered lookups reported as slow",
			DefaultSourceInFlight, networkInFlight56, networkInFlight48, int(DefaultQueueWait.Seconds()), int(noProgressAfter.Seconds())), "scan, ptr-check"},
		{"Diagnostic time", fmt.Sprintf("%d seconds per source address per window, twice that per IPv6 /56, four times per /48, each diagnostic charged its deadline when it starts and refunded what it did not use (429 with Retry-After when used up)", int(DefaultSourceBudget.Seconds())), "scan, ptr-check"},
		{"Connections", fmt.Sprintf("%d per source address, %d per IPv6 /56, %d per /48, %d in all (a connection refused at that cap is answered 500 with Retry-After when it can be; a request body slower than %d bytes a second may be cut off there)",
			DefaultMaxConnsPerSource, connsPer56Factor*DefaultMaxConnsPerSource, connsPer48Factor*DefaultMaxConnsPerSource, DefaultMaxConns, minBodyRate), "every path"},
		{"domain length", n(mailauth.MinDomainLen) + ".." + n(mailauth.MaxDomainLen), "scan"},
		{"dkimSelector length", "1.." + n(mailauth.MaxSelectorLen), "scan"},
		{"sendingIp length", n(mailauth.MinSendingIPLen) + ".." + n(mailauth.MaxSendingIPLenScan) + " (scan), " + n(mailauth.MinSendingIPLen) + ".." + n(mailauth.MaxSendingIPLenPtr) + " (ptr-check)", "scan, ptr-check"},
		{"utm_source", "pattern ^[a-z0-9][a-z0-9._-]{0,63}$", "scan, ptr-check"},
		{"SPF DNS lookup limit", n(spf.MaxLookups) + " (RFC 7208 §4.6.4)", "spf diagnostics"},
		{"DMARC tree-walk queries", "1.." + n(dmarc.MaxTreeWalk) + " (RFC 9989)", "dmarc diagnostics"},
		{"PTR forward lookups", "0.." + n(ptrcheck.MaxForward) + " hostnames", "ptr diagnostics"},
		{"MTA-STS maxAge", "0.." + n(mtasts.MaxMaxAge) + " seconds (RFC 8461)", "mta-sts diagnostics"},
		{"Checks per scan", "exactly " + n(checks), "scan"},
		{"Score", "0..100", "scan"},
		{"Each status count", "0.." + n(checks), "scan"},
	}
}

// docSchemas reads the field tables of the contract's objects from the
// OpenAPI document.
func docSchemas(doc []byte) ([]docSchema, error) {
	var spec struct {
		Components struct {
			Schemas map[string]schemaDoc `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &spec); err != nil {
		return nil, fmt.Errorf("openapi.json: %w", err)
	}
	var out []docSchema
	for _, name := range docSchemaOrder {
		s, ok := spec.Components.Schemas[name]
		if !ok {
			return nil, fmt.Errorf("openapi.json: no schema %s", name)
		}
		d := s.doc(name)
		var branches []docSchema
		for _, o := range s.OneOf {
			b, ok := spec.Components.Schemas[refName(o.Ref)]
			if o.Ref == "" || !ok {
				return nil, fmt.Errorf("openapi.json: %s: a branch that is not a schema of the document (%q)", name, o.Ref)
			}
			d.Variants = append(d.Variants, b.variant(refName(o.Ref)))
			branches = append(branches, b.doc(refName(o.Ref)))
		}
		out = append(append(out, d), branches...)
	}
	return out, nil
}

// variant is the row of the union's table for its branch name.
func (s schemaDoc) variant(name string) docVariant {
	v := docVariant{Schema: name}
	for _, p := range s.Properties {
		switch p.name {
		case "id":
			v.Value = fmt.Sprint(p.schema.Const)
		case "diagnostics":
			v.Diagnostics = refName(p.schema.Ref)
		}
	}
	return v
}

// schemaDoc is the part of a JSON Schema the field tables show.
type schemaDoc struct {
	Description string          `json:"description"`
	Required    []string        `json:"required"`
	Properties  orderedProps    `json:"properties"`
	Type        json.RawMessage `json:"type"`
	Ref         string          `json:"$ref"`
	Enum        []any           `json:"enum"`
	Const       any             `json:"const"`
	Format      string          `json:"format"`
	Pattern     string          `json:"pattern"`
	MinLength   *int            `json:"minLength"`
	MaxLength   *int            `json:"maxLength"`
	Minimum     *int            `json:"minimum"`
	Maximum     *int            `json:"maximum"`
	MinItems    *int            `json:"minItems"`
	MaxItems    *int            `json:"maxItems"`
	Items       *schemaDoc      `json:"items"`
	OneOf       []schemaDoc     `json:"oneOf"`
}

// orderedProps keeps the properties in the document's order.
type orderedProps []namedSchema

type namedSchema struct {
	name   string
	schema schemaDoc
}

func (o *orderedProps) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name, ok := tok.(string)
		if !ok {
			return fmt.Errorf("properties: %v is not a property name", tok)
		}
		var s schemaDoc
		if err := dec.Decode(&s); err != nil {
			return err
		}
		*o = append(*o, namedSchema{name, s})
	}
	return nil
}

// doc renders the schema as a field table.
func (s schemaDoc) doc(name string) docSchema {
	d := docSchema{Name: name, Description: s.Description}
	for _, p := range s.Properties {
		d.Fields = append(d.Fields, docField{
			Name:        p.name,
			Type:        p.schema.typeName(),
			Bounds:      p.schema.bounds(),
			Description: p.schema.Description,
			Required:    slices.Contains(s.Required, p.name),
		})
	}
	return d
}

// typeName is "integer", "string or null", "CheckSummary[]", ...
func (s schemaDoc) typeName() string {
	switch {
	case s.Ref != "":
		return refName(s.Ref)
	case len(s.OneOf) > 0:
		names := make([]string, 0, len(s.OneOf))
		for _, o := range s.OneOf {
			names = append(names, o.typeName())
		}
		return "one of " + strings.Join(names, ", ")
	}
	var one string
	var many []string
	if json.Unmarshal(s.Type, &one) == nil {
		many = []string{one}
	} else {
		_ = json.Unmarshal(s.Type, &many)
	}
	if len(many) > 0 && many[0] == "array" && s.Items != nil {
		many[0] = s.Items.typeName() + "[]"
	}
	return strings.Join(many, " or ")
}

// bounds lists the schema's constraints.
func (s schemaDoc) bounds() string {
	var b []string
	rng := func(label string, lo, hi *int) {
		switch {
		case lo != nil && hi != nil:
			b = append(b, fmt.Sprintf("%s %d..%d", label, *lo, *hi))
		case lo != nil:
			b = append(b, fmt.Sprintf("%s ≥ %d", label, *lo))
		case hi != nil:
			b = append(b, fmt.Sprintf("%s ≤ %d", label, *hi))
		}
	}
	rng("length", s.MinLength, s.MaxLength)
	rng("value", s.Minimum, s.Maximum)
	rng("items", s.MinItems, s.MaxItems)
	if s.Pattern != "" {
		b = append(b, "pattern "+s.Pattern)
	}
	if s.Format != "" {
		b = append(b, "format "+s.Format)
	}
	if s.Const != nil {
		b = append(b, fmt.Sprintf("always %v", s.Const))
	}
	if len(s.Enum) > 0 {
		words := make([]string, 0, len(s.Enum))
		for _, e := range s.Enum {
			if e == nil {
				words = append(words, "null")
				continue
			}
			words = append(words, fmt.Sprint(e))
		}
		b = append(b, "one of "+strings.Join(words, ", "))
	}
	return strings.Join(b, "; ")
}

// refName is the schema name of a local $ref.
func refName(ref string) string {
	return ref[strings.LastIndex(ref, "/")+1:]
}
