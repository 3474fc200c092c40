package dane

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func FuzzParse(f *testing.F) {
	f.Add(rdata(3, 1, 1, sha(32)))
	f.Add(rdata(2, 0, 2, sha(64)))
	f.Add(rdata(0, 0, 0, sha(300)))
	f.Add([]byte{3, 1})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Parse(b)
		if err != nil {
			require.ErrorIs(t, err, ErrSyntax)
			require.Less(t, len(b), 4)
			return
		}
		require.Equal(t, b, rdata(got.Usage, got.Selector, got.MatchingType, got.Data), "round trip")
		p := got.Problem()
		require.Contains(t, []Problem{ProblemNone, ProblemPKIX, ProblemParameters}, p)
		if p == ProblemNone {
			require.GreaterOrEqual(t, got.Usage, UsageDANETA)
		}
	})
}
