package resolver_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestQuestionName: "." is the root, asked as such; an empty or invalid
// name cannot be asked.
func TestQuestionName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{".", "", true}, {"", "", false}, {"Example.COM.", "example.com", true}, {"com", "com", true},
		{"a..b", "", false}, {"..", "", false},
	} {
		got, ok := resolver.QuestionName(tc.in)
		assert.Equal(t, tc.ok, ok, "QuestionName(%q)", tc.in)
		if tc.ok {
			assert.Equal(t, tc.want, got, "QuestionName(%q)", tc.in)
		}
	}
}

// TestLookupRoot: the root's NS set is asked and answered (the canary's
// default question), by the Client and by the in-memory resolver; the
// owner of the records is the root, "".
func TestLookupRoot(t *testing.T) {
	t.Parallel()
	z, err := dnstest.Parse(dnstest.RootZone, ".")
	require.NoError(t, err)
	srv := dnstest.Start(t, z)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for name, r := range map[string]resolver.Resolver{"client": srv.Client(5 * time.Second), "memory": dnstest.NewResolver(z)} {
		a := r.Lookup(ctx, ".", resolver.TypeNS)
		require.Equal(t, resolver.Found, a.Outcome, "%s: %+v", name, a)
		require.Len(t, a.Records, 1, name)
		assert.Equal(t, "", a.Records[0].Name, name)
		assert.Equal(t, resolver.TypeNS, a.Records[0].Type, name)
		assert.Equal(t, resolver.ReasonInvalidName, r.Lookup(ctx, "", resolver.TypeNS).Reason, "%s: the empty name is not the root", name)
	}
}
