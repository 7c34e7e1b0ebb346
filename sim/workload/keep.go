package workload

import (
	"fmt"

	"github.com/felixsim/felixsim/sim/faultplan"
)

// slotState is one client's count of drawn operations (its slots, see
// faultplan.ClientOps) and whether the one being drawn is skipped.
type slotState struct {
	// drawn counts the client's slots so far.
	drawn int
	// skipping is set while a slot the plan skips is drawn: begin then
	// invokes and records nothing.
	skipping bool
	// skipped counts the slots drawn but not invoked.
	skipped int
}

// invokeSlot draws the client's next operation and invokes it unless
// Config.KeepOps skips its slot. The slot draws from its own generator
// (clientDraws.slot), and a skipped slot is drawn all the same, so the
// client's later slots ask for what they asked in the full workload as far
// as the answers it gets allow (a conditional write expects the tail it saw).
func (p *proc) invokeSlot(now int64) {
	slot := p.slots.drawn
	p.slots.drawn++
	p.slots.skipping = !p.w.keepsOp(p.index, slot)
	p.invokeRandom(now, p.draws.slot(slot))
	p.slots.skipping = false
}

// keepsOp reports whether the config keeps client's operation slot.
func (w *Workload) keepsOp(client, slot int) bool {
	for _, c := range w.cfg.KeepOps {
		if c.Client == client {
			return c.Keeps(slot)
		}
	}
	return true
}

// validateKeepOps refuses ops restrictions for clients the workload lacks.
func validateKeepOps(keep []faultplan.ClientOps, clients int) error {
	for _, c := range keep {
		if c.Client < 0 || c.Client >= clients {
			return fmt.Errorf("workload: ops for client %d refused: the workload has clients 0..%d", c.Client, clients-1)
		}
	}
	return nil
}
