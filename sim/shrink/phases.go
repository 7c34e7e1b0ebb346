package shrink

import (
	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/workload"
)

// withDuration is p with its fault phase cut to d: the faults at or after
// d are dropped (they would never strike).
func withDuration(p *faultplan.Plan, d int64) *faultplan.Plan {
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
// quarter of it first (cheap runs), and just past the end of the
// operations the violation names, when it names any (evidenceEndNs); then
// thirds of the interval between the longest duration known to pass and
// the shortest known to fail, until it is within a tenth (or
// DurationNsMin). A run cut before the named operations were answered
// rarely fails the same way, so when the probe past them fails the search
// takes it without bisecting below.
func (s *shrinker) shrinkDuration() error {
	hi, lo := s.best.DurationNs, int64(0)
	var probes []int64
	for _, div := range []int64{64, 16, 4} {
		if d := roundMs(hi / div); d >= DurationNsMin && (len(probes) == 0 || d > probes[len(probes)-1]) {
			probes = append(probes, d)
		}
	}
	evidence := -1 // the index of the probe past the evidence
	end := evidenceEndNs(s.bestOut.evidenceOf(s.target))
	past := roundMs(end) + 2_000_000 // a whole millisecond past it
	switch {
	case end > 0 && end < hi && past >= hi:
		return nil // the fault phase already ends just past them
	case end > 0 && past < hi && past >= DurationNsMin:
		for len(probes) > 0 && probes[len(probes)-1] >= past {
			probes = probes[:len(probes)-1]
		}
		evidence, probes = len(probes), append(probes, past)
	}
	k, err := s.firstFailing(s.durationPlans(probes))
	if err != nil {
		return err
	}
	switch {
	case k >= 0 && k == evidence:
		return nil
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

func (s *shrinker) durationPlans(ds []int64) []*faultplan.Plan {
	var out []*faultplan.Plan
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
	withFaults := func(idx []int) *faultplan.Plan {
		q := *base
		q.Faults = nil
		for _, i := range idx {
			q.Faults = append(q.Faults, base.Faults[i])
		}
		return &q
	}
	if k, err := s.firstFailing([]*faultplan.Plan{withFaults(nil)}); k >= 0 || err != nil {
		return err
	}
	_, err := DDMin(len(base.Faults), func(cands [][]int) (int, error) {
		plans := make([]*faultplan.Plan, len(cands))
		for i, c := range cands {
			plans[i] = withFaults(c)
		}
		return s.firstFailing(plans)
	})
	return err
}

// shrinkMagnitudes makes each remaining fault gentler (faultplan.FaultEvent.
// Smaller: durations, latencies, jumps, chances, drifts to their floor or
// halved) while the run still fails, and turns off re-sending writes
// whose outcome was unknown.
func (s *shrinker) shrinkMagnitudes() error {
	for i := 0; i < len(s.best.Faults); i++ {
		for {
			base := s.best
			var plans []*faultplan.Plan
			for _, g := range base.Faults[i].Smaller() {
				q := *base
				q.Faults = append([]faultplan.FaultEvent(nil), base.Faults...)
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
	_, err := s.firstFailing([]*faultplan.Plan{&q})
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
	var plans []*faultplan.Plan
	for _, div := range []int64{1, 2, 4} {
		plans = append(plans, shifted(base, base.Faults, roundMs(base.Faults[0].AtNs/div)))
	}
	_, err := s.firstFailing(plans)
	return err
}

// LatestFaultsMin is the fewest faults shrinkLatest works on.
const LatestFaultsMin = 8

// shrinkLatest keeps only the latest eighth, quarter or half of the
// faults (in that order), moved earlier so the first kept one strikes at
// once: a failure mostly follows from the faults just before it, and the
// shorter run makes every later candidate cheaper. It is tried before
// ddmin over the faults, whose candidates run the full fault phase.
func (s *shrinker) shrinkLatest() error {
	base := s.best
	n := len(base.Faults)
	if n < LatestFaultsMin {
		return nil
	}
	var plans []*faultplan.Plan
	for _, keep := range []int{n / 8, n / 4, n / 2} {
		kept := base.Faults[n-keep:]
		plans = append(plans, shifted(base, kept, kept[0].AtNs/1_000_000*1_000_000))
	}
	_, err := s.firstFailing(plans)
	return err
}

// shifted is base with only faults, each moved shiftNs earlier, and the
// fault phase shortened by as much.
func shifted(base *faultplan.Plan, faults []faultplan.FaultEvent, shiftNs int64) *faultplan.Plan {
	q := *base
	q.DurationNs = base.DurationNs - shiftNs
	q.Faults = nil
	for _, f := range faults {
		f.AtNs -= shiftNs
		q.Faults = append(q.Faults, f)
	}
	return &q
}
