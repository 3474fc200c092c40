package findings

import "slices"

// Normalize returns codes sorted in ascending order without duplicates,
// or nil when codes is empty. It does not modify codes.
func Normalize[C ~string](codes []C) []C {
	if len(codes) == 0 {
		return nil
	}
	out := slices.Clone(codes)
	slices.Sort(out)
	return slices.Compact(out)
}

// Set collects finding codes, each once. The zero value is an empty set
// ready to use.
type Set[C comparable] struct {
	m map[C]bool
}

// Add puts c in the set.
func (s *Set[C]) Add(c C) {
	if s.m == nil {
		s.m = make(map[C]bool)
	}
	s.m[c] = true
}

// InOrder returns the codes of order that are in the set, in the order of
// order, or nil when there are none. Codes in the set but not in order are
// left out.
func (s *Set[C]) InOrder(order []C) []C {
	var out []C
	for _, c := range order {
		if s.m[c] {
			out = append(out, c)
		}
	}
	return out
}
