package runner

import (
	"slices"
	"sort"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/workload"
)

// checkGroups runs the consumer-group properties over the history (the
// drain's operations included) and the quiesced replicas. Delivery and
// agreement are judged only after a drain that ran to its end (which
// means liveness and both quiesces passed: the replicas have applied the
// same log); otherwise they are not judged, and the run already carries
// the liveness violation that says why.
func (r *run) checkGroups(snap cluster.Snapshot, j *historyJudgment) {
	r.violate(properties.InvariantGroupAckedNotRedelivered, j.groupsAcked)
	r.res.Violations = append(r.res.Violations, groupWindowViolations(snap)...)
	if !r.drainSt.ran {
		return
	}
	r.violate(properties.InvariantGroupDeliversEveryRecord, j.groupsDelivered)
	if r.drainSt.disagreed == nil {
		r.violate(properties.InvariantGroupStateAgreement, properties.GroupStatesAgree(GroupReplicasOf(snap)))
	}
}

// GroupReplicasOf converts a cluster snapshot's consumer groups to the
// agreement check's view: per running broker, every scope holding a
// group, ascending.
func GroupReplicasOf(s cluster.Snapshot) []properties.GroupReplica {
	out := make([]properties.GroupReplica, 0, len(s.Replicas))
	for i := range s.Replicas {
		out = append(out, groupReplicaOf(&s.Replicas[i]))
	}
	return out
}

// liveGroupReplicas is GroupReplicasOf for the running brokers now, read
// without copying their logs.
func (r *run) liveGroupReplicas() []properties.GroupReplica {
	var out []properties.GroupReplica
	for id := uint64(1); id <= uint64(r.c.Brokers()); id++ {
		n := r.c.Node(id)
		if n == nil {
			continue
		}
		gr := properties.GroupReplica{Broker: brokerName(id)}
		for _, sg := range n.ConsumerGroups() {
			gr.Scopes = append(gr.Scopes, workload.ScopeGroupsOf(sg.Scope, sg.Groups))
		}
		sort.Slice(gr.Scopes, func(i, j int) bool { return gr.Scopes[i].Scope.Less(gr.Scopes[j].Scope) })
		out = append(out, gr)
	}
	return out
}

func groupReplicaOf(v *node.ReplicaState) properties.GroupReplica {
	gr := properties.GroupReplica{Broker: brokerName(v.Node)}
	for gi := range v.RaftGroups {
		for si := range v.RaftGroups[gi].Scopes {
			sv := &v.RaftGroups[gi].Scopes[si]
			if len(sv.Shard.Groups) == 0 {
				continue
			}
			gr.Scopes = append(gr.Scopes, workload.ScopeGroupsOf(sv.Scope, sv.Shard.Groups))
		}
	}
	sort.Slice(gr.Scopes, func(i, j int) bool { return gr.Scopes[i].Scope.Less(gr.Scopes[j].Scope) })
	return gr
}

// groupPositions remembers, per broker and raft group, the consumer-group
// positions the broker last made durable, across its incarnations: what
// GroupPositionMonotonic compares each durable round and each boot with.
type groupPositions struct {
	durable map[brokerGroup][]properties.GroupPositionView
	buf     []node.GroupPosition
	after   []properties.GroupPositionView
	// atIndex are, per raft group, positions some broker made durable at
	// an applied index, ascending by index: what a snapshot install is
	// compared with (GroupPositionInSnapshot).
	atIndex map[uint64][]indexedPositions
}

// indexedPositionsMax caps one raft group's atIndex; when full the entry
// at the lowest index is dropped (an install below every kept index then
// has no reference: not checked).
const indexedPositionsMax = 1024

// indexedPositions are a raft group's consumer-group positions at an
// applied index.
type indexedPositions struct {
	index     uint64
	positions []properties.GroupPositionView
}

// observe checks raft group id's positions on n against the last durable
// ones and remembers them as durable; appliedIndex (0: unknown) is the
// group's durable applied index and snapIndex that of a snapshot the
// round installed (0: none).
func (gp *groupPositions) observe(ir *inRun, n *node.Node, id, appliedIndex, snapIndex uint64) {
	if gp.durable == nil {
		gp.durable = map[brokerGroup][]properties.GroupPositionView{}
	}
	gp.buf = n.AppendGroupPositions(gp.buf[:0], id)
	gp.after = gp.after[:0]
	for _, p := range gp.buf {
		gp.after = append(gp.after, properties.GroupPositionView{Scope: p.Scope, Group: p.Group, CommittedOffset: p.CommittedOffset})
	}
	k := brokerGroup{n.ID(), id}
	if snapIndex > 0 {
		gp.checkInstall(ir, n.ID(), id, snapIndex)
	}
	if appliedIndex > 0 {
		gp.remember(id, appliedIndex)
	}
	before := gp.durable[k]
	if slices.Equal(before, gp.after) {
		// Nothing moved: before passed this check when it was made durable,
		// so the same positions pass it again.
		return
	}
	ir.note(properties.InvariantGroupPositionMonotonic, properties.GroupPositionsNeverBackwards(ir.name(n.ID()), before, gp.after))
	gp.durable[k] = append(before[:0], gp.after...)
}

// checkInstall compares gp.after, broker's positions in raft group id
// right after it installed a snapshot at snapIndex, with the positions
// kept at the highest index at or below it.
func (gp *groupPositions) checkInstall(ir *inRun, broker, id, snapIndex uint64) {
	list := gp.atIndex[id]
	i := sort.Search(len(list), func(i int) bool { return list[i].index > snapIndex })
	if i == 0 {
		return
	}
	ref := &list[i-1]
	ir.note(properties.InvariantGroupPositionInSnapshot, properties.GroupPositionsSurviveSnapshot(ir.name(broker), snapIndex, ref.index, ref.positions, gp.after))
}

// remember keeps gp.after as raft group id's positions at index, unless
// an entry at that index is kept or the one below it holds the same.
func (gp *groupPositions) remember(id, index uint64) {
	if gp.atIndex == nil {
		gp.atIndex = map[uint64][]indexedPositions{}
	}
	list := gp.atIndex[id]
	i := sort.Search(len(list), func(i int) bool { return list[i].index >= index })
	if i < len(list) && list[i].index == index || i > 0 && slices.Equal(list[i-1].positions, gp.after) {
		return
	}
	if len(list) == indexedPositionsMax {
		if i == 0 {
			return // below every kept index
		}
		list = slices.Delete(list, 0, 1)
		i--
	}
	list = slices.Insert(list, i, indexedPositions{index: index, positions: slices.Clone(gp.after)})
	gp.atIndex[id] = list
}

// groupsPersisted checks a durable round's group positions.
func (ir *inRun) groupsPersisted(p *node.PersistedGroup) {
	if n := ir.c.Node(p.Node); n != nil {
		ir.groups.observe(ir, n, p.Group, p.AppliedIndex, p.SnapshotIndex)
	}
}

// groupsOpened checks a rebuilt broker's group positions against what its
// earlier incarnations made durable.
func (ir *inRun) groupsOpened(n *node.Node) {
	for i := 0; i < n.RaftGroups(); i++ {
		ir.groups.observe(ir, n, node.MetaGroup+uint64(i), 0, 0)
	}
}
