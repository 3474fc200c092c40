package ptr

// order is the order findings are reported in.
var order = []Code{
	CodeNoPTR, CodeInvalidName, CodeLocalhostName, CodeTooManyNames,
	CodeForwardInconclusive, CodeGenericName,
}

// findings collects codes and lists them in a stable order.
type findings map[Code]bool

func (f *findings) add(c Code) {
	if *f == nil {
		*f = findings{}
	}
	(*f)[c] = true
}

func (f findings) list() []Code {
	var out []Code
	for _, c := range order {
		if f[c] {
			out = append(out, c)
		}
	}
	return out
}
