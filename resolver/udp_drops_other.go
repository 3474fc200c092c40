//go:build !linux || 386

package resolver

// kernelDrops is not told here (see the Linux version): ok is false.
func kernelDrops(fd uintptr) (n uint32, ok bool) { return 0, false }
