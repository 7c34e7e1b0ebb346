package world

import (
	"fmt"

	"github.com/felixsim/felixsim/moment"
	"github.com/felixsim/felixsim/sim/prng"
	"github.com/felixsim/felixsim/sim/simapi"
	"github.com/felixsim/felixsim/vfs"
)

// procEnv is the simapi.Env of one incarnation of one node.
type procEnv struct {
	w   *World
	n   *node
	inc uint64
}

var _ simapi.Env = (*procEnv)(nil)

// live reports whether this incarnation still runs (a paused process cannot
// be calling, since it runs nothing).
func (e *procEnv) live() bool { return e.n.inc == e.inc && e.n.status != statusDown }

func (e *procEnv) ID() int             { return e.n.id }
func (e *procEnv) Nodes() int          { return len(e.w.nodes) }
func (e *procEnv) Incarnation() uint64 { return e.inc }
func (e *procEnv) FS() vfs.FS          { return e.n.fs }
func (e *procEnv) Rand() *prng.Rand    { return e.n.rand }

func (e *procEnv) Stream(name string) *prng.Rand {
	return prng.Derive(e.w.cfg.Seed, fmt.Sprintf("node/%d/%s", e.n.id, name))
}

func (e *procEnv) NowNs() int64 { return e.n.clock.localNs(e.w.nowNs + e.w.busyNs) }

func (e *procEnv) AfterNs(delayNs int64, fn func()) uint64 {
	if !e.live() {
		return 0
	}
	return e.w.armTimer(e.n, delayNs, fn)
}

func (e *procEnv) Cancel(timerID uint64) bool {
	if !e.live() {
		return false
	}
	if _, ok := e.n.timers[timerID]; !ok {
		return false
	}
	delete(e.n.timers, timerID)
	return true
}

func (e *procEnv) Send(to int, msg simapi.Message) {
	if to < 0 || to >= len(e.w.nodes) {
		panic(fmt.Sprintf("sim: node %d sent to node %d, outside [0, %d)", e.n.id, to, len(e.w.nodes)))
	}
	if msg == nil {
		panic(fmt.Sprintf("sim: node %d sent a nil message to node %d", e.n.id, to))
	}
	if !e.live() {
		return
	}
	e.w.send(e.n.id, to, msg)
}

func (e *procEnv) Trace(what string, digest uint64) {
	h := uint64(TraceHashInit)
	for i := 0; i < len(what); i++ {
		h = (h ^ uint64(what[i])) * traceHashPrime
	}
	e.w.trace(EvNote, int32(e.n.id), -1, MixWord(h, digest))
}

// Moment reports that the incarnation reached m; a targeted fault waiting
// for it strikes now (see watch.go). A dead incarnation reports nothing.
func (e *procEnv) Moment(m moment.Moment) {
	if !m.Valid() {
		panic(fmt.Sprintf("sim: node %d reported invalid moment %d", e.n.id, m))
	}
	if e.live() {
		e.w.reachMoment(e.n.id, m)
	}
}
