//go:build !linux || 386

package resolver

// kernelTells: the kernel's figures are not read here (see the Linux
// version).
const kernelTells = false

// kernelMem is not told here (see the Linux version): ok is false.
func kernelMem(fd uintptr) (m sockMem, ok bool) { return sockMem{}, false }
