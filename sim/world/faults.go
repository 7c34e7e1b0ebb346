package world

// This file is the world's side of a fault plan (sim/faultplan schedules
// one): the plan's faults are queued as events, each fires at its time
// unless the fault phase ended with the heal, and while one is applied it
// is the cause every condition it sets up is noted under (effects.go).
// The plan's own vocabulary (kinds, fields, roles, digests) is faultplan's;
// nothing here names a kind.

// ScheduleFault queues a plan fault at atNs, the next index among the
// faults scheduled so far: fire is called with that index at atNs unless
// the world is healed by then. kind names the fault's coverage points
// (coverage.FaultFired and FaultEffect).
func (w *World) ScheduleFault(atNs int64, kind string, fire func(idx int)) {
	w.faults = append(w.faults, fire)
	w.notePlanFault(kind)
	w.q.push(event{atNs: atNs, kind: EvFault, node: -1, peer: -1, id: uint64(len(w.faults) - 1)})
}

// fireFault runs plan fault idx; after Heal, plan faults are ignored.
func (w *World) fireFault(idx int) {
	if w.healed {
		return
	}
	w.faults[idx](idx)
}

// TraceFault records plan fault's application in the trace: on node and
// peer (-1: none; a skipped fault's node is -1), with the fault's digest.
func (w *World) TraceFault(node, peer int, digest uint64) {
	w.trace(EvFault, int32(node), int32(peer), digest)
}

// RunFault applies plan fault idx by calling apply: the fault counts as
// fired, and every condition apply sets up is noted as its cause.
func (w *World) RunFault(idx int, apply func()) {
	w.countFired(idx)
	w.cause = faultCause(idx + 1)
	apply()
	w.cause = causeNone
}

// Effect counts the plan fault being applied as having had an effect.
func (w *World) Effect() { w.effect(w.cause) }

// EffectLater returns a function that counts the plan fault being applied
// now as having had an effect, when called later.
func (w *World) EffectLater() func() {
	cause := w.cause
	return func() { w.effect(cause) }
}

// Healed reports whether the fault phase ended with the heal (no plan
// fault fires after it).
func (w *World) Healed() bool { return w.healed }

// ResolvesRoles reports whether the world was given Config.ResolveRole,
// so that a fault may name a node by its role.
func (w *World) ResolvesRoles() bool { return w.cfg.ResolveRole != nil }

// ResolveRole names the node holding role right now (Config.ResolveRole,
// which must be set).
func (w *World) ResolveRole(role string) (node int, ok bool) { return w.cfg.ResolveRole(role) }

// FaultExempt reports whether node id is kept off plan faults
// (NodeSpec.FaultExempt).
func (w *World) FaultExempt(id int) bool { return w.node(id).spec.FaultExempt }

// Operator is the operator the world was given (Config.Operator), or nil.
func (w *World) Operator() Operator { return w.cfg.Operator }
