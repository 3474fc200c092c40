package httpapi

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// bilingualBlocks are the elements TestDocPagesBilingual looks at: prose
// paragraphs, list items and headings.
var bilingualBlocks = []string{"p", "li", "h1", "h2", "h3", "h4", "h5", "h6"}

// TestDocPagesBilingual: on the developer and help pages, which show one
// language at a time, every paragraph, list item and heading inside <main>
// is in the language being shown. The rule: an element passes when it (or
// an ancestor) has class "en" or "zh", or when every letter of its text is
// inside something that shows the same in both languages: a descendant of
// class "en"/"zh" (twins), <code>, <pre>, or an element marked
// translate="no" (a command, a path or a schema name, which are not
// translated). What is left over may only be spaces, digits and
// punctuation. The one deliberate exception is an element with a lang
// attribute and no class: text that has only one language by design and
// shows in both modes (a schema description from /openapi.json, English
// like the field tables under it). A plain element of English prose shows
// English in Chinese mode, which is the bug this test keeps out.
func TestDocPagesBilingual(t *testing.T) {
	t.Parallel()
	ps, err := pages()
	require.NoError(t, err)
	checked := 0
	for _, p := range ps {
		if !strings.HasPrefix(p.path, "/developers/") && !strings.HasPrefix(p.path, "/help/") {
			continue
		}
		doc, err := html.Parse(bytes.NewReader(p.body))
		require.NoError(t, err)
		main := findMain(doc)
		require.NotNil(t, main, "%s: no <main>", p.path)
		checked++
		walk(main, func(n *html.Node) {
			if !slices.Contains(bilingualBlocks, n.Data) || inLanguage(n) || attr(n, "lang") != "" || attr(n, "translate") == "no" {
				return
			}
			if left := untranslated(n); strings.IndexFunc(left, unicode.IsLetter) >= 0 {
				assert.Failf(t, "not bilingual", "%s: <%s> shows %q in both languages; give it class en or zh, twin spans, or mark neutral text translate=\"no\"", p.path, n.Data, strings.TrimSpace(left))
			}
		})
	}
	assert.GreaterOrEqual(t, checked, 4, "developer and help pages checked")
}

func findMain(n *html.Node) *html.Node {
	var found *html.Node
	walk(n, func(n *html.Node) {
		if n.Data == "main" && found == nil {
			found = n
		}
	})
	return found
}

// inLanguage reports whether n or an ancestor shows in one language only.
func inLanguage(n *html.Node) bool {
	for ; n != nil; n = n.Parent {
		if hasLangClass(n) {
			return true
		}
	}
	return false
}

func hasLangClass(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	classes := strings.Fields(attr(n, "class"))
	return slices.Contains(classes, "en") || slices.Contains(classes, "zh")
}

// untranslated is the text of n outside language-specific and neutral
// descendants.
func untranslated(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
			return
		case n.Type == html.ElementNode && (hasLangClass(n) || n.Data == "code" || n.Data == "pre" || attr(n, "translate") == "no"):
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		rec(c)
	}
	return b.String()
}
