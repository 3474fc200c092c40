// Command genalias writes the root package's contract.go from
// internal/report/report.go (see package aliasgen). Run it from the
// module root: go generate ./...
package main

import (
	"fmt"
	"os"

	"github.com/mailauth/mailauth/internal/report/aliasgen"
)

func main() {
	src, err := os.ReadFile("internal/report/report.go")
	if err == nil {
		var out []byte
		if out, err = aliasgen.Generate(src); err == nil {
			err = os.WriteFile("contract.go", out, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genalias:", err)
		os.Exit(1)
	}
}
