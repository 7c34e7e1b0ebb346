package faultplan

import (
	"fmt"

	"github.com/felixsim/felixsim/coverage"
)

// FaultCoverage declares the two coverage points of each of kinds, in
// order: fired (the world applied a plan fault of the kind) and effect
// (its table entry's effect line). Both must sometimes happen over a sweep
// that enables the kind.
func FaultCoverage(kinds []FaultKind) []coverage.Declaration {
	out := make([]coverage.Declaration, 0, 2*len(kinds))
	for _, k := range kinds {
		if !k.valid() {
			panic(fmt.Sprintf("sim: FaultCoverage of invalid kind %d", k))
		}
		spec := faultKinds[k]
		out = append(out,
			coverage.Declaration{Point: coverage.FaultFired(spec.name), Statement: "a plan fault of kind " + spec.name + " was applied", Sometimes: true},
			coverage.Declaration{Point: coverage.FaultEffect(spec.name), Statement: spec.effect, Sometimes: true})
	}
	return out
}
