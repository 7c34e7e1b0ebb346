package runner

import (
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
func (r *run) checkGroups(snap cluster.Snapshot, h *properties.History, ref *properties.ReplicaLog) {
	r.violate(properties.InvariantGroupAckedNotRedelivered, properties.HistoryGroupAckedNotRedelivered(h))
	if !r.drainSt.ran {
		return
	}
	r.violate(properties.InvariantGroupDeliversEveryRecord, properties.HistoryGroupDeliversEveryRecord(h, ref, r.drainSt.drained))
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
}

// observe checks raft group id's positions on n against the last durable
// ones and remembers them as durable.
func (gp *groupPositions) observe(ir *inRun, n *node.Node, id uint64) {
	if gp.durable == nil {
		gp.durable = map[brokerGroup][]properties.GroupPositionView{}
	}
	gp.buf = n.AppendGroupPositions(gp.buf[:0], id)
	gp.after = gp.after[:0]
	for _, p := range gp.buf {
		gp.after = append(gp.after, properties.GroupPositionView{Scope: p.Scope, Group: p.Group, CommittedOffset: p.CommittedOffset})
	}
	k := brokerGroup{n.ID(), id}
	before := gp.durable[k]
	if len(before) == 0 && len(gp.after) == 0 {
		return
	}
	ir.note(properties.InvariantGroupPositionMonotonic, properties.GroupPositionsNeverBackwards(ir.name(n.ID()), before, gp.after))
	gp.durable[k] = append(before[:0], gp.after...)
}

// groupsPersisted checks a durable round's group positions.
func (ir *inRun) groupsPersisted(p *node.PersistedGroup) {
	if n := ir.c.Node(p.Node); n != nil {
		ir.groups.observe(ir, n, p.Group)
	}
}

// groupsOpened checks a rebuilt broker's group positions against what its
// earlier incarnations made durable.
func (ir *inRun) groupsOpened(n *node.Node) {
	for i := 0; i < n.RaftGroups(); i++ {
		ir.groups.observe(ir, n, node.MetaGroup+uint64(i))
	}
}
