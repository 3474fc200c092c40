package testlab

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Corpus is the provider corpus of testdata/providers: zones imitating
// the set-ups large mail providers document for their customers, the
// MTA-STS policies they serve, and the verdicts expected of each domain,
// written from the RFCs (README.md there).
type Corpus struct {
	// Zone is the path of the zone file.
	Zone string
	// Policies are the MTA-STS policy bodies by policy host.
	Policies map[string]string
	// Domains are the expected verdicts, one per scanned domain.
	Domains []CorpusDomain `json:"domains"`
}

// CorpusDomain is what a scan of one corpus domain must find.
type CorpusDomain struct {
	Domain   string `json:"domain"`
	Selector string `json:"selector"`
	Provider string `json:"provider"`
	// Checks maps each check id to its expected status.
	Checks map[string]string `json:"checks"`
	Grade  string            `json:"grade"`
	Score  int               `json:"score"`
	// Divergent, when set, records a known disagreement of today's code
	// with the RFC-derived expectation.
	Divergent *CorpusDivergence `json:"divergent"`
}

// CorpusDivergence is a documented disagreement of the code with the
// expectation: what the code says now, and why.
type CorpusDivergence struct {
	Check string `json:"check"`
	Now   string `json:"now"`
	Grade string `json:"grade"`
	Score int    `json:"score"`
	Why   string `json:"why"`
}

// Want returns the statuses, grade and score today's code must give:
// the expectation, with a documented divergence applied.
func (d CorpusDomain) Want() (checks map[string]string, grade string, score int) {
	checks = make(map[string]string, len(d.Checks))
	for k, v := range d.Checks {
		checks[k] = v
	}
	grade, score = d.Grade, d.Score
	if v := d.Divergent; v != nil {
		checks[v.Check], grade, score = v.Now, v.Grade, v.Score
	}
	return checks, grade, score
}

// LoadCorpus reads the corpus in dir (testdata/providers).
func LoadCorpus(tb testing.TB, dir string) Corpus {
	tb.Helper()
	var c Corpus
	read := func(name string, v any) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			tb.Fatalf("corpus: %v", err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			tb.Fatalf("corpus: %s: %v", name, err)
		}
	}
	read("expected.json", &c)
	read("policies.json", &c.Policies)
	c.Zone = filepath.Join(dir, "providers.zone")
	if len(c.Domains) == 0 {
		tb.Fatal("corpus: no domains")
	}
	return c
}

// StartCorpus serves the corpus's zone and policies.
func StartCorpus(tb testing.TB, c Corpus) *Lab {
	tb.Helper()
	return Start(tb, []string{c.Zone}, c.Policies)
}

// Compared returns the statuses of got (check id → status) for the checks
// the expectation names, and the ids of got it names none for (a check
// added since the expectation was written: it is reported, not
// compared).
func (d CorpusDomain) Compared(got map[string]string) (compared map[string]string, unnamed []string) {
	compared = make(map[string]string, len(d.Checks))
	for id, st := range got {
		if _, ok := d.Checks[id]; ok {
			compared[id] = st
		} else {
			unnamed = append(unnamed, id)
		}
	}
	return compared, unnamed
}
