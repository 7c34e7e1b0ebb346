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
