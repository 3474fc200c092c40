package ptr

// order is the order findings are reported in.
var order = []Code{
	CodeNoPTR, CodeInvalidName, CodeLocalhostName, CodeTooManyNames,
	CodeForwardInconclusive, CodeGenericName,
}
