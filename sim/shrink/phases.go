package shrink

import (
	"github.com/felixsim/felixsim/sim"
	"github.com/felixsim/felixsim/sim/workload"
)

// withDuration is p with its fault phase cut to d: the faults at or after
// d are dropped (they would never strike).
func withDuration(p *sim.Plan, d int64) *sim.Plan {
	q := *p
	q.DurationNs, q.Faults = d, nil
	for _, f := range p.Faults {
		if f.AtNs < d {
			q.Faults = append(q.Faults, f)
		}
	}
	return &q
}

// shrinkDuration shortens the fault phase: probes at a 64th, 16th and
// quarter of it first (cheap runs), then thirds of the interval between
// the longest duration known to pass and the shortest known to fail,
// until it is within a tenth (or DurationNsMin).
func (s *shrinker) shrinkDuration() error {
	hi, lo := s.best.DurationNs, int64(0)
	var probes []int64
	for _, div := range []int64{64, 16, 4} {
		if d := roundMs(hi / div); d >= DurationNsMin && (len(probes) == 0 || d > probes[len(probes)-1]) {
			probes = append(probes, d)
		}
	}
	k, err := s.firstFailing(s.durationPlans(probes))
	if err != nil {
		return err
	}
	switch {
	case k >= 0:
		hi = probes[k]
		if k > 0 {
			lo = probes[k-1]
		}
	case len(probes) > 0:
		lo = probes[len(probes)-1]
	}
	for hi-lo > max(hi/10, DurationNsMin) {
		third := (hi - lo) / 3
		mids := []int64{roundMs(lo + third), roundMs(lo + 2*third)}
		k, err := s.firstFailing(s.durationPlans(mids))
		if err != nil {
			return err
		}
		switch k {
		case 0:
			hi = mids[0]
		case 1:
			lo, hi = mids[0], mids[1]
		default:
			lo = mids[1]
		}
	}
	return nil
}

func (s *shrinker) durationPlans(ds []int64) []*sim.Plan {
	var out []*sim.Plan
	for _, d := range ds {
		out = append(out, withDuration(s.best, d))
	}
	return out
}

// roundMs rounds a duration to whole milliseconds (at least one), so that
// a shrunk plan reads well.
func roundMs(d int64) int64 { return max(d/1_000_000, 1) * 1_000_000 }

// shrinkFaults removes faults: none at all first, then ddmin over them.
func (s *shrinker) shrinkFaults() error {
	base := s.best
	if len(base.Faults) == 0 {
		return nil
	}
	withFaults := func(idx []int) *sim.Plan {
		q := *base
		q.Faults = nil
		for _, i := range idx {
			q.Faults = append(q.Faults, base.Faults[i])
		}
		return &q
	}
	if k, err := s.firstFailing([]*sim.Plan{withFaults(nil)}); k >= 0 || err != nil {
		return err
	}
	_, err := DDMin(len(base.Faults), func(cands [][]int) (int, error) {
		plans := make([]*sim.Plan, len(cands))
		for i, c := range cands {
			plans[i] = withFaults(c)
		}
		return s.firstFailing(plans)
	})
	return err
}

// shrinkOps removes workload operations: every client's slots that the
// best run drew and its plan keeps; none at all first, then ddmin.
func (s *shrinker) shrinkOps() error {
	base := s.best
	// Slot-major order: clients draw at the same mean rate, so this is
	// roughly invocation order, and ddmin's chunks are windows of time
	// across every client (a failure usually needs a few operations close
	// together in time).
	var all []opSlot
	clients := len(s.bestOut.opSlots)
	for slot, more := 0, true; more; slot++ {
		more = false
		for c, n := range s.bestOut.opSlots {
			if slot < n {
				more = true
				if base.KeepsOp(c, slot) {
					all = append(all, opSlot{c, slot})
				}
			}
		}
	}
	withOps := func(idx []int) *sim.Plan {
		keep := make([][]int, clients)
		for _, i := range idx {
			keep[all[i].client] = append(keep[all[i].client], all[i].slot)
		}
		q := *base
		q.Ops = nil
		for c := range keep {
			q.Ops = append(q.Ops, sim.ClientOps{Client: c, Keep: sim.OpRangesOf(keep[c])})
		}
		return &q
	}
	if clients == 0 {
		return nil
	}
	if k, err := s.firstFailing([]*sim.Plan{withOps(nil)}); k >= 0 || err != nil || len(all) == 0 {
		return err
	}
	_, err := DDMin(len(all), func(cands [][]int) (int, error) {
		plans := make([]*sim.Plan, len(cands))
		for i, c := range cands {
			plans[i] = withOps(c)
		}
		return s.firstFailing(plans)
	})
	return err
}

// shrinkMagnitudes makes each remaining fault gentler (sim.FaultEvent.
// Smaller: durations, latencies, jumps, chances, drifts to their floor or
// halved) while the run still fails, and turns off re-sending writes
// whose outcome was unknown.
func (s *shrinker) shrinkMagnitudes() error {
	for i := 0; i < len(s.best.Faults); i++ {
		for {
			base := s.best
			var plans []*sim.Plan
			for _, g := range base.Faults[i].Smaller() {
				q := *base
				q.Faults = append([]sim.FaultEvent(nil), base.Faults...)
				q.Faults[i] = g
				plans = append(plans, &q)
			}
			k, err := s.firstFailing(plans)
			if err != nil {
				return err
			}
			if k < 0 {
				break
			}
		}
	}
	if s.best.Param(workload.ParamRetryUnknownPct, 0) < 0 {
		return nil
	}
	q := *s.best
	q.Workload = nil
	for _, p := range s.best.Workload {
		if p.Name == workload.ParamRetryUnknownPct {
			p.Value = -1
		}
		q.Workload = append(q.Workload, p)
	}
	_, err := s.firstFailing([]*sim.Plan{&q})
	return err
}

// shrinkEarlier moves the whole fault schedule earlier, cutting the fault
// phase by as much: first so the first fault strikes at once, then by half
// and a quarter of that. What the workload did before the first fault is
// often only the setting; a failure that needs it stays as it was.
func (s *shrinker) shrinkEarlier() error {
	base := s.best
	if len(base.Faults) == 0 || base.Faults[0].AtNs < DurationNsMin {
		return nil
	}
	var plans []*sim.Plan
	for _, div := range []int64{1, 2, 4} {
		shift := roundMs(base.Faults[0].AtNs / div)
		q := *base
		q.DurationNs = base.DurationNs - shift
		q.Faults = nil
		for _, f := range base.Faults {
			f.AtNs -= shift
			q.Faults = append(q.Faults, f)
		}
		plans = append(plans, &q)
	}
	_, err := s.firstFailing(plans)
	return err
}
