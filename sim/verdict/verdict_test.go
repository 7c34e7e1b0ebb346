package verdict

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/properties"
)

// signal is one thing a run may see; every combination of them is judged.
type signal struct {
	name string
	v    Verdict
}

var signals = []signal{
	{"safety", Safety}, {"liveness", Liveness}, {"crash", NoVerdict}, {"timeout", NoVerdict},
	{"write error", NoVerdict}, {"lost history", NoVerdict}, {"diverged", Diverged},
}

// wantExit is the rule as docs/cli.md states it, written apart from the
// code: a safety violation exits 1 whatever else came; else a liveness
// violation 4; else a re-run that did not reproduce 5; else anything that
// stopped a verdict 3; else 0.
func wantExit(seen map[string]bool) int {
	switch {
	case seen["safety"]:
		return 1
	case seen["liveness"]:
		return 4
	case seen["diverged"]:
		return 5
	case seen["crash"] || seen["timeout"] || seen["write error"] || seen["lost history"]:
		return 3
	}
	return 0
}

// TestWorstOverEveryCombination judges all 2^7 combinations of what a run
// may see, in both orders, against the rule stated apart.
func TestWorstOverEveryCombination(t *testing.T) {
	for mask := 0; mask < 1<<len(signals); mask++ {
		seen := map[string]bool{}
		var vs []Verdict
		var names []string
		for i, s := range signals {
			if mask&(1<<i) != 0 {
				seen[s.name] = true
				vs = append(vs, s.v)
				names = append(names, s.name)
			}
		}
		rev := make([]Verdict, len(vs))
		for i := range vs {
			rev[len(vs)-1-i] = vs[i]
		}
		want := wantExit(seen)
		if got := Worst(vs...).ExitCode(); got != want {
			t.Errorf("%s: exit %d, want %d", strings.Join(names, "+"), got, want)
		}
		if got := Worst(rev...).ExitCode(); got != want {
			t.Errorf("%s (reversed): exit %d, want %d", strings.Join(names, "+"), got, want)
		}
	}
}

// TestOfInvariantsByFamily: a crash after a safety violation is a safety
// failure (the no-fsync seed 1 of issue 32), a crash alone no verdict.
func TestOfInvariantsByFamily(t *testing.T) {
	for _, c := range []struct {
		names []properties.InvariantName
		want  Verdict
	}{
		{nil, Pass},
		{[]properties.InvariantName{properties.InvariantCrash}, NoVerdict},
		{[]properties.InvariantName{properties.InvariantStoreMatchesMemory, properties.InvariantCrash}, Safety},
		{[]properties.InvariantName{properties.InvariantCrash, properties.InvariantLiveness}, Liveness},
		{[]properties.InvariantName{properties.InvariantLiveness, properties.InvariantCrash, properties.InvariantNoPartialCommit}, Safety},
	} {
		got, err := OfInvariants(c.names)
		if err != nil || got != c.want {
			t.Errorf("%v: %v, %v; want %v", c.names, got, err, c.want)
		}
	}
	if _, err := OfInvariants([]properties.InvariantName{"NoSuchInvariant"}); err == nil || !strings.Contains(err.Error(), "NoSuchInvariant") {
		t.Errorf("an unregistered invariant: %v, want a refusal naming it", err)
	}
}

// TestEveryFamilyHasAVerdict: each registered invariant's family maps to
// a verdict, so no registered invariant can be judged as nothing.
func TestEveryFamilyHasAVerdict(t *testing.T) {
	for _, inv := range properties.Invariants() {
		if v, err := OfFamily(inv.Family); err != nil || !v.Failed() && v != NoVerdict {
			t.Errorf("%s (%s): %v, %v", inv.Name, inv.Family, v, err)
		}
	}
	if _, err := OfFamily(0); err == nil {
		t.Errorf("the zero family was given a verdict")
	}
}

// TestExitCodesRoundTrip: every verdict's exit code reads back to it, its
// name parses back, and the usage code is no verdict's.
func TestExitCodesRoundTrip(t *testing.T) {
	for v := Pass; v < end; v++ {
		if got, err := OfExitCode(v.ExitCode()); err != nil || got != v {
			t.Errorf("%s: exit %d reads back as %v, %v", v, v.ExitCode(), got, err)
		}
		var p Verdict
		if b, err := v.MarshalText(); err != nil || p.UnmarshalText(b) != nil || p != v {
			t.Errorf("%s: text %q reads back as %v", v, b, p)
		}
	}
	for _, code := range []int{ExitUsage, -1, 6, 255} {
		if _, err := OfExitCode(code); err == nil {
			t.Errorf("exit %d was given a verdict", code)
		}
	}
	if _, err := invalid.MarshalText(); err == nil {
		t.Errorf("the zero verdict marshalled")
	}
	if _, err := Parse("crash"); err == nil {
		t.Errorf("%q parsed as a verdict", "crash")
	}
}

// TestInvalidVerdictPanics: the zero value is a programmer error.
func TestInvalidVerdictPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("Worst(0) did not panic")
		}
	}()
	Worst(Safety, invalid)
}
