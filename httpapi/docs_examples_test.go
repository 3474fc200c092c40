package httpapi

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// curlExample is one documented curl command and the status its text
// says it gets (200 unless the example shows another).
type curlExample struct {
	where, command string
	want           int
}

// shellWords splits a command line as a POSIX shell would for the simple
// commands the documentation shows: words separated by blanks, single and
// double quotes, and backslash-newline continuations.
func shellWords(line string) ([]string, error) {
	line = strings.ReplaceAll(line, "\\\n", " ")
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'' || c == '"':
			end := strings.IndexByte(line[i+1:], c)
			if end < 0 {
				return nil, fmt.Errorf("unclosed quote in %q", line)
			}
			cur.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// statusLine finds the status an example's shown output starts with.
var statusLine = regexp.MustCompile(`(?m)^HTTP/1\.1 (\d{3}) `)

// curlExamples collects the curl commands of a code block: a command
// starts at a line beginning with "curl " (or "$ curl ") and runs over
// its backslash-newline continuations.
func curlExamples(where, block string) []curlExample {
	var out []curlExample
	want := http.StatusOK
	if m := statusLine.FindStringSubmatch(block); m != nil {
		want, _ = strconv.Atoi(m[1])
	}
	lines := strings.Split(block, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimPrefix(strings.TrimSpace(lines[i]), "$ ")
		if !strings.HasPrefix(l, "curl ") {
			continue
		}
		cmd := l
		for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
			i++
			cmd += "\n" + strings.TrimSpace(lines[i])
		}
		out = append(out, curlExample{where: where, command: cmd, want: want})
	}
	return out
}

// pageCodeBlocks are the texts of the <pre><code> blocks of an HTML page.
func pageCodeBlocks(t *testing.T, body []byte) []string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(string(body)))
	require.NoError(t, err)
	var out []string
	walk(doc, func(n *html.Node) {
		if n.Data == "code" && n.Parent != nil && n.Parent.Data == "pre" {
			out = append(out, text(n))
		}
	})
	return out
}

// readmeCodeBlocks are README.md's indented code blocks.
func readmeCodeBlocks(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "    ") {
			cur = append(cur, strings.TrimPrefix(l, "    "))
			continue
		}
		if strings.TrimSpace(l) != "" {
			flush()
		}
	}
	flush()
	return out
}

// curlRequest turns the words of a documented curl command into a
// request to base (which replaces the documented base URL).
func curlRequest(words []string, base string) (*http.Request, error) {
	method, target, body := http.MethodGet, "", ""
	header := http.Header{}
	for i := 1; i < len(words); i++ {
		w := words[i]
		switch w {
		case "-sS", "-s", "-S", "-i":
		case "-X":
			i++
			method = words[i]
		case "-H":
			i++
			name, value, ok := strings.Cut(words[i], ":")
			if !ok {
				return nil, fmt.Errorf("header %q", words[i])
			}
			header.Set(strings.TrimSpace(name), strings.TrimSpace(value))
		case "-d":
			i++
			body = words[i]
			if method == http.MethodGet {
				method = http.MethodPost
			}
		default:
			if strings.HasPrefix(w, "-") {
				return nil, fmt.Errorf("curl option %s is not understood by the test", w)
			}
			if !strings.HasPrefix(w, docBaseURL+"/") {
				return nil, fmt.Errorf("the URL %s does not start with the page's base URL %s", w, docBaseURL)
			}
			target = base + strings.TrimPrefix(w, docBaseURL)
		}
	}
	if target == "" {
		return nil, fmt.Errorf("no URL")
	}
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = header
	return req, nil
}

// TestDocumentedExamples runs every curl example of /developers/api/,
// /developers/cli/ and README.md, as written but for the base URL, against
// the service over the loopback lab: each gets the status it shows (200
// unless it shows another), so no example uses an address the API
// rejects. The command-line examples run in cmd/mailauth.
func TestDocumentedExamples(t *testing.T) {
	t.Parallel()
	ts, _ := NewLabServer(t, Options{})
	ps, err := pages()
	require.NoError(t, err)
	var examples []curlExample
	for _, path := range []string{"/developers/api/", "/developers/cli/"} {
		for _, block := range pageCodeBlocks(t, mustAsset(t, ps, path)) {
			examples = append(examples, curlExamples(path, block)...)
		}
	}
	for _, block := range readmeCodeBlocks(t) {
		examples = append(examples, curlExamples("README.md", block)...)
	}
	require.GreaterOrEqual(t, len(examples), 5, "the documentation has at least five curl examples")
	for _, ex := range examples {
		words, err := shellWords(ex.command)
		require.NoError(t, err)
		req, err := curlRequest(words, ts.URL)
		if !assert.NoError(t, err, "%s: %s", ex.where, ex.command) {
			continue
		}
		resp, err := ts.Client().Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, ex.want, resp.StatusCode, "%s: %s answers %s", ex.where, ex.command, b)
	}
}

// TestDocumentedIPsAccepted: the sending IPs the examples use are ones
// the API accepts (not documentation ranges), in both forms.
func TestDocumentedIPsAccepted(t *testing.T) {
	t.Parallel()
	ts, _ := NewLabServer(t, Options{})
	for _, ip := range []string{docSendingIP, docSendingIPv6} {
		r := ts.PostJSON(t, "/api/ptr-check", `{"sendingIp":"`+ip+`"}`)
		assert.Equal(t, http.StatusOK, r.StatusCode, "%s: %s", ip, r.Body)
	}
}
