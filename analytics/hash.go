package analytics

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/keyed"
)

// Source labels that are not utm_source values.
const (
	SourceDirect = "direct" // no utm_source
	SourceOther  = "other"  // a utm_source outside the allow-list
)

// DefaultSourceLabels is the default allow-list of utm_source values kept
// as labels.
var DefaultSourceLabels = []string{"web", "cli", "api", "docs", "github", "newsletter"}

// MinSecretBytes is the shortest secret accepted: an HMAC key below 128
// bits could be guessed by whoever holds the hashes.
const MinSecretBytes = 16

// dayLayout is the form of a UTC day in the store.
const dayLayout = "2006-01-02"

// ErrShortSecret is returned for a secret under MinSecretBytes.
var ErrShortSecret = fmt.Errorf("analytics: secret shorter than %d bytes", MinSecretBytes)

// Checks are the check ids of a row's status columns, in answer order:
// the scanner's checks table (mailauth.CheckOrder). Each has its column
// (statusColumn), which a migration must create.
var Checks = checkIDs()

func checkIDs() []string {
	var out []string
	for _, id := range mailauth.CheckOrder() {
		out = append(out, string(id))
	}
	return out
}

// Row is what is stored for one diagnostic: hashes, labels and statuses
// only.
type Row struct {
	Day        string            // UTC day, YYYY-MM-DD
	Endpoint   string            // httpapi.EndpointScan or httpapi.EndpointPtrCheck
	DomainHash string            // hex HMAC of the domain; "" for a ptr-check
	Visitor    string            // hex HMAC of the client under the day's key
	Source     string            // an allowed label, SourceOther or SourceDirect
	Grade      string            // "" for a ptr-check
	Statuses   map[string]string // check id → pass, warn, fail, info or undetermined
}

// Hasher turns events into rows.
type Hasher struct {
	secret []byte
	labels []string
}

// NewHasher returns a Hasher with secret and the allowed source labels,
// each of which must be a valid utm_source value.
func NewHasher(secret []byte, labels []string) (*Hasher, error) {
	if len(secret) < MinSecretBytes {
		return nil, ErrShortSecret
	}
	for _, l := range labels {
		if err := mailauth.ValidateUTMSource(l); err != nil {
			return nil, fmt.Errorf("analytics: source label %q: %w", l, err)
		}
	}
	return &Hasher{secret: slices.Clone(secret), labels: slices.Clone(labels)}, nil
}

// Row hashes e. Only the returned row leaves this function.
func (h *Hasher) Row(e httpapi.Event) Row {
	day := e.Time.UTC().Format(dayLayout)
	r := Row{
		Day:      day,
		Endpoint: e.Endpoint,
		Visitor:  h.visitor(day, e.Client),
		Source:   h.source(e.UTMSource),
		Grade:    e.Grade,
		Statuses: make(map[string]string, len(e.Checks)),
	}
	if e.Domain != "" {
		r.DomainHash = h.Domain(e.Domain)
	}
	for _, c := range e.Checks {
		if slices.Contains(Checks, c.ID) {
			r.Statuses[c.ID] = c.Status
		}
	}
	return r
}

// Domain is the keyed hash of a normalized domain (case-folded).
func (h *Hasher) Domain(domain string) string {
	return keyed.Hex(h.secret, keyed.PurposeDomain, strings.ToLower(domain))
}

// visitor is the keyed hash of a client under the key of its UTC day: the
// same client on another day gets an unrelated hash.
func (h *Hasher) visitor(day, client string) string {
	return keyed.Hex(keyed.Sum(h.secret, keyed.PurposeDayKey, day), keyed.PurposeVisitor, client)
}

// source is the stored label of a utm_source value.
func (h *Hasher) source(utm string) string {
	switch {
	case utm == "":
		return SourceDirect
	case slices.Contains(h.labels, utm):
		return utm
	}
	return SourceOther
}

// Day returns the store's form of t's UTC day.
func Day(t time.Time) string { return t.UTC().Format(dayLayout) }

// errClosed is the error of a Flush after Close.
var errClosed = errors.New("analytics: writer closed")
