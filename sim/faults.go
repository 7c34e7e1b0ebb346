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
		w.faults = append(w.faults, f)
		w.q.push(event{atNs: f.AtNs, kind: EvFault, node: -1, peer: -1, id: uint64(len(w.faults) - 1)})
	}
	return nil
}

func (w *World) checkExempt(f FaultEvent) error {
	check := func(id int) error {
		if w.nodes[id].spec.FaultExempt {
			return fmt.Errorf("sim: %s refused: node %d (%q) is fault-exempt", f, id, w.nodes[id].spec.Name)
		}
		return nil
	}
	if f.Role != "" && w.cfg.ResolveRole == nil {
		return fmt.Errorf("sim: %s refused: it names role %q but the world has no ResolveRole", f, f.Role)
	}
	if f.Kind.targetsNode() && f.Role == "" {
		if err := check(f.Node); err != nil {
			return err
		}
	}
	if f.Kind == FaultPartition || f.Kind == FaultOneWay {
		return check(f.Peer)
	}
	return nil
}

func (f FaultEvent) digest() uint64 {
	h := mixWord(traceHashInit, uint64(f.Kind))
	h = mixWord(h, uint64(f.Node)|uint64(f.Peer)<<32)
	h = mixWord(h, f.Mask)
	h = mixWord(h, uint64(f.Value))
	h = mixWord(h, uint64(f.DurNs))
	for i := 0; i < len(f.Role); i++ {
		h = mixWord(h, uint64(f.Role[i]))
	}
	return h
}

// applyFault executes plan fault idx; after Heal, plan faults are ignored.
func (w *World) applyFault(idx int) {
	if w.healed {
		return
	}
	f := w.faults[idx]
	if f.Role != "" {
		id, ok := w.cfg.ResolveRole(f.Role)
		if !ok || id < 0 || id >= len(w.nodes) || w.nodes[id].spec.FaultExempt || ((f.Kind == FaultPartition || f.Kind == FaultOneWay) && id == f.Peer) {
			w.trace(EvFault, -1, int32(f.Peer), ^f.digest()) // skipped: no eligible holder
			return
		}
		f.Node = id
	}
	w.trace(EvFault, int32(f.Node), int32(f.Peer), f.digest())
	switch f.Kind {
	case FaultPartition:
		w.Partition(f.Node, f.Peer)
	case FaultOneWay:
		w.Block(f.Node, f.Peer)
	case FaultIsolate:
		w.Isolate(f.Node)
	case FaultSplit:
		w.Split(f.Mask)
	case FaultBridge:
		w.Bridge(f.Node, f.Mask)
	case FaultHealNet:
		w.HealNetwork()
	case FaultLoss:
		w.SetLinks(func(l *LinkConfig) { l.LossPpm = f.Value })
	case FaultDuplicate:
		w.SetLinks(func(l *LinkConfig) { l.DuplicatePpm = f.Value })
	case FaultReorder:
		w.SetLinks(func(l *LinkConfig) { l.ReorderPpm, l.ReorderDelayMaxNs = f.Value, f.DurNs })
	case FaultLatency:
		w.SetLinks(func(l *LinkConfig) { l.LatencyMaxNs = max(l.LatencyMinNs, f.Value) })
	default:
		w.applyNodeFault(f)
	}
}

func (w *World) applyNodeFault(f FaultEvent) {
	d := w.nodes[f.Node].disk
	switch f.Kind {
	case FaultKill:
		w.Kill(f.Node, f.Value == 1, f.DurNs)
	case FaultRestart:
		w.Restart(f.Node)
	case FaultPause:
		w.Pause(f.Node, f.DurNs)
	case FaultResume:
		w.Resume(f.Node)
	case FaultClockJump:
		w.ClockJump(f.Node, f.Value)
	case FaultClockDrift:
		if err := w.ClockDrift(f.Node, f.Value); err != nil {
			panic(fmt.Sprintf("sim: validated plan fault %s: %v", f, err))
		}
	case FaultFsyncErr:
		d.fsyncErrPpm = f.Value
	case FaultReadErr:
		d.readErrPpm = f.Value
	case FaultCorrupt:
		w.CorruptSector(f.Node)
	case FaultDiskLatency:
		d.latencyMaxNs = f.Value
	default:
		panic(fmt.Sprintf("sim: fault kind %v has no handler", f.Kind))
	}
}

// ClockJump moves node id's clock by deltaNs (either way); its timers move
// with it.
func (w *World) ClockJump(id int, deltaNs int64) {
	n := w.node(id)
	n.clock.jump(w.nowNs, deltaNs)
	w.rescheduleTimers(n)
}

// ClockDrift sets node id's drift rate from now on; its timers are re-planned.
func (w *World) ClockDrift(id int, driftPpm int64) error {
	n := w.node(id)
	if err := n.clock.setDrift(w.nowNs, driftPpm); err != nil {
		return err
	}
	w.rescheduleTimers(n)
	return nil
}

// Heal ends the fault phase: partitions and link faults go, disk faults stop,
// clock drift returns to each node's baseline (jumps already taken stay),
// paused nodes resume and down nodes boot. Plan faults still scheduled are
// ignored from now on.
func (w *World) Heal() {
	w.trace(EvHeal, -1, -1, 0)
	w.healed = true
	w.HealNetwork()
	for _, n := range w.nodes {
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
