package world

import "fmt"

// PpmScale is one million parts per million: a probability of 1.
const PpmScale = 1_000_000

// DriftPpmMax bounds a clock's drift rate either way; a clock at -1e6 ppm
// would stop, so the bound keeps every clock strictly advancing.
const DriftPpmMax = 500_000

// nodeClock maps the world's virtual time to one node's local reading:
// local(v) = baseLocalNs + (v - baseVirtNs) * (1e6 + driftPpm) / 1e6.
//
// Invariant: -DriftPpmMax <= driftPpm <= DriftPpmMax.
type nodeClock struct {
	baseVirtNs  int64
	baseLocalNs int64
	driftPpm    int64
	// peakLocalNs is the highest reading the clock showed before a jump
	// moved it back (0: never moved back); until the reading is there
	// again, timers the node armed before the jump have not come due.
	peakLocalNs int64
}

func (c *nodeClock) rate() int64 { return PpmScale + c.driftPpm }

// localNs is the node's reading at virtual time vNs (vNs >= baseVirtNs).
func (c *nodeClock) localNs(vNs int64) int64 {
	d := vNs - c.baseVirtNs
	if d < 0 {
		panic(fmt.Sprintf("sim: clock read at %d ns before its base %d ns", vNs, c.baseVirtNs))
	}
	q, r := d/PpmScale, d%PpmScale
	return c.baseLocalNs + q*c.rate() + r*c.rate()/PpmScale
}

// virtAtNs is the earliest virtual time, not before nowNs, at which the
// node's clock reads at least localNs.
func (c *nodeClock) virtAtNs(localNs, nowNs int64) int64 {
	d := localNs - c.baseLocalNs
	if d <= 0 {
		return max(nowNs, c.baseVirtNs)
	}
	rate := c.rate()
	q, r := d/rate, d%rate
	v := c.baseVirtNs + q*PpmScale + (r*PpmScale+rate-1)/rate
	for c.localNs(v) < localNs { // integer rounding; at most a step or two
		v++
	}
	return max(v, nowNs)
}

// rebase moves the base to nowNs without changing the reading.
func (c *nodeClock) rebase(nowNs int64) {
	c.baseLocalNs = c.localNs(nowNs)
	c.baseVirtNs = nowNs
}

// jump moves the reading by deltaNs (either way) at nowNs.
func (c *nodeClock) jump(nowNs, deltaNs int64) {
	c.rebase(nowNs)
	if deltaNs < 0 {
		c.peakLocalNs = max(c.peakLocalNs, c.baseLocalNs)
	}
	c.baseLocalNs += deltaNs
}

// setDrift changes the drift rate from nowNs on; it returns an error for a
// rate outside ±DriftPpmMax.
func (c *nodeClock) setDrift(nowNs, driftPpm int64) error {
	if driftPpm < -DriftPpmMax || driftPpm > DriftPpmMax {
		return fmt.Errorf("sim: clock drift %d ppm refused: outside ±%d ppm", driftPpm, DriftPpmMax)
	}
	c.rebase(nowNs)
	c.driftPpm = driftPpm
	return nil
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
