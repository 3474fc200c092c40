//go:build linux

package netnstest

import (
	"net"
	"os"
	"strings"
	"testing"
)

// TestEnterIsolates: the test that Enter runs again is really in a
// namespace of its own: lo is its only interface, up once the setup
// has brought it up, and the namespace is not its parent's.
func TestEnterIsolates(t *testing.T) {
	if !Enter(t, [][]string{{"link", "set", "lo", "up"}}) {
		return
	}
	here, err := namespace()
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(os.Getenv(env), "@"+here) {
		t.Fatalf("in the parent's namespace: %s", here)
	}
	ifs, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	if len(ifs) != 1 || ifs[0].Name != "lo" || ifs[0].Flags&net.FlagUp == 0 {
		t.Fatalf("interfaces in the namespace: %v, want lo alone, up", ifs)
	}
}

// TestEnterSubtest: a subtest whose name holds pattern characters runs
// in its namespace (its name matched whole, not as a pattern).
func TestEnterSubtest(t *testing.T) {
	t.Run("v1+2 (a)", func(t *testing.T) {
		if !Enter(t, nil) {
			return
		}
		ifs, err := net.Interfaces()
		if err != nil || len(ifs) != 1 {
			t.Fatalf("interfaces in the namespace: %v, %v", ifs, err)
		}
	})
}

// TestRunPattern: the pattern selects the test alone.
func TestRunPattern(t *testing.T) {
	for name, want := range map[string]string{
		"TestA":          "^TestA$",
		"TestA/v1+2_(a)": `^TestA$/^v1\+2_\(a\)$`,
	} {
		if got := runPattern(name); got != want {
			t.Errorf("runPattern(%q) = %q, want %q", name, got, want)
		}
	}
}
