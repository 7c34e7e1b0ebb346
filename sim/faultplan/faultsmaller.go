package faultplan

// This file offers a shrinker the smaller variants of a fault, read from
// the fault table's fields (nothing here names a kind).

// Smallest useful magnitudes: a shrunk duration, latency or jump is not
// made shorter than SmallerNsMin, a chance or drift not smaller than
// SmallerPpmMin (zero would switch the fault off, which removing it
// already tries).
const (
	SmallerNsMin  = msNs
	SmallerPpmMin = 1_000
)

// Smaller returns variants of f that are each one step simpler: one of
// its magnitude fields (those in ns or ppm: durations, delays, latencies,
// jumps, chances, drifts) set to the smallest useful magnitude, then, as
// a gentler step, halved, keeping its sign. Fields already at the
// smallest magnitude yield nothing, so repeatedly taking a variant ends.
// Node, peer, mask and flag fields are never changed.
func (f FaultEvent) Smaller() []FaultEvent {
	if !f.Kind.valid() {
		return nil
	}
	var floors, halves []FaultEvent
	for _, id := range faultKinds[f.Kind].fields {
		fld := &faultFields[id]
		floor := int64(0)
		switch fld.unit {
		case &unitNs:
			floor = SmallerNsMin
		case &unitPpm:
			floor = SmallerPpmMin
		default:
			continue
		}
		v := fld.get(&f)
		mag := v
		if mag < 0 {
			mag = -mag
		}
		if mag <= floor {
			continue
		}
		sign := int64(1)
		if v < 0 {
			sign = -1
		}
		g := f
		fld.set(&g, sign*floor)
		floors = append(floors, g)
		if half := mag / 2; half > floor {
			h := f
			fld.set(&h, sign*half)
			halves = append(halves, h)
		}
	}
	return append(floors, halves...)
}
