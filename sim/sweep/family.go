package sweep

import "github.com/felixsim/felixsim/properties"

// Families of a failing seed. Safety, liveness and crash are the
// invariants' families as the run's exit code tells them apart;
// determinism is the sweep's own: a seed whose two runs hashed differently.
const (
	FamilySafety      = "safety"
	FamilyLiveness    = "liveness"
	FamilyCrash       = "crash"
	FamilyDeterminism = "determinism"
)

// Exit codes of `felixsim run` the sweep reads.
const (
	exitPass       = 0
	exitViolation  = 1 // a safety property failed
	exitUsage      = 2 // bad usage (or, with a Go stack on stderr, a crashed process)
	exitIncomplete = 3 // the simulated system panicked, or --check-determinism found a mismatch
	exitLiveness   = 4 // a liveness check failed (the invariant registry's code)
)

// FamilyOf names the family a failed run's exit code stands for: 1
// safety, 4 liveness, 3 crash ("" for any other code).
func FamilyOf(exitCode int) string {
	switch exitCode {
	case exitViolation:
		return FamilySafety
	case exitLiveness:
		return FamilyLiveness
	case exitIncomplete:
		return FamilyCrash
	}
	return ""
}

// knownFamily reports whether a report may carry f.
func knownFamily(f string) bool {
	switch f {
	case FamilySafety, FamilyLiveness, FamilyCrash, FamilyDeterminism:
		return true
	}
	return false
}

// familyOfInvariant is the registry's family of the named invariant;
// ok is false for a name properties does not register.
func familyOfInvariant(name string) (family string, ok bool) {
	inv, err := properties.LookupInvariant(properties.InvariantName(name))
	if err != nil {
		return "", false
	}
	return inv.Family.String(), true
}

// violation is one entry of a run's violations as its JSON carries it.
type violation struct {
	Invariant string `json:"invariant"`
	Message   string `json:"message"`
}

// decisive picks the violation a failing seed is listed under: the first
// whose registered family is the one the exit code stands for (the run's
// worst), else the first. Its family is the registry's, or the exit
// code's for an invariant the registry does not know.
func decisive(exitCode int, vs []violation) (v violation, family string) {
	want := FamilyOf(exitCode)
	for _, x := range vs {
		if f, ok := familyOfInvariant(x.Invariant); ok && f == want {
			return x, f
		}
	}
	if f, ok := familyOfInvariant(vs[0].Invariant); ok {
		return vs[0], f
	}
	return vs[0], want
}
