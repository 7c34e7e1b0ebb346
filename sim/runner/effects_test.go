package runner

import (
	"testing"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/sim/faultplan"
)

// effectRunNs and effectSeedsMax bound TestEveryFaultKindHasAnEffect: a
// kind gets up to effectSeedsMax seeds of effectRunNs each to show it (a
// targeted kind alone often waits for moments its own run never reaches:
// a membership change, a snapshot install, a young incarnation; seeds 7
// and 8 show restartafter's and crashafter's effects).
const (
	effectRunNs    = 5_000_000_000
	effectSeedsMax = 8
)

// TestEveryFaultKindHasAnEffect is the acceptance for "no vacuous fault":
// for every kind, a run with only that kind enabled fires it, counts an
// effect for it (fault.<kind>.effect > 0), and differs from the same seed
// with no faults in more than its fault events: its operation counts
// differ, or its event count differs by more than the faults it fired.
func TestEveryFaultKindHasAnEffect(t *testing.T) {
	for _, k := range faultplan.AllFaultKinds() {
		t.Run(k.String(), func(t *testing.T) {
			var why string
			for s := uint64(1); s <= effectSeedsMax; s++ {
				if why = kindEffectOn(t, k, s); why == "" {
					return
				}
			}
			t.Fatalf("kind %s: no effect on seeds 1..%d: %s", k, effectSeedsMax, why)
		})
	}
}

// kindEffectOn runs seed with only kind k and with no faults; it returns
// "" when k showed an effect, else why not.
func kindEffectOn(t *testing.T, k faultplan.FaultKind, seed uint64) string {
	t.Helper()
	only, err := ParseFaults(k.String())
	if err != nil {
		t.Fatal(err)
	}
	with := runOK(t, Options{Seed: seed, DurationNs: effectRunNs, Faults: only})
	without := runOK(t, Options{Seed: seed, DurationNs: effectRunNs, Faults: NoFaults()})
	fired := with.Coverage.Get(coverage.FaultFired(k.String()))
	effects := with.Coverage.Get(coverage.FaultEffect(k.String()))
	beyondFaults := with.Events-without.Events != fired
	switch {
	case fired == 0:
		return "it never fired"
	case effects == 0:
		return "fired, no effect counted"
	case with.Ops == without.Ops && !beyondFaults:
		return "same operations, and events differ only by the fault events"
	}
	t.Logf("seed %d: %d fired, %d with an effect; ops %+v vs %+v without faults", seed, fired, effects, with.Ops, without.Ops)
	return ""
}

// faultsOf parses a fault list, failing the test on a bad one.
func faultsOf(t *testing.T, list string) FaultSet {
	t.Helper()
	f, err := ParseFaults(list)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// boundedCoverage runs seeds 1..n of 10 s under the faults of list (mean
// gap 0.6 s), each of which must pass, hands each result to each (nil:
// none) and returns the coverage summed over the seeds.
func boundedCoverage(t *testing.T, list string, n int, each func(seed uint64, res *Result)) *coverage.Counts {
	t.Helper()
	f := faultsOf(t, list)
	cov := coverage.New()
	for s := uint64(1); s <= uint64(n); s++ {
		res := runOK(t, Options{Seed: s, DurationNs: 10e9, FaultGapMeanNs: 6e8, Faults: f})
		if each != nil {
			each(s, res)
		}
		cov.Merge(res.Coverage)
	}
	return cov
}

// runOK runs o and fails the test on a setup error or a violation.
func runOK(t *testing.T, o Options) *Result {
	t.Helper()
	res, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() {
		t.Fatalf("%s", res.Summary())
	}
	return res
}
