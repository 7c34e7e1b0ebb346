package faultplan

import "github.com/felixsim/felixsim/sim/world"

// streamAdmin hands a stream administration fault to the operator, if it
// carries such actions (see StreamOperator); the fault's effect is counted
// when the operator reports the change applied.
func streamAdmin(w *world.World, deleted bool) {
	op, ok := w.Operator().(world.StreamOperator)
	if !ok {
		return
	}
	op.StreamAdmin(deleted, w.EffectLater())
}

// AdministersStream reports whether the plan holds an operator action on
// the run's administered stream (see FaultKind.AdministersStream).
func (p *Plan) AdministersStream() bool {
	for _, f := range p.Faults {
		if f.Kind.AdministersStream() {
			return true
		}
	}
	return false
}

// upgradeBroker hands a rolling-upgrade step to the operator, if it
// carries them (see FleetOperator).
func upgradeBroker(w *world.World, node int, downNs int64) {
	if op, ok := w.Operator().(world.FleetOperator); ok {
		op.UpgradeBroker(node, downNs, w.EffectLater())
	}
}

// finalize hands a finalize to the operator, if it carries them.
func finalize(w *world.World) {
	if op, ok := w.Operator().(world.FleetOperator); ok {
		op.Finalize(w.EffectLater())
	}
}

// UpgradesFleet reports whether the plan holds a rolling-upgrade action
// (see FaultKind.UpgradesFleet): its cluster must boot at the version
// before the upgrade, the feature not finalized.
func (p *Plan) UpgradesFleet() bool {
	for _, f := range p.Faults {
		if f.Kind.UpgradesFleet() {
			return true
		}
	}
	return false
}
