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
const targetedSweepFaults = "restartafter,crashafter,pauseafter,retain,diskreplace,membership"

// TestTargetedWindowsBounded: over seeds 1..8 of 10 s under
// targetedSweepFaults, every run passes, every targeted kind fires and
// strikes, and a targeted fault strikes in each of the six windows
// (coverage.Targeted of every moment but pending_held_young,
// TestEarlierIncarnationSeqReached's), the rare ones included, which the
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
		coverage.TargetedMembershipInFlight, coverage.TargetedPendingHeld, coverage.TargetedReadsConfirmed}
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
	if targeted != 3 {
		t.Fatalf("all holds %d targeted kinds, want restartafter, crashafter and pauseafter", targeted)
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

// Earlier-incarnation windows: the faults, mean gap and seeds under which
// TestEarlierIncarnationSeqReached counts the runs that reach
// coverage.PendingSeqOfEarlierIncarnation (a restarted broker applies
// its earlier incarnation's proposal whose sequence number is that of a
// write pending in the new one). restartafter alone, every 0.3 s on
// average: its quick restart after pending_held and pending_held_young
// (faultplan.QuickRestartMaxNs) lets a leader holding young proposals
// lead again with its log as it left it. Measured over seeds 1..40 of
// 10 s: seeds 1, 14, 17, 18 and 40 reach it (under --faults all,operator
// at the default gap, 1 seed of 500 did: the targeted kind is one of
// many, and seldom armed while an incarnation is young).
const (
	earlierIncarnationFaults = "restartafter"
	earlierIncarnationGapNs  = 3e8
	earlierIncarnationSeeds  = 40
	earlierIncarnationMin    = 3
)

// TestEarlierIncarnationSeqReached: targeted restarts reach the path
// where a restarted broker applies an entry of its earlier incarnation
// whose sequence number is that of a write pending in the new one on at
// least earlierIncarnationMin of seeds 1..earlierIncarnationSeeds, and
// those runs pass.
func TestEarlierIncarnationSeqReached(t *testing.T) {
	if testing.Short() {
		t.Skip("forty 10 s runs")
	}
	f := faultsOf(t, earlierIncarnationFaults)
	var reached []uint64
	for s := uint64(1); s <= earlierIncarnationSeeds; s++ {
		res := runOK(t, Options{Seed: s, DurationNs: 10e9, FaultGapMeanNs: earlierIncarnationGapNs, Faults: f})
		if res.Coverage.Get(coverage.PendingSeqOfEarlierIncarnation) > 0 {
			reached = append(reached, s)
		}
	}
	t.Logf("seeds 1..%d under %s (gap %.1f s) reaching %s: %v", earlierIncarnationSeeds, earlierIncarnationFaults, earlierIncarnationGapNs/1e9,
		coverage.PendingSeqOfEarlierIncarnation, reached)
	if len(reached) < earlierIncarnationMin {
		t.Fatalf("%d of seeds 1..%d reached %s (%v), want at least %d", len(reached), earlierIncarnationSeeds, coverage.PendingSeqOfEarlierIncarnation, reached, earlierIncarnationMin)
	}
}

// TestPausedLeaderReachedByPauseAfter: lease-read-by-ticks is caught by
// pauseafter's pause of a leader whose ReadIndex just renewed its lease
// (the first catching seed within 10), and plain pauses of the same seeds,
// which strike whichever broker at whatever time, catch it on none of
// them: the catch is the targeted timing's.
func TestPausedLeaderReachedByPauseAfter(t *testing.T) {
	const defect, gapNs, seedsMax = "lease-read-by-ticks", 6e8, 10
	for s := uint64(1); s <= seedsMax; s++ {
		if runDefectPlan(t, defect, "pauseafter", gapNs, s, true).OK() {
			continue
		}
		t.Logf("pauseafter caught it on seed %d", s)
		for u := uint64(1); u <= s; u++ {
			if plain := runDefectPlan(t, defect, "pause", gapNs, u, true); !plain.OK() {
				t.Fatalf("seed %d with plain pauses caught it too (%s): the catch is not the targeted timing's", u, violationNames(plain))
			}
		}
		return
	}
	t.Fatalf("pauseafter did not catch %s in seeds 1..%d", defect, seedsMax)
}
