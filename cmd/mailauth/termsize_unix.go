//go:build aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminalColumns returns a function that asks the terminal f is for its
// width in columns (TIOCGWINSZ), or 0 when f is not a terminal or does not
// say. It asks on each call, so a resized window is seen.
func terminalColumns(f *os.File) func() int {
	return func() int {
		ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
		if err != nil {
			return 0
		}
		return int(ws.Col)
	}
}
