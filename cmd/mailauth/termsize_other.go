//go:build !(aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris)

package main

import "os"

// terminalColumns returns a function that reports 0 (unknown): this
// system's terminal size is not asked for, so -width, COLUMNS or 80 apply.
func terminalColumns(*os.File) func() int {
	return func() int { return 0 }
}
