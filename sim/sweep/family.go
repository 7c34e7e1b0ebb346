package sweep

import (
	"fmt"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/verdict"
)

// Families of a failing seed. Safety, liveness and crash are the
// invariants' families as the run's exit code tells them apart;
// determinism is the sweep's own: a seed whose two runs hashed differently.
const (
	FamilySafety      = "safety"
	FamilyLiveness    = "liveness"
	FamilyCrash       = "crash"
	FamilyDeterminism = "determinism"
)

// Exit codes of `felixsim run` the sweep reads (package verdict's).
const (
	exitPass       = verdict.ExitPass
	exitUsage      = verdict.ExitUsage // bad usage (or, with a Go stack on stderr, a crashed process)
	exitIncomplete = verdict.ExitNoVerdict
)

// FamilyOf names the family a failed run's exit code stands for: 1
// safety, 4 liveness, 3 crash (no verdict); "" for any other code.
func FamilyOf(exitCode int) string {
	v, err := verdict.OfExitCode(exitCode)
	if err != nil {
		return ""
	}
	switch v {
	case verdict.Safety:
		return FamilySafety
	case verdict.Liveness:
		return FamilyLiveness
	case verdict.NoVerdict:
		return FamilyCrash
	}
	return ""
}

// VerdictOfFamily is the verdict a failing seed of family f gives its
// sweep: safety and liveness their own, a crash (the simulated system
// panicked, the worker died or ran out of time) and a determinism
// mismatch no verdict.
func VerdictOfFamily(f string) (verdict.Verdict, error) {
	switch f {
	case FamilySafety:
		return verdict.Safety, nil
	case FamilyLiveness:
		return verdict.Liveness, nil
	case FamilyCrash, FamilyDeterminism:
		return verdict.NoVerdict, nil
	}
	return verdict.Pass, fmt.Errorf("family %q is not one of safety, liveness, crash, determinism", f)
}

// knownFamily reports whether a report may carry f.
func knownFamily(f string) bool {
	_, err := VerdictOfFamily(f)
	return err == nil
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
// verdict: a safety one even when a crash came first), else the first.
// Its family is the registry's, or the exit code's for an invariant the
// registry does not know.
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

// runVerdict is the verdict the registry gives a run's violations (the
// invariants it knows; an unknown one is the run's newer registry's and
// counts as nothing here), for checking the worker's exit code by.
func runVerdict(vs []violation) verdict.Verdict {
	var names []properties.InvariantName
	for _, v := range vs {
		if _, ok := familyOfInvariant(v.Invariant); ok {
			names = append(names, properties.InvariantName(v.Invariant))
		}
	}
	w, err := verdict.OfInvariants(names)
	if err != nil {
		panic(fmt.Sprintf("sweep: registered invariants refused: %v", err)) // each was just looked up
	}
	return w
}
