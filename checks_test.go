package mailauth

import "testing"

// TestCheckTable: every row of the checks table is complete and its id
// is unique, and CheckOrder hands out a copy the caller cannot use to
// reorder the scanner's checks.
func TestCheckTable(t *testing.T) {
	seen := map[CheckID]bool{}
	for _, c := range checkTable {
		if c.id == "" || seen[c.id] {
			t.Errorf("row %q: empty or repeated id", c.id)
		}
		seen[c.id] = true
		if c.title.en == "" || c.title.zh == "" || c.weight < 0 || c.check == nil || c.unknown == nil || c.rules == nil {
			t.Errorf("row %q is incomplete", c.id)
		}
		if len(c.rules()) == 0 {
			t.Errorf("row %q has no rules", c.id)
		}
	}
	order := CheckOrder()
	if len(order) != len(checkTable) {
		t.Fatalf("CheckOrder has %d ids, the table %d rows", len(order), len(checkTable))
	}
	order[0] = "changed"
	if CheckOrder()[0] != checkTable[0].id {
		t.Error("a caller changed the order through the slice CheckOrder returned")
	}
}
