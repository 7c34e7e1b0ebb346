package world

import "fmt"

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
