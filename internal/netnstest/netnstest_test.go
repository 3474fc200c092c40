//go:build linux

package netnstest

import (
	"net"
	"os"
	"testing"
)

// TestEnterIsolates: the test that Enter runs again is really in a
// namespace of its own: lo is its only interface, down until the setup
// brings it up, and the parent's process is not.
func TestEnterIsolates(t *testing.T) {
	if !Enter(t, [][]string{{"link", "set", "lo", "up"}}) {
		return
	}
	if os.Getenv(env) != t.Name() {
		t.Fatal("Enter went on outside the child")
	}
	ifs, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	if len(ifs) != 1 || ifs[0].Name != "lo" || ifs[0].Flags&net.FlagUp == 0 {
		t.Fatalf("interfaces in the namespace: %v, want lo alone, up", ifs)
	}
}
