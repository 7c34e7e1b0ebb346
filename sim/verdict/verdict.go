package verdict

import (
	"fmt"

	"github.com/felixsim/felixsim/properties"
)

// Verdict is what a run (or a set of runs) showed. The values are ordered
// by seriousness: a larger one decides over a smaller one (Worst). The
// zero value is invalid.
type Verdict uint8

// The verdicts, least serious first.
const (
	invalid Verdict = iota
	// Pass: every check held.
	Pass
	// NoVerdict: nothing was violated, yet the run cannot pass: the
	// simulated system panicked, a seed ran out of wall time, an output
	// could not be written, the history was lost, two runs of one seed
	// differed.
	NoVerdict
	// Diverged: a re-run of a saved plan did not reproduce the trace hash
	// the plan records, and it violated nothing.
	Diverged
	// Liveness: a liveness invariant was violated, no safety one.
	Liveness
	// Safety: a safety invariant was violated.
	Safety
	end
)

// Exit codes, shared by every command: a script tells a safety failure
// from a liveness one, from bad usage and from a run with no verdict.
const (
	ExitPass      = 0
	ExitSafety    = 1
	ExitUsage     = 2 // bad command, flags or input: nothing ran (not a verdict)
	ExitNoVerdict = 3
	ExitLiveness  = 4
	ExitDiverged  = 5
)

var names = [...]string{"invalid", "pass", "no verdict", "diverged", "liveness", "safety"}

var exitCodes = [...]int{-1, ExitPass, ExitNoVerdict, ExitDiverged, ExitLiveness, ExitSafety}

// String names the verdict in lower case, as the JSON reports spell it.
func (v Verdict) String() string {
	if v < end {
		return names[v]
	}
	return fmt.Sprintf("Verdict(%d)", uint8(v))
}

// Valid reports whether v is one of the verdicts.
func (v Verdict) Valid() bool { return v > invalid && v < end }

// ExitCode is the process exit code of v; an invalid verdict is a
// programmer error and panics.
func (v Verdict) ExitCode() int {
	v.mustBeValid()
	return exitCodes[v]
}

// Headline is how a summary or a page opens: PASS, FAIL (safety), FAIL
// (liveness), DIVERGED or NO VERDICT.
func (v Verdict) Headline() string {
	v.mustBeValid()
	switch v {
	case Pass:
		return "PASS"
	case Safety, Liveness:
		return "FAIL (" + v.String() + ")"
	case Diverged:
		return "DIVERGED"
	}
	return "NO VERDICT"
}

// Failed reports whether v is a violation (safety or liveness).
func (v Verdict) Failed() bool { return v == Safety || v == Liveness }

func (v Verdict) mustBeValid() {
	if !v.Valid() {
		panic(fmt.Sprintf("verdict: %s is not a verdict", v))
	}
}

// Worst is the most serious of vs; Pass when vs is empty. An invalid
// verdict among them is a programmer error and panics.
func Worst(vs ...Verdict) Verdict {
	w := Pass
	for _, v := range vs {
		v.mustBeValid()
		w = max(w, v)
	}
	return w
}

// OfFamily is the verdict a violation of an invariant of family f gives:
// safety and liveness their own, the crash family (the simulated system
// panicked, nothing left to judge) no verdict.
func OfFamily(f properties.Family) (Verdict, error) {
	switch f {
	case properties.FamilySafety:
		return Safety, nil
	case properties.FamilyLiveness:
		return Liveness, nil
	case properties.FamilyCrash:
		return NoVerdict, nil
	}
	return invalid, fmt.Errorf("verdict: family %s refused: not an invariant family", f)
}

// OfInvariants is the verdict of a run that violated the named invariants
// (none: Pass). A name the properties registry does not hold is refused.
func OfInvariants(names []properties.InvariantName) (Verdict, error) {
	w := Pass
	for _, n := range names {
		inv, err := properties.LookupInvariant(n)
		if err != nil {
			return invalid, fmt.Errorf("verdict: %w", err)
		}
		v, err := OfFamily(inv.Family)
		if err != nil {
			return invalid, fmt.Errorf("verdict: invariant %s: %w", n, err)
		}
		w = max(w, v)
	}
	return w, nil
}

// OfExitCode is the verdict a command's exit code stands for; the usage
// code (nothing ran) and any code no verdict has are refused.
func OfExitCode(code int) (Verdict, error) {
	for v := Pass; v < end; v++ {
		if exitCodes[v] == code {
			return v, nil
		}
	}
	return invalid, fmt.Errorf("verdict: exit code %d refused: not a verdict's (0 pass, 1 safety, 3 no verdict, 4 liveness, 5 diverged)", code)
}

// Parse reads a verdict as String writes it.
func Parse(s string) (Verdict, error) {
	for v := Pass; v < end; v++ {
		if names[v] == s {
			return v, nil
		}
	}
	return invalid, fmt.Errorf("verdict %q refused: want one of pass, no verdict, diverged, liveness, safety", s)
}

// MarshalText writes v as String does; an invalid verdict is refused.
func (v Verdict) MarshalText() ([]byte, error) {
	if !v.Valid() {
		return nil, fmt.Errorf("verdict: %s is not a verdict", v)
	}
	return []byte(v.String()), nil
}

// UnmarshalText reads v as Parse does.
func (v *Verdict) UnmarshalText(b []byte) error {
	p, err := Parse(string(b))
	if err != nil {
		return err
	}
	*v = p
	return nil
}
