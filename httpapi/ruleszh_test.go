package httpapi

import (
	"net/netip"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/internal/ipclass"
)

// jsTableKeys returns the quoted keys of the object literal `var name = {…};`
// of app.js.
func jsTableKeys(t *testing.T, js, name string) map[string]bool {
	t.Helper()
	start := strings.Index(js, "var "+name+" = {")
	require.GreaterOrEqual(t, start, 0, "app.js has no %s", name)
	end := strings.Index(js[start:], "};")
	require.Positive(t, end, "%s is not closed", name)
	keys := map[string]bool{}
	for _, m := range regexp.MustCompile(`"([^"]+)":`).FindAllStringSubmatch(js[start:start+end], -1) {
		keys[m[1]] = true
	}
	return keys
}

// TestPageTranslatesEveryRule: the web page's Chinese texts of a 400
// (RULES_ZH and RANGES_ZH in app.js) have a key for every rule text the
// service can answer (the InputError rules and the HTTP layer's own) and
// for every address range a sending IP can be refused for; and the
// not-public message has the form app.js takes apart.
func TestPageTranslatesEveryRule(t *testing.T) {
	t.Parallel()
	ps, err := pages()
	require.NoError(t, err)
	js := string(mustAsset(t, ps, "/static/app.js"))

	rules := jsTableKeys(t, js, "RULES_ZH")
	for _, msg := range append(mailauth.InputRuleMessages(), ruleRequired, ruleNotString) {
		assert.True(t, rules[msg], "RULES_ZH has no Chinese for %q", msg)
	}

	ranges := jsTableKeys(t, js, "RANGES_ZH")
	require.NotEmpty(t, ipclass.Refused())
	for _, class := range ipclass.Refused() {
		assert.True(t, ranges[strings.ReplaceAll(string(class), "_", " ")], "RANGES_ZH has no Chinese for the %s range", class)
	}

	_, err = mailauth.PTRCheckSendingIP.Normalize("10.0.0.1")
	require.Error(t, err)
	assert.Equal(t, "sendingIp: not a public address (private range)", err.Error())
	assert.Contains(t, js, `/^not a public address \((.+) range\)$/`, "app.js reads the range from the message")
	assert.Equal(t, ipclass.Private, ipclass.Classify(netip.MustParseAddr("10.0.0.1")))
}
