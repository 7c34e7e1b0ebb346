package sim

import "fmt"

// ApplyPlan schedules every fault of p. It refuses a plan for another world
// size, a fault in the past, or one aimed at a fault-exempt node.
func (w *World) ApplyPlan(p *Plan) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if p.Nodes != len(w.nodes) {
		return fmt.Errorf("sim: plan for %d nodes refused by a world of %d", p.Nodes, len(w.nodes))
	}
	for i, f := range p.Faults {
		if f.AtNs < w.nowNs {
			return fmt.Errorf("sim: plan fault %d (%s) at %d ns refused: now is %d ns", i, f, f.AtNs, w.nowNs)
		}
		if err := w.checkExempt(f); err != nil {
			return fmt.Errorf("plan fault %d: %w", i, err)
		}
	}
	for _, f := range p.Faults {
		w.schedule(f)
	}
	return nil
}

// schedule queues fault f at its time.
func (w *World) schedule(f FaultEvent) {
	w.faults = append(w.faults, f)
	w.notePlanFault(f)
	w.q.push(event{atNs: f.AtNs, kind: EvFault, node: -1, peer: -1, id: uint64(len(w.faults) - 1)})
}

// checkExempt refuses a fault whose node-id fields name a fault-exempt
// node (Node is checked at apply time when a role names it).
func (w *World) checkExempt(f FaultEvent) error {
	if f.Role != "" && w.cfg.ResolveRole == nil {
		return fmt.Errorf("sim: %s refused: it names role %q but the world has no ResolveRole", f, f.Role)
	}
	for _, fid := range faultKinds[f.Kind].fields {
		fld := &faultFields[fid]
		if !fld.unit.namesNode || (fid == fieldNode && f.Role != "") {
			continue
		}
		if id := int(fld.get(&f)); w.nodes[id].spec.FaultExempt {
			return fmt.Errorf("sim: %s refused: node %d (%q) is fault-exempt", f, id, w.nodes[id].spec.Name)
		}
	}
	return nil
}

// applyFault executes plan fault idx; after Heal, plan faults are ignored.
func (w *World) applyFault(idx int) {
	if w.healed {
		return
	}
	f := w.faults[idx]
	if f.Role != "" {
		id, ok := w.cfg.ResolveRole(f.Role)
		if !ok || id < 0 || id >= len(w.nodes) || w.nodes[id].spec.FaultExempt || f.otherNodeIs(id) {
			w.trace(EvFault, -1, int32(f.Peer), ^f.digest()) // skipped: no eligible holder
			return
		}
		f.Node = id
	}
	w.trace(EvFault, int32(f.Node), int32(f.Peer), f.digest())
	w.countFired(idx)
	w.cause = faultCause(idx + 1)
	faultKinds[f.Kind].apply(w, f)
	w.cause = causeNone
}

// ClockJump moves node id's clock by deltaNs (either way); its timers move
// with it.
func (w *World) ClockJump(id int, deltaNs int64) {
	n := w.node(id)
	if deltaNs != 0 && len(n.timers) > 0 {
		w.effect(w.cause)
	}
	n.clock.jump(w.nowNs, deltaNs)
	w.rescheduleTimers(n)
}

// ClockDrift sets node id's drift rate from now on; its timers are re-planned.
func (w *World) ClockDrift(id int, driftPpm int64) error {
	n := w.node(id)
	was := n.clock.driftPpm
	if err := n.clock.setDrift(w.nowNs, driftPpm); err != nil {
		return err
	}
	if was != driftPpm && len(n.timers) > 0 {
		w.effect(w.cause)
	}
	w.rescheduleTimers(n)
	return nil
}

// Heal ends the fault phase: partitions and link faults go, disk faults stop
// (an armed crash and every targeted fault still waiting with them),
// clock drift returns to each node's baseline (jumps already taken stay),
// paused nodes resume and down nodes boot. Plan faults still scheduled are
// ignored from now on.
func (w *World) Heal() {
	w.trace(EvHeal, -1, -1, 0)
	w.healed = true
	w.Calm()
}

// Calm undoes what Heal undoes (network, disk fault rates, clock drift,
// pauses, down nodes, targeted faults still waiting) without ending the fault phase: later plan faults
// still strike. Applied as a plan fault, it has an effect when it undid
// anything.
func (w *World) Calm() {
	w.HealNetwork()
	w.disarmWatches()
	for _, n := range w.nodes {
		if n.disk.diskRates != (diskRates{}) {
			w.effect(w.cause)
		}
		n.disk.heal()
		if n.clock.driftPpm != n.spec.ClockDriftPpm {
			if err := w.ClockDrift(n.id, n.spec.ClockDriftPpm); err != nil {
				panic(fmt.Sprintf("sim: validated baseline drift of node %d: %v", n.id, err))
			}
		}
		switch n.status {
		case statusPaused:
			w.Resume(n.id)
		case statusDown:
			w.Restart(n.id)
		}
	}
}

// ApplyFault schedules one fault, as a plan's fault is scheduled, at its
// AtNs, which must not be in the past; a fault the world cannot take (it
// names a node the world lacks or a fault-exempt one, or the fault phase
// ended with the heal, after which no fault fires) is refused.
func (w *World) ApplyFault(f FaultEvent) error {
	if err := f.validate(len(w.nodes)); err != nil {
		return err
	}
	if f.AtNs < w.nowNs {
		return fmt.Errorf("sim: %s refused: now is %d ns", f, w.nowNs)
	}
	if w.healed {
		return fmt.Errorf("sim: %s refused: the world is healed, and no fault fires after the heal", f)
	}
	if err := w.checkExempt(f); err != nil {
		return err
	}
	w.schedule(f)
	return nil
}
