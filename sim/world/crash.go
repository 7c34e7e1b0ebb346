package world

// This file is a node's death at a disk operation: a crash that lands
// inside whatever the node was doing (a store commit halfway written), not
// between two of its events as Kill does.

import (
	"fmt"

	"github.com/felixsim/felixsim/vfs"
)

// CrashModel says what a dead node's disk keeps of the bytes written since
// their last fsync; the zero value is invalid.
type CrashModel uint8

// Crash models.
const (
	crashModelInvalid CrashModel = iota
	// CrashLost keeps only the synced bytes (the disk cache was lost).
	CrashLost
	// CrashTorn keeps the synced bytes and a drawn number of whole sectors
	// of each file's unsynced tail, the last kept sector perhaps holding
	// part of a write.
	CrashTorn
	// CrashKept keeps every written byte (the cache reached the platter).
	CrashKept
	crashModelEnd
)

var crashModelNames = [crashModelEnd]string{"invalid", "lost", "torn", "kept"}

// String names the model as plan files spell it.
func (m CrashModel) String() string {
	if m < crashModelEnd {
		return crashModelNames[m]
	}
	return fmt.Sprintf("crashmodel(%d)", uint8(m))
}

// ParseCrashModel reads a model name.
func ParseCrashModel(s string) (CrashModel, error) {
	for m := CrashLost; m < crashModelEnd; m++ {
		if crashModelNames[m] == s {
			return m, nil
		}
	}
	return crashModelInvalid, fmt.Errorf("crash model %q refused: want lost, torn or kept", s)
}

// Valid reports whether m is one of lost, torn and kept.
func (m CrashModel) Valid() bool { return m > crashModelInvalid && m < crashModelEnd }

// policy is node id's disk's crash policy under model m; torn tails are
// drawn from the node's disk stream.
func (w *World) policy(id int, m CrashModel) vfs.CrashPolicy {
	switch m {
	case CrashLost:
		return vfs.LoseUnsynced
	case CrashTorn:
		return vfs.TornTail(func(_ string, tailSectors int) int { return w.diskDraw(id).Intn(tailSectors + 1) })
	case CrashKept:
		return vfs.KeepUnsynced
	}
	panic(fmt.Sprintf("sim: crash model %d is not one of lost, torn, kept", uint8(m)))
}

// crashPoint reports whether a crash at a disk operation may land before
// op: every operation that changes the disk but a file sync. A crash
// before a sync would keep, under the torn and kept models, a whole
// transaction whose commit never returned; the broker's trace never says
// it was persisted, and the trace validation's model (tla) does not yet
// allow a crash to keep an unfinished persist. Before a write, at most a
// transaction without its commit marker survives, which recovery cuts.
func (o Op) crashPoint() bool {
	switch o {
	case OpCreate, OpRemove, OpRename, OpSyncDir, OpWrite, OpTruncate:
		return true
	}
	return false
}

// crashUnwind is the panic value that carries a node's call from the disk
// operation it died at up to runNode; nothing else may recover it.
type crashUnwind struct {
	node int
	op   Op
	name string
}

// CrashAtDiskOp arms a crash of node id at its opsAfter-th disk operation
// that may be a crash point (write, truncate, create, remove, rename,
// directory sync; not a file sync, see Op.crashPoint), counted from now
// over the operations its own code makes (1 = the next one). The node dies before that operation reaches the disk:
// the call it was in unwinds at once, nothing after it runs, and its disk
// keeps the unsynced bytes as model says. It boots again restartAfterNs
// later (0: at the heal). Arming again replaces an armed crash; the heal
// disarms it.
func (w *World) CrashAtDiskOp(id int, opsAfter int64, model CrashModel, restartAfterNs int64) {
	if opsAfter < 1 || !model.Valid() || restartAfterNs < 0 {
		panic(fmt.Sprintf("sim: crash of node %d at disk op %d, model %s, restart after %d ns: out of range", id, opsAfter, model, restartAfterNs))
	}
	d := w.node(id).disk
	d.crashOpsLeft, d.crashModel, d.crashRestartNs = opsAfter, model, restartAfterNs
	d.by.crash = w.cause
}

// crashDetail is a crash's kill trace detail: apart from Kill's 0 and 1,
// naming the operation and the model.
func crashDetail(op Op, m CrashModel) uint64 { return 1<<32 | uint64(op)<<8 | uint64(m) }

// crashNow kills d's node inside operation op on name and unwinds its call.
// It does not return.
func (w *World) crashNow(d *diskFaults, op Op, name string) {
	model, restartNs := d.crashModel, d.crashRestartNs
	d.crashOpsLeft, d.crashModel, d.crashRestartNs = 0, crashModelInvalid, 0
	w.effect(d.by.crash)
	w.kill(d.node, model, crashDetail(op, model), restartNs)
	u := &crashUnwind{node: d.node, op: op, name: name}
	w.unwinding = u
	panic(u)
}

// runNode runs fn as node n's code (its boot, a timer or a delivery). A
// crash at a disk operation unwinds fn by a panic caught here and nowhere
// else; every other panic passes through untouched.
func (w *World) runNode(n *node, fn func()) {
	w.curNode = n.id
	defer w.endNodeCall(n)
	fn()
}

// endNodeCall ends a node's call; it recovers a panic only while a crash
// is unwinding, and then only that crash's.
func (w *World) endNodeCall(n *node) {
	w.curNode = -1
	u := w.unwinding
	if u == nil {
		return
	}
	w.unwinding = nil
	p := recover()
	if p == nil {
		panic(fmt.Sprintf("sim: node %d died at its %s of %s, yet its call returned: something recovered the crash and ran on past it", u.node, u.op, u.name))
	}
	if p != any(u) || u.node != n.id {
		panic(p)
	}
}
