package world

import (
	"fmt"

	"github.com/felixsim/felixsim/vfs"
)

// boot starts a new incarnation of a down node. ev.gen, when non-zero, is
// the incarnation the restart was scheduled for; a node that has booted
// since (Heal restarted it) ignores the stale restart.
func (w *World) boot(ev event) {
	n := w.nodes[ev.node]
	if n.status != statusDown || (ev.gen != 0 && ev.gen != n.inc) {
		return
	}
	n.inc++
	n.status = statusUp
	w.effect(faultCause(ev.id)) // a Restart fault's boot
	n.timers = map[uint64]*timer{}
	n.proc = n.spec.New()
	if n.proc == nil {
		panic(fmt.Sprintf("sim: node %d (%q) New returned nil", n.id, n.spec.Name))
	}
	w.trace(EvBoot, ev.node, -1, n.inc)
	env := &procEnv{w: w, n: n, inc: n.inc}
	proc := n.proc
	w.runNode(n, func() { proc.Boot(env) })
}

// Kill stops node id at once: its memory, timers and waiting messages are
// gone and its disk loses what was not synced (torn: the unsynced tails
// survive in part, cut at sector granularity). If restartAfterNs > 0 the node
// boots again that much later.
func (w *World) Kill(id int, torn bool, restartAfterNs int64) {
	if torn {
		w.kill(id, CrashTorn, 1, restartAfterNs)
		return
	}
	w.kill(id, CrashLost, 0, restartAfterNs)
}

// FailedWriteGuardBytes is how much of a failed write's end a crash after
// it never keeps (KillTearingUnsynced): a store's commit marker and its
// copy (58 bytes) close every transaction, so the failed one never
// survives as if its fsync had succeeded.
const FailedWriteGuardBytes = 64

// KillTearingUnsynced stops node id like Kill, keeping of each file's
// unsynced tail a whole-sector prefix (possibly none) that ends at least
// FailedWriteGuardBytes before the tail's end: what a crash right after a
// failed write or fsync may leave, a write cut short. If restartAfterNs > 0
// the node boots again that much later.
func (w *World) KillTearingUnsynced(id int, restartAfterNs int64) {
	w.killWith(id, w.cutShort(id), 2, restartAfterNs)
}

// cutShort is KillTearingUnsynced's crash policy for node id.
func (w *World) cutShort(id int) vfs.CrashPolicy {
	return func(_ string, synced, current []byte) []byte { return w.cutShortFile(id, synced, current) }
}

// cutShortFile is what cutShort keeps of one file of node id.
func (w *World) cutShortFile(id int, synced, current []byte) []byte {
	if len(current) <= len(synced) || string(current[:len(synced)]) != string(synced) {
		return append([]byte(nil), synced...)
	}
	first := len(synced) / vfs.SectorBytes
	last := (len(current) - FailedWriteGuardBytes) / vfs.SectorBytes
	if last <= first {
		return append([]byte(nil), synced...)
	}
	end := (first + w.diskDraw(id).Intn(last-first+1)) * vfs.SectorBytes
	if end <= len(synced) {
		return append([]byte(nil), synced...)
	}
	return append([]byte(nil), current[:end]...)
}

// kill stops node id, its disk keeping unsynced bytes as model says;
// detail goes into the kill's trace event.
func (w *World) kill(id int, model CrashModel, detail uint64, restartAfterNs int64) {
	if w.node(id).status == statusDown {
		return
	}
	w.killWith(id, w.policy(id, model), detail, restartAfterNs)
}

// killWith stops node id, its disk crashing with policy.
func (w *World) killWith(id int, policy vfs.CrashPolicy, detail uint64, restartAfterNs int64) {
	n := w.node(id)
	if n.status == statusDown {
		return
	}
	w.trace(EvKill, int32(id), -1, detail)
	w.effect(w.cause)
	n.status = statusDown
	n.proc = nil
	n.timers = map[uint64]*timer{}
	n.held, n.heldMessages = nil, 0
	n.mem.Crash(policy)
	n.disk.afterCrash()
	if restartAfterNs > 0 {
		w.q.push(event{atNs: w.nowNs + restartAfterNs, kind: EvBoot, node: int32(id), peer: -1, gen: n.inc})
	}
}

// Restart boots a down node now; it does nothing to a running one.
func (w *World) Restart(id int) {
	w.node(id)
	w.q.push(event{atNs: w.nowNs, kind: EvBoot, node: int32(id), peer: -1, id: uint64(w.cause)})
}

// Pause freezes node id: it runs nothing, and its timers and incoming
// messages wait until it resumes. If resumeAfterNs > 0 it resumes that much
// later.
func (w *World) Pause(id int, resumeAfterNs int64) {
	n := w.node(id)
	if n.status != statusUp {
		return
	}
	n.status = statusPaused
	n.pausedBy = w.cause
	w.trace(EvPause, int32(id), -1, n.inc)
	if resumeAfterNs > 0 {
		w.q.push(event{atNs: w.nowNs + resumeAfterNs, kind: EvResume, node: int32(id), peer: -1, gen: n.inc})
	}
}

// Resume lets a paused node run again; what waited is delivered now, in
// the order it arrived.
func (w *World) Resume(id int) { w.resume(id, 0) }

func (w *World) resume(id int, inc uint64) {
	n := w.node(id)
	if n.status != statusPaused || (inc != 0 && inc != n.inc) {
		return
	}
	n.status = statusUp
	w.effect(w.cause) // a Resume fault's
	w.trace(EvResume, int32(id), -1, uint64(len(n.held)))
	held := n.held
	n.held, n.heldMessages = nil, 0
	for _, ev := range held {
		ev.atNs = w.nowNs
		w.q.push(ev)
	}
}

// hold parks ev on paused node n; messages beyond HeldMessagesMax are
// dropped.
func (w *World) hold(n *node, ev event) {
	if ev.kind == EvDeliver {
		w.effect(n.pausedBy) // the paused node missed a message
		if n.heldMessages >= HeldMessagesMax {
			w.trace(EvDrop, ev.node, ev.peer, dropDetail(dropHeldFull, ev.msg.Digest()))
			return
		}
		n.heldMessages++
	}
	w.trace(EvHeld, ev.node, ev.peer, uint64(ev.kind))
	n.held = append(n.held, ev)
}
