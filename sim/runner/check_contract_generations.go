package runner

import (
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
)

// generationWatch gathers what WriteInItsGeneration judges on the streams
// an operator may delete and create again (a run's administered stream,
// streamadmin.go; every stream of a scenario): each write a broker
// accepted (a Request step of the brokers' trace, emitted as the leader
// proposes) with the generation its shard group was in then, and each
// write a broker applied (node.Observer.Applied, right after the apply)
// with the generation then. Both read the broker's incarnation at that
// very moment; the watch only reads, so a run is the same with it. A
// write is named by its first put's value digest (the writers' values
// are unique per write); a write without a put is not gathered.
//
// Invariant: len(accepted) and len(landed) stay within
// generationWritesMax; past it writes are not gathered and cut is set.
type generationWatch struct {
	c *cluster.Cluster
	// groups are the watched shard groups (nil: every stream shard group).
	groups           []uint64
	on               bool
	accepted, landed []properties.GenerationWrite
	cut              bool
}

// generationWritesMax caps each of the watch's lists.
const generationWritesMax = 1 << 16

// watch starts gathering on c's shard groups groups (nil: all of them).
func (w *generationWatch) watch(c *cluster.Cluster, groups []uint64) {
	w.c, w.groups, w.on = c, groups, true
}

// watched reports whether raft group id is watched.
func (w *generationWatch) watched(id uint64) bool {
	if !w.on || id == node.MetaGroup {
		return false
	}
	if w.groups == nil {
		return true
	}
	for _, g := range w.groups {
		if g == id {
			return true
		}
	}
	return false
}

// Step keeps a write's acceptance by a leader of a watched group.
func (w *generationWatch) Step(s *modeltrace.Step) {
	if s.Kind != modeltrace.Request || s.Asked == nil || !s.Asked.Kind.Writes() || !w.watched(s.Group) {
		return
	}
	for _, op := range s.Asked.StateOps {
		if !op.Delete {
			w.keep(&w.accepted, s.Broker, s.Group, op.Value, 0)
			return
		}
	}
}

// applied keeps a write's landing in a watched group.
func (w *generationWatch) applied(a *node.AppliedRecord) {
	if w == nil || !w.on {
		return
	}
	g := w.c.RaftGroupOf(a.Scope.Namespace, a.Scope.Stream, a.Scope.Shard)
	if !w.watched(g) {
		return
	}
	for _, op := range a.Record.Ops {
		if op.Kind == felix.OpPut {
			w.keep(&w.landed, a.Node, g, modeltrace.Digest(op.Value), a.Offset)
			return
		}
	}
}

// keep appends broker's write of value (at offset) with raft group
// group's incarnation on it now.
func (w *generationWatch) keep(list *[]properties.GenerationWrite, broker, group, value, offset uint64) {
	n := w.c.Node(broker)
	if n == nil {
		return
	}
	inc, ok := n.Incarnation(group)
	if !ok {
		return
	}
	if len(*list) >= generationWritesMax {
		w.cut = true
		return
	}
	*list = append(*list, properties.GenerationWrite{Broker: broker, Group: group, Value: value, Offset: offset,
		Stamp: properties.GenerationStamp{Generation: inc.Generation, Deleted: inc.Deleted}, AtNs: w.c.World.NowNs()})
}

// check judges what the watch gathered; a cut list judges nothing (an
// acceptance past the cap could explain a landing kept).
func (w *generationWatch) check() (int, error) {
	if w.cut {
		return 0, nil
	}
	return properties.WritesInTheirGeneration(w.accepted, w.landed)
}
