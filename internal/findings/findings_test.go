package findings

import (
	"reflect"
	"testing"
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
			if got := Normalize(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if !reflect.DeepEqual(tc.in, before) {
				t.Fatalf("Normalize modified its input: %q, was %q", tc.in, before)
			}
		})
	}
}

func TestSetInOrder(t *testing.T) {
	t.Parallel()
	order := []code{"z", "a", "m"}
	var empty Set[code]
	if got := empty.InOrder(order); got != nil {
		t.Fatalf("empty set: InOrder = %q, want nil", got)
	}
	var s Set[code]
	for _, c := range []code{"m", "z", "m", "unlisted"} {
		s.Add(c)
	}
	if got, want := s.InOrder(order), []code{"z", "m"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("InOrder = %q, want %q", got, want)
	}
}
