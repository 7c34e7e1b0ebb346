package shrink

import (
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/faultplan"
)

// opSlot is one client's operation slot.
type opSlot struct{ client, slot int }

// noSlot marks a history operation no slot drew: a re-sent write, a group
// ack, or the runner's own (clients past the workload's).
const noSlot = -1

// historySlots is, for each of h's operations in order, the slot its
// client drew it in, or noSlot. A client's drawn operations enter the
// history in slot order, skipping the slots plan p does not keep.
func historySlots(h *properties.History, p *faultplan.Plan, clients int) []int {
	out := make([]int, len(h.Ops))
	next := make([]int, clients) // per client: the slot after its last drawn one
	for i := range h.Ops {
		op := &h.Ops[i]
		out[i] = noSlot
		if op.RetryOf != 0 || op.Client < 0 || op.Client >= clients || op.Kind == properties.HistoryGroupAck {
			continue
		}
		slot := next[op.Client]
		for !p.KeepsOp(op.Client, slot) {
			slot++
		}
		next[op.Client], out[i] = slot+1, slot
	}
	return out
}

// slotScopes is the scope each slot of a run addressed, from its history.
// A slot's operation is drawn from a generator keyed by the slot's number
// (sim/workload/draws.go), so a slot mostly asks for the same scope in
// every candidate; the search only uses this to choose candidates, and
// judges each by running it.
func slotScopes(h *properties.History, p *faultplan.Plan, clients int) map[opSlot]string {
	out := map[opSlot]string{}
	if h == nil {
		return out
	}
	for i, slot := range historySlots(h, p, clients) {
		if slot != noSlot {
			out[opSlot{h.Ops[i].Client, slot}] = h.Ops[i].Scope.String()
		}
	}
	return out
}
