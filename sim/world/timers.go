package world

import (
	"fmt"
	"sort"
)

// TimersPerNodeMax caps one node's armed timers. Overflow policy: panic,
// since a process that arms this many timers has lost track of them.
const TimersPerNodeMax = 1 << 16

// timer is an armed callback due when its node's clock reads deadlineLocalNs.
// gen changes whenever the timer is rescheduled after a clock fault, so the
// queue entries of its earlier schedules are recognised as stale.
type timer struct {
	id              uint64
	deadlineLocalNs int64
	gen             uint64
	fn              func()
}

func (w *World) armTimer(n *node, delayNs int64, fn func()) uint64 {
	if delayNs < 0 {
		panic(fmt.Sprintf("sim: node %d armed a timer with negative delay %d ns", n.id, delayNs))
	}
	if len(n.timers) >= TimersPerNodeMax {
		panic(fmt.Sprintf("sim: node %d has %d timers armed (TimersPerNodeMax %d)", n.id, len(n.timers), TimersPerNodeMax))
	}
	nowNs := w.nowNs + w.busyNs
	w.timerSeq++
	t := &timer{id: w.timerSeq, deadlineLocalNs: n.clock.localNs(nowNs) + delayNs, fn: fn}
	n.timers[t.id] = t
	w.scheduleTimer(n, t, nowNs)
	return t.id
}

func (w *World) scheduleTimer(n *node, t *timer, nowNs int64) {
	at := n.clock.virtAtNs(t.deadlineLocalNs, nowNs)
	w.q.push(event{atNs: at, kind: EvTimer, node: int32(n.id), peer: -1, id: t.id, gen: t.gen})
}

// rescheduleTimers re-plans every armed timer of n after its clock changed,
// in timer-ID order.
func (w *World) rescheduleTimers(n *node) {
	ids := make([]uint64, 0, len(n.timers))
	for id := range n.timers {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		t := n.timers[id]
		t.gen++
		w.scheduleTimer(n, t, w.nowNs)
	}
}

func (w *World) fireTimer(ev event) {
	n := w.nodes[ev.node]
	t, ok := n.timers[ev.id]
	if !ok || t.gen != ev.gen {
		return // cancelled, rescheduled, or its incarnation died
	}
	if n.status == statusPaused {
		w.hold(n, ev)
		return
	}
	if local := n.clock.localNs(w.nowNs); local < t.deadlineLocalNs {
		panic(fmt.Sprintf("sim: node %d timer %d fired at local %d ns before its deadline %d ns", n.id, t.id, local, t.deadlineLocalNs))
	}
	delete(n.timers, ev.id)
	w.trace(EvTimer, ev.node, -1, ev.id)
	w.runNode(n, t.fn)
}
