package faultplan

import (
	"fmt"

	"github.com/felixsim/felixsim/sim/world"
)

// ApplyPlan schedules every fault of p on w. It refuses a plan for another
// world size, a fault in the past, or one aimed at a fault-exempt node.
func ApplyPlan(w *world.World, p *Plan) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if p.Nodes != w.Nodes() {
		return fmt.Errorf("sim: plan for %d nodes refused by a world of %d", p.Nodes, w.Nodes())
	}
	for i, f := range p.Faults {
		if f.AtNs < w.NowNs() {
			return fmt.Errorf("sim: plan fault %d of %d (%s) at %d ns refused: now is %d ns", i+1, len(p.Faults), f, f.AtNs, w.NowNs())
		}
		if err := checkExempt(w, f); err != nil {
			return fmt.Errorf("plan fault %d of %d: %w", i+1, len(p.Faults), err)
		}
	}
	for _, f := range p.Faults {
		schedule(w, f)
	}
	return nil
}

// schedule queues fault f on w at its time.
func schedule(w *world.World, f FaultEvent) {
	w.ScheduleFault(f.AtNs, f.Kind.String(), func(idx int) { applyFault(w, idx, f) })
}

// checkExempt refuses a fault whose node-id fields name a fault-exempt
// node (Node is checked at apply time when a role names it).
func checkExempt(w *world.World, f FaultEvent) error {
	if f.Role != "" && !w.ResolvesRoles() {
		return fmt.Errorf("sim: %s refused: it names role %q but the world has no ResolveRole", f, f.Role)
	}
	for _, fid := range faultKinds[f.Kind].fields {
		fld := &faultFields[fid]
		if !fld.unit.namesNode || (fid == fieldNode && f.Role != "") {
			continue
		}
		if id := int(fld.get(&f)); w.FaultExempt(id) {
			return fmt.Errorf("sim: %s refused: node %d (%q) is fault-exempt", f, id, w.NodeName(id))
		}
	}
	return nil
}

// applyFault executes f, plan fault idx of w (the world fires it only
// before the heal).
func applyFault(w *world.World, idx int, f FaultEvent) {
	if f.Role != "" {
		id, ok := w.ResolveRole(f.Role)
		if !ok || id < 0 || id >= w.Nodes() || w.FaultExempt(id) || f.otherNodeIs(id) {
			w.TraceFault(-1, f.Peer, ^f.digest()) // skipped: no eligible holder
			return
		}
		f.Node = id
	}
	w.TraceFault(f.Node, f.Peer, f.digest())
	w.RunFault(idx, func() { faultKinds[f.Kind].apply(w, f) })
}

// ApplyFault schedules one fault on w, as a plan's fault is scheduled, at
// its AtNs, which must not be in the past; a fault the world cannot take
// (it names a node the world lacks or a fault-exempt one, or the fault
// phase ended with the heal, after which no fault fires) is refused.
func ApplyFault(w *world.World, f FaultEvent) error {
	if err := f.validate(w.Nodes()); err != nil {
		return err
	}
	if f.AtNs < w.NowNs() {
		return fmt.Errorf("sim: %s refused: now is %d ns", f, w.NowNs())
	}
	if w.Healed() {
		return fmt.Errorf("sim: %s refused: the world is healed, and no fault fires after the heal", f)
	}
	if err := checkExempt(w, f); err != nil {
		return err
	}
	schedule(w, f)
	return nil
}
