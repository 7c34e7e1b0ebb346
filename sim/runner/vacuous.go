package runner

import (
	"fmt"

	"github.com/felixsim/felixsim/properties"
)

// The vacuous floor: a run whose workload got fewer acknowledged writes or
// fewer checked reads than these, per simulated second its clients were
// active in the fault phase (rounded up, so every run needs at least one of
// each), passed checks that
// had almost nothing to check. The floors are a twentieth of what a run
// without faults gets (about 110 acknowledged writes and 64 checked reads
// per simulated second with the default workload). Such a run is reported vacuous: not a
// failure, but its share over the CI seed range is bounded by a test
// (TestSeedsAllFaultsBounded; see docs/performance.md), and the run JSON's
// "vacuous" field lets a sweep count and list such seeds.
const (
	// VacuousAckedWritesPerSecondMin floors writes answered Written or
	// Refused (with the true tail): the records the durability, agreement
	// and conditional-write checks judge.
	VacuousAckedWritesPerSecondMin = 5
	// VacuousCheckedReadsPerSecondMin floors state_get and subscribe reads
	// answered with data: the reads the linearizability, version and
	// whole-record checks judge.
	VacuousCheckedReadsPerSecondMin = 3
	// VacuousSharePctMax bounds the share of a sweep's seeds, in percent,
	// that may be vacuous (TestSeedsAllFaultsBounded, TestSweep).
	VacuousSharePctMax = 10
)

// Progress is how much a run's workload got done that the checks judge.
type Progress struct {
	// AckedWrites counts writes answered Written or Refused.
	AckedWrites int
	// CheckedReads counts state_get and subscribe reads answered ok.
	CheckedReads int
}

// ProgressOf tallies a history's acknowledged writes and checked reads.
func ProgressOf(h *properties.History) Progress {
	var p Progress
	for i := range h.Ops {
		op := &h.Ops[i]
		switch {
		case op.Kind.IsWrite() && (op.Outcome == properties.OutcomeOK || op.Outcome == properties.OutcomeRefused):
			p.AckedWrites++
		case (op.Kind == properties.HistoryStateGet || op.Kind == properties.HistorySubscribe) && op.Outcome == properties.OutcomeOK:
			p.CheckedReads++
		}
	}
	return p
}

// vacuousFloor is perSecond per simulated second of durationNs, rounded up.
func vacuousFloor(perSecond, durationNs int64) int {
	return int((perSecond*durationNs + 999_999_999) / 1_000_000_000)
}

// VacuousReason says why a run with this progress over activeNs of client
// activity in the fault phase is vacuous, or returns "" when it cleared
// both floors.
func VacuousReason(p Progress, activeNs int64) string {
	writesMin := vacuousFloor(VacuousAckedWritesPerSecondMin, activeNs)
	readsMin := vacuousFloor(VacuousCheckedReadsPerSecondMin, activeNs)
	switch {
	case p.AckedWrites < writesMin:
		return fmt.Sprintf("%d acknowledged writes, under the floor of %d (%d per simulated second)", p.AckedWrites, writesMin, VacuousAckedWritesPerSecondMin)
	case p.CheckedReads < readsMin:
		return fmt.Sprintf("%d checked reads, under the floor of %d (%d per simulated second)", p.CheckedReads, readsMin, VacuousCheckedReadsPerSecondMin)
	}
	return ""
}

// checkEvidence refuses a verdict to a run that passed every check with
// nothing to judge: no acknowledged write and no checked read (a fault
// phase too short for any call to complete, or a plan that keeps no
// operation). Such a run is an Evidence violation, the no-verdict family,
// never a pass; a run that failed already has its evidence.
func (r *run) checkEvidence() {
	if len(r.res.Violations) > 0 || r.res.Progress.AckedWrites+r.res.Progress.CheckedReads > 0 {
		return
	}
	r.violate(properties.InvariantEvidence, fmt.Errorf("no verdict: the workload's %d operations gave the checks no acknowledged write and no checked read to judge (a longer --duration, or a plan that keeps operations, gives them some)", r.res.Ops.Total))
}
