package node

import (
	"errors"
	"fmt"
	"slices"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/logstore"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/wire"
)

// Stream administration: an operator deletes a stream and creates it
// again later, through the metadata group; raft groups are not created or
// removed at run time (a stream's shards are raft groups of the bootstrap
// topology), so "create" recreates a deleted stream of the topology.
//
// Each stream has an incarnation: a generation, counted from 1 at
// bootstrap, and whether that generation is deleted. A delete marks the
// live generation deleted; a create starts the next generation, live.
// The metadata group decides; each shard group carries the decision into
// its own log as a marker (cmdIncarnation), proposed by its leader like a
// fleet feature's, so every replica changes incarnation at the same log
// position. Applying a marker that changes the incarnation empties every
// scope of the group: its records are dropped (a retention step to the
// tail: offsets go on from there, so a new generation's offsets never mix
// with an old one's), with them its state and outbox rows, and its
// consumer groups restart at the tail with no leases. A deleted
// incarnation refuses every request (CodeUnknownStream, naming the
// deletion) at the leader and, for a write already in the log, at apply;
// and a write carries the generation whose live leader accepted it, so
// one accepted before a delete is refused at apply in the next
// generation too (staleWriteRefusal): that is a new stream.

// StreamIncarnation is one stream's incarnation: its generation and
// whether that generation was deleted.
type StreamIncarnation struct {
	// Generation counts the stream's creations, 1 at bootstrap.
	Generation uint32
	Deleted    bool
}

// bootIncarnation is every stream's incarnation at bootstrap.
var bootIncarnation = StreamIncarnation{Generation: 1}

// order is the incarnation's place in its stream's history: generation g
// live, then g deleted, then g+1 live.
func (i StreamIncarnation) order() uint64 {
	o := uint64(i.Generation) * 2
	if i.Deleted {
		o++
	}
	return o
}

// After reports whether i comes after j in their stream's history.
func (i StreamIncarnation) After(j StreamIncarnation) bool { return i.order() > j.order() }

// Next is the incarnation a delete (of a live one) or a create (of a
// deleted one) moves i to.
func (i StreamIncarnation) Next() StreamIncarnation {
	if i.Deleted {
		return StreamIncarnation{Generation: i.Generation + 1}
	}
	return StreamIncarnation{Generation: i.Generation, Deleted: true}
}

// String names the incarnation ("generation 2" or "generation 2, deleted").
func (i StreamIncarnation) String() string {
	if i.Deleted {
		return fmt.Sprintf("generation %d, deleted", i.Generation)
	}
	return fmt.Sprintf("generation %d", i.Generation)
}

// GenerationsMax bounds a stream's generation: a create past it is refused.
const GenerationsMax = 1 << 30

// ErrStreamAdminRefused marks a stream create or delete the metadata
// group refused.
var ErrStreamAdminRefused = errors.New("stream administration refused")

// streamIndex returns the index of stream namespace/stream in m.Streams,
// or -1.
func (m *Metadata) streamIndex(namespace, stream string) int {
	for i := range m.Streams {
		if m.Streams[i].Namespace == namespace && m.Streams[i].Stream == stream {
			return i
		}
	}
	return -1
}

// IncarnationOf returns stream namespace/stream's incarnation and whether
// the topology has the stream.
func (m *Metadata) IncarnationOf(namespace, stream string) (StreamIncarnation, bool) {
	i := m.streamIndex(namespace, stream)
	if i < 0 {
		return StreamIncarnation{}, false
	}
	return m.Incarnations[i], true
}

