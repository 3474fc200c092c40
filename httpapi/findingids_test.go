package httpapi

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/mailauth/mailauth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// anchorsOn returns the element ids of a rendered page.
func anchorsOn(t *testing.T, body []byte) map[string]bool {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(body))
	require.NoError(t, err)
	out := map[string]bool{}
	walk(doc, func(n *html.Node) {
		if id := attr(n, "id"); n.Type == html.ElementNode && id != "" {
			assert.False(t, out[id], "element id %q twice on one page", id)
			out[id] = true
		}
	})
	return out
}

// TestEveryFindingAnchored: every finding of the judgement tables has an
// anchor, its id, on its check's help page (a shared finding on every
// help page), and a summary saying it, with any counts, is mapped back to
// that id by the pattern the web page uses; no sentence maps to two ids.
func TestEveryFindingAnchored(t *testing.T) {
	t.Parallel()
	ps, err := pages()
	require.NoError(t, err)
	anchors := map[mailauth.CheckID]map[string]bool{}
	for _, id := range mailauth.CheckOrder() {
		anchors[id] = anchorsOn(t, mustAsset(t, ps, helpPath(id)))
	}
	for _, r := range mailauth.StatusRules() {
		checks := []mailauth.CheckID{r.Check}
		if r.Check == "" {
			checks = mailauth.CheckOrder()
		}
		for _, c := range checks {
			assert.True(t, anchors[c][r.ID], "%s: no anchor %q on %s", r.ID, r.ID, helpPath(c))
			for _, n := range []string{"1", "12"} {
				said := countWord.ReplaceAllString(r.Text.EN, n)
				assert.Equal(t, r.ID, findingOf(c, said), "%s: the page maps %q to another finding", c, said)
			}
		}
	}
	assert.Equal(t, "", findingOf(mailauth.CheckSPF, "A sentence no rule says."), "a sentence of no rule")
	assert.Equal(t, "", findingOf(mailauth.CheckMX, "The DMARC policy is none: it only collects reports and does not stop spoofed mail."),
		"another check's finding is not this check's")
}

// TestJudgedFindingsHaveAnchors: every summary of a real scan and of the
// service's fixed summaries (could not be determined, a fault of the
// domain's DNS, a name that does not exist) is a finding with an anchor.
func TestJudgedFindingsHaveAnchors(t *testing.T) {
	t.Parallel()
	ps, err := pages()
	require.NoError(t, err)
	type check struct {
		ID      mailauth.CheckID
		Summary mailauth.LocalizedText
	}
	var judged []check
	for _, f := range []string{"testdata/golden/scan-real.json", "testdata/golden/ptr-check-real.json"} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var resp struct {
			Checks []check
			Check  *check // a ptr-check
		}
		require.NoError(t, json.Unmarshal(b, &resp), f)
		if resp.Check != nil {
			resp.Checks = append(resp.Checks, *resp.Check)
		}
		require.NotEmpty(t, resp.Checks, f)
		judged = append(judged, resp.Checks...)
	}
	// The fixed summaries name no check: each belongs to the first check
	// that has it, or to all.
	fixed := append([]mailauth.LocalizedText{mailauth.NXDomainSummary()}, mailauth.UndeterminedSummaries()...)
	for _, texts := range mailauth.FaultSummaries() {
		fixed = append(fixed, texts...)
	}
	for _, s := range fixed {
		owner := mailauth.CheckOrder()[0]
		for _, c := range mailauth.CheckOrder() {
			if findingOf(c, s.EN) != "" {
				owner = c
				break
			}
		}
		judged = append(judged, check{owner, s})
	}
	for _, c := range judged {
		id := findingOf(c.ID, c.Summary.EN)
		if assert.NotEmpty(t, id, "%s: the summary %q is no finding", c.ID, c.Summary.EN) {
			assert.True(t, strings.HasPrefix(id, string(c.ID)+".") || strings.HasPrefix(id, "scan."), "%s: %s", c.ID, id)
			assert.True(t, anchorsOn(t, mustAsset(t, ps, helpPath(c.ID)))[id], "%s: no anchor for %s", c.ID, id)
		}
	}
}
