package findings

import (
	"testing"

	"github.com/stretchr/testify/require"
)

type code string

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []code
		want []code
	}{
		{"nil", nil, nil},
		{"empty", []code{}, nil},
		{"one", []code{"b"}, []code{"b"}},
		{"sorted and unique", []code{"c", "a", "b", "a", "c"}, []code{"a", "b", "c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var before []code
			if tc.in != nil {
				before = append([]code{}, tc.in...)
			}
			require.Equal(t, tc.want, Normalize(tc.in), "Normalize(%q)", tc.in)
			require.Equal(t, before, tc.in, "Normalize modified its input")
		})
	}
}

func TestSetInOrder(t *testing.T) {
	t.Parallel()
	order := []code{"z", "a", "m"}
	var empty Set[code]
	require.Nil(t, empty.InOrder(order), "empty set: InOrder, want nil")
	var s Set[code]
	for _, c := range []code{"m", "z", "m", "unlisted"} {
		s.Add(c)
	}
	require.Equal(t, []code{"z", "m"}, s.InOrder(order), "InOrder")
}