// applyStreamAdmin applies a committed stream create (deleted false) or
// delete (deleted true) of c's namespace/stream.
func (m *Metadata) applyStreamAdmin(c *command) error {
	op := "create"
	if c.deleted {
		op = "delete"
	}
	i := m.streamIndex(c.scope.Namespace, c.scope.Stream)
	if i < 0 {
		return fmt.Errorf("%w: %s of %s/%s: no such stream in the topology (streams are the bootstrap's raft groups; create recreates a deleted one)",
			ErrStreamAdminRefused, op, c.scope.Namespace, c.scope.Stream)
	}
	m.Incarnations = slices.Clone(m.Incarnations) // a ReplicaState may share the old slice
	inc := &m.Incarnations[i]
	switch {
	case c.generation != 0 && c.generation != inc.Generation:
		return fmt.Errorf("%w: %s of %s/%s generation %d: the stream is at %s", ErrStreamAdminRefused, op, c.scope.Namespace, c.scope.Stream, c.generation, inc)
	case c.deleted && inc.Deleted:
		return fmt.Errorf("%w: delete of %s/%s: already deleted (%s)", ErrStreamAdminRefused, c.scope.Namespace, c.scope.Stream, inc)
	case c.deleted:
		inc.Deleted = true
	case !inc.Deleted:
		return fmt.Errorf("%w: create of %s/%s: it exists (%s); delete it first", ErrStreamAdminRefused, c.scope.Namespace, c.scope.Stream, inc)
	case inc.Generation >= GenerationsMax:
		return fmt.Errorf("%w: create of %s/%s: generation %d is the last (GenerationsMax)", ErrStreamAdminRefused, c.scope.Namespace, c.scope.Stream, inc.Generation)
	default:
		*inc = StreamIncarnation{Generation: inc.Generation + 1}
	}
	return nil
}

// deletedRefusal is the answer to a request for g's stream while its
// incarnation is deleted, nil while it is live.
func deletedRefusal(g *raftGroup, what string) *wire.Error {
	if !g.incarnation.Deleted {
		return nil
	}
	return &wire.Error{Code: wire.CodeUnknownStream, Message: truncate(fmt.Sprintf(
		"%s refused: stream %s/%s was deleted (%s); nothing was written or read",
		what, g.spec.Namespace, g.spec.Stream, g.incarnation))}
}

// stampGeneration stamps a write proposed in shard group g with the
// generation it is accepted in: the one g has applied (a deleted one
// refused the request before it got here).
func stampGeneration(g *raftGroup, c *command) {
	if c.kind == cmdWrite && g.id != MetaGroup {
		c.generation = g.incarnation.Generation
	}
}

// staleWriteRefusal is the answer to a write applied in a generation of
// its stream other than the one whose live leader accepted it (nil when
// it is that one): a write accepted before a delete is refused after its
// marker, in the deleted generation (deletedRefusal) and in the next one
// alike, for the new generation is a new stream.
func staleWriteRefusal(g *raftGroup, c *command) *wire.Error {
	accepted := max(c.generation, bootIncarnation.Generation)
	if c.kind != cmdWrite || accepted == g.incarnation.Generation {
		return nil
	}
	return &wire.Error{Code: wire.CodeUnknownStream, Message: truncate(fmt.Sprintf(
		"write refused: accepted while stream %s/%s was at generation %d, applied at %s; nothing was written",
		g.spec.Namespace, g.spec.Stream, accepted, g.incarnation))}
}

// tickIncarnations has each shard group this node leads carry its
// stream's incarnation into its own log while the group has applied an
// older one.
func (n *Node) tickIncarnations() {
	for _, g := range n.raftGroups[1:] {
		if !g.isLeader {
			continue
		}
		want, ok := n.meta.IncarnationOf(g.spec.Namespace, g.spec.Stream)
		if ok && want.order() > g.incarnation.order() {
			n.proposeInternal(g, &command{kind: cmdIncarnation, generation: want.Generation, deleted: want.Deleted})
		}
	}
}

// applyIncarnation applies an incarnation marker in shard group g: a
// marker newer than g's incarnation moves g to it and empties every
// scope (see the top of this file): its records, with them its state, its
// outbox rows and its consumer groups' positions, which restart at the
// tail with no leases (b gets their rows); an older or equal one (a
// re-proposal) changes nothing. Under the RecreateKeepsState defect the
// scopes are kept: the new generation reads the old one's records and
// state.
//
// The observer is told of the emptying as a retention step to the tail
// whether or not this broker took it: it is the step the marker's log
// position stands for, and the checks judge every reader against it.
func (n *Node) applyIncarnation(b *logstore.Batch, g *raftGroup, c *command, touched *tenantSet) {
	next := StreamIncarnation{Generation: c.generation, Deleted: c.deleted}
	if next.order() <= g.incarnation.order() {
		return
	}
	g.incarnation, g.incarnationIndex = next, g.applied // applyEntry has advanced applied to the marker's index
	g.ephemeral, g.ages, g.early = nil, nil, nil
	for _, t := range g.tenants {
		s := g.scopes[t]
		tail := s.NextOffset()
		if !n.recreateKeepsState() {
			n.emptyScope(b, g, t, s)
			touched.add(t)
		}
		n.observeDropped(g.scopeOf(t), tail, tail, false)
	}
}

