package runner

import (
	"testing"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/sim/faultplan"
)

// targetedSweepFaults is the fault mix under which every targeted window
// comes up within a few seeds: the targeted kinds, and the operator and
// disk actions that make brokers install snapshots (replaced disks),
// change membership and drop log prefixes (retention).
const targetedSweepFaults = "restartafter,crashafter,retain,diskreplace,membership"

// TestTargetedWindowsBounded: over seeds 1..8 of 10 s under
// targetedSweepFaults, every run passes, both targeted kinds fire and
// strike, and a targeted fault strikes in each of the five windows
// (coverage.Targeted of every moment), the rare ones included, which the
// default run's CI range does not promise (TargetedCompacted is not
// Sometimes there).
func TestTargetedWindowsBounded(t *testing.T) {
	n := 8
	if testing.Short() {
		n = 3
	}
	cov := boundedCoverage(t, targetedSweepFaults, n, nil)
	if testing.Short() {
		return
	}
	want := []coverage.Point{coverage.TargetedSnapshotInstalled, coverage.TargetedGroupAckDurable, coverage.TargetedCompacted,
		coverage.TargetedMembershipInFlight, coverage.TargetedPendingHeld}
	for _, k := range faultsOf(t, targetedSweepFaults).Kinds() {
		if k.Targeted() {
			want = append(want, coverage.FaultFired(k.String()), coverage.FaultEffect(k.String()))
		}
	}
	for _, p := range want {
		if cov.Get(p) == 0 {
			t.Errorf("seeds 1..%d never reached %s (counts %v)", n, p, cov.Map())
		}
	}
}

// TestAllHoldsTheTargetedKinds: "all" draws the targeted kinds (every
// sweep reaches their windows); "operator" holds none.
func TestAllHoldsTheTargetedKinds(t *testing.T) {
	targeted := 0
	for _, k := range AllFaults().Kinds() {
		if k.Targeted() {
			targeted++
		}
	}
	if targeted != 2 {
		t.Fatalf("all holds %d targeted kinds, want restartafter and crashafter", targeted)
	}
	for _, k := range OperatorActions().Kinds() {
		if k.Targeted() {
			t.Fatalf("operator holds targeted kind %s", k)
		}
	}
	if _, err := faultplan.ParseFaultKind("restartafter"); err != nil {
		t.Fatal(err)
	}
}

// earlierIncarnationSeeds reach coverage.PendingSeqOfEarlierIncarnation
// in a 20 s run of every fault kind and operator action: found with
// `felixsim sweep --seeds 1..200 --duration 20s --faults all,operator
// --json` (the point's total) and a per-seed `felixsim run --json` over
// seeds 1..500, of which only 184 reaches it: a quick restart
// (faultplan.QuickRestartMaxNs) of a young incarnation holding proposals, which
// leads again and takes a client's write before its earlier
// incarnation's entries commit.
var earlierIncarnationSeeds = []uint64{184}

// TestEarlierIncarnationSeqReached: the path where a restarted broker
// applies an entry of its earlier incarnation whose sequence number is
// that of a write pending in the new one is taken by the drawn plans of
// earlierIncarnationSeeds, and those runs pass.
func TestEarlierIncarnationSeqReached(t *testing.T) {
	if testing.Short() {
		t.Skip("two 20 s runs")
	}
	f := faultsOf(t, "all,operator")
	for _, s := range earlierIncarnationSeeds {
		res := runOK(t, Options{Seed: s, DurationNs: 20e9, Faults: f, ValidateTrace: true})
		if res.Coverage.Get(coverage.PendingSeqOfEarlierIncarnation) == 0 {
			t.Errorf("seed %d never reached %s (targeted.pending_held_young %d)", s, coverage.PendingSeqOfEarlierIncarnation,
				res.Coverage.Get(coverage.TargetedPendingHeldYoung))
		}
	}
}
