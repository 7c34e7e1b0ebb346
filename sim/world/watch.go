package world

// This file is the machinery of targeted faults: a fault that, once
// applied, waits for a node to report a moment (moment.Moment, through
// its Env) and strikes it right there. The fault table (sim/faultplan's
// faultkinds.go) says what each targeted kind does when it strikes;
// nothing here names a kind.

import (
	"fmt"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/moment"
)

// watch is an applied targeted fault waiting for its moment: it strikes
// the first node of mask to report moment at or before deadlineNs.
type watch struct {
	cause      faultCause
	mask       uint64
	moment     moment.Moment
	deadlineNs int64
	strike     func(id int)
}

// WatchesMax caps the targeted faults waiting at once. Overflow policy:
// the oldest lapses (its fault counts no effect), as if its window had
// closed.
const WatchesMax = 64

// ArmWatch makes the plan fault being applied wait windowNs for one of
// the nodes in mask to reach moment m, then strike it (strike is called
// with the node, the fault again the cause).
func (w *World) ArmWatch(mask uint64, m moment.Moment, windowNs int64, strike func(id int)) {
	if !m.Valid() || windowNs < 0 || strike == nil {
		panic(fmt.Sprintf("sim: watch for moment %d over %d ns: out of range", m, windowNs))
	}
	if len(w.watches) == WatchesMax {
		w.watches = append(w.watches[:0], w.watches[1:]...)
	}
	w.watches = append(w.watches, watch{cause: w.cause, mask: mask, moment: m, deadlineNs: w.nowNs + windowNs, strike: strike})
}

// disarmWatches makes every waiting targeted fault lapse (the heal and
// calm undo them with the rest).
func (w *World) disarmWatches() { w.watches = w.watches[:0] }

// reachMoment is node id reporting moment m: the oldest watch waiting for
// it strikes. Watches whose window closed lapse on the way.
func (w *World) reachMoment(id int, m moment.Moment) {
	if len(w.watches) == 0 {
		return
	}
	kept := w.watches[:0]
	hit := -1
	for i := range w.watches {
		wt := w.watches[i]
		if wt.deadlineNs < w.nowNs {
			continue // lapsed
		}
		if hit < 0 && wt.moment == m && wt.mask&(1<<uint(id)) != 0 {
			hit = len(kept)
		}
		kept = append(kept, wt)
	}
	w.watches = kept
	if hit < 0 {
		return
	}
	wt := w.watches[hit]
	w.watches = append(w.watches[:hit], w.watches[hit+1:]...)
	w.cfg.Coverage.Add(coverage.Targeted(m.String()))
	was := w.cause
	w.cause = wt.cause
	defer func() { w.cause = was }()
	wt.strike(id)
}

// targetedKillDetail is a targeted kill's trace detail: apart from
// Kill's 0 and 1 and a crash's 1<<32 | ..., naming the moment.
func targetedKillDetail(m moment.Moment) uint64 { return 2<<32 | uint64(m) }

// KillAtMoment kills node id where it reported moment m, its disk keeping
// unsynced bytes as model says, and boots it again restartAfterNs later.
// Inside the node's own call the call unwinds at once, as at a crash at a
// disk operation; from a harness call into the node (curNode is not id)
// the kill waits until that call has returned.
func (w *World) KillAtMoment(id int, m moment.Moment, model CrashModel, restartAfterNs int64) {
	if w.curNode != id {
		n := w.node(id)
		inc, cause := n.inc, w.cause
		w.At(w.nowNs, uint64(id), func() {
			if n.inc == inc && n.status != statusDown {
				was := w.cause
				w.cause = cause
				w.kill(id, model, targetedKillDetail(m), restartAfterNs)
				w.cause = was
			}
		})
		return
	}
	w.kill(id, model, targetedKillDetail(m), restartAfterNs)
	u := &crashUnwind{node: id, name: "moment " + m.String()}
	w.unwinding = u
	panic(u)
}