// emptyScope drops every record of tenant's scope s in g, restarts its
// consumer groups at the tail (under the RecreateStrandsGroups defect it
// leaves them where they were) and moves its outbox start there.
func (n *Node) emptyScope(b *logstore.Batch, g *raftGroup, tenant string, s *statemachine.Shard) {
	if err := s.DropBefore(s.NextOffset()); err != nil {
		panic(fmt.Sprintf("node %d: group %d: emptying scope %s at its tail %d: %v", n.cfg.ID, g.id, g.scopeOf(tenant), s.NextOffset(), err))
	}
	if n.recreateStrandsGroups() {
		return // nor does the outbox move: the defect forgets the scope's other tables too
	}
	for _, st := range s.RestartGroups() {
		b.ConsumerGroups = append(b.ConsumerGroups, logstore.ConsumerGroupRow{Scope: g.scopeOf(tenant), Group: st})
	}
	if g.outboxStart != nil {
		g.outboxStart[tenant] = s.NextOffset()
	}
}

// Snapshot data of a stream shard group carries the group's incarnation
// after the features byte (see fleet.go): a u32 generation and a deleted
// byte. A compaction point of two bytes (written before incarnations) is
// generation 1, live.

// appendIncarnation appends g's incarnation to snapshot data.
func appendIncarnation(b []byte, inc StreamIncarnation) []byte {
	e := enc{b: b}
	e.u32(inc.Generation)
	e.u8(boolByte(inc.Deleted))
	return e.b
}

// snapshotIncarnation reads the incarnation of a stream shard group's
// snapshot data (either magic); data without one (the bootstrap snapshot,
// or data written before incarnations) is bootIncarnation.
func snapshotIncarnation(data []byte) (StreamIncarnation, error) {
	if len(data) == 0 || (data[0] == compactionMagic && len(data) == snapshotFeatureBytesHeader) {
		return bootIncarnation, nil
	}
	d := dec{b: data}
	d.take(snapshotFeatureBytesHeader, "magic and features")
	inc := StreamIncarnation{Generation: d.u32("generation"), Deleted: d.flag("deleted")}
	if d.err != nil {
		return StreamIncarnation{}, d.err
	}
	if inc.Generation < 1 || inc.Generation > GenerationsMax {
		return StreamIncarnation{}, fmt.Errorf("%w: snapshot generation %d, want 1..%d", ErrMalformed, inc.Generation, GenerationsMax)
	}
	return inc, nil
}

// recoverIncarnation sets shard group g's incarnation at its applied
// index: its snapshot's, moved by the markers stored after it. The
// scopes need no emptying: the store's tables already hold what applying
// those markers left.
func (n *Node) recoverIncarnation(g *raftGroup, snap *raftpb.Snapshot) error {
	if g.id == MetaGroup {
		return nil
	}
	from := snap.GetMetadata().GetIndex()
	inc, err := snapshotIncarnation(snap.GetData())
	if err != nil {
		return fmt.Errorf("node %d: group %d snapshot at index %d: %w", n.cfg.ID, g.id, from, err)
	}
	g.incarnation, g.incarnationIndex = inc, 0
	return n.foldIncarnation(g, from)
}

// foldIncarnation applies to g the incarnation markers stored after index
// from up to its applied index.
func (n *Node) foldIncarnation(g *raftGroup, from uint64) error {
	return n.storedCommands(g, from, cmdIncarnation, func(index uint64, c *command) {
		if next := (StreamIncarnation{Generation: c.generation, Deleted: c.deleted}); next.order() > g.incarnation.order() {
			g.incarnation, g.incarnationIndex = next, index
		}
	})
}
