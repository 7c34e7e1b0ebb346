package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/felixsim/felixsim/properties"
)

// writeInvariants prints properties' registry for `felixsim run
// --list-invariants`: per invariant one line of name, family and
// statement, then an indented line naming the checks that report it.
func writeInvariants(w io.Writer) {
	for _, inv := range properties.Invariants() {
		fmt.Fprintf(w, "%-25s %-9s %s\n", string(inv.Name), inv.Family, inv.Statement)
		fmt.Fprintf(w, "%-35s checked by %s\n", "", strings.Join(inv.Checks, ", "))
	}
}
