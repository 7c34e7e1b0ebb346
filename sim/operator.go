package sim

// streamAdmin hands a stream administration fault to the operator, if it
// carries such actions (see StreamOperator); the fault's effect is counted
// when the operator reports the change applied.
func (w *World) streamAdmin(deleted bool) {
	op, ok := w.cfg.Operator.(StreamOperator)
	if !ok {
		return
	}
	cause := w.cause
	op.StreamAdmin(deleted, func() { w.effect(cause) })
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
func (w *World) upgradeBroker(node int, downNs int64) {
	if op, ok := w.cfg.Operator.(FleetOperator); ok {
		cause := w.cause
		op.UpgradeBroker(node, downNs, func() { w.effect(cause) })
	}
}

// finalize hands a finalize to the operator, if it carries them.
func (w *World) finalize() {
	if op, ok := w.cfg.Operator.(FleetOperator); ok {
		cause := w.cause
		op.Finalize(func() { w.effect(cause) })
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
