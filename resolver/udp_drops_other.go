//go:build !linux || 386

package resolver

// kernelMem is not told here (see the Linux version): ok is false.
func kernelMem(fd uintptr) (m sockMem, ok bool) { return sockMem{}, false }
