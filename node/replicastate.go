package node

import (
	"go.etcd.io/raft/v3"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
)

// ScopeState is one scope's replica state: everything its shard holds.
type ScopeState struct {
	Scope felix.Scope
	// Shard is the shard's offsets, state, retained log and consumer
	// groups; its buffers are shared with the node: do not modify them.
	Shard statemachine.Snapshot
	// OutboxStart is the first outbox offset not trimmed: the scope's
	// outbox holds OutboxStart..Shard's next offset - 1.
	OutboxStart uint64
}

// RaftGroupState is one raft group's replica state on one node.
type RaftGroupState struct {
	ID uint64
	// Term, Commit and Applied are raft's term, commit index and this
	// node's applied index.
	Term, Commit, Applied uint64
	// Lead is the leader this node believes in (0 = none); Leader is true
	// when that is this node.
	Lead   uint64
	Leader bool
	// Features are the fleet features the group's own log has applied
	// (what its commits are gated on; zero for the metadata group).
	Features statemachine.Features
	// Incarnation is the stream incarnation the group's own log has
	// applied (zero for the metadata group).
	Incarnation StreamIncarnation
	// Scopes are the group's scopes in ascending tenant order (empty for
	// the metadata group).
	Scopes []ScopeState
}

// ReplicaState is everything a checker needs from one node at one instant.
type ReplicaState struct {
	Node uint64
	// Metadata is the applied metadata-group state.
	Metadata Metadata
	// RaftGroups are every raft group, ascending by id.
	RaftGroups []RaftGroupState
	// OutboxRows is how many outbox rows the store holds.
	OutboxRows int
}

// ReplicaState captures the node's replica state. The simulator calls it
// between events, so the states of all nodes taken together are a
// consistent cut.
func (n *Node) ReplicaState() ReplicaState { return n.replicaState((*statemachine.Shard).Snapshot) }

// ReplicaOutline is ReplicaState without its shards' retained logs and
// state views: each shard's window and consumer groups only. A checker
// reads the logs of a long run a scope at a time (ScopeState) rather than
// copy every scope's at once.
func (n *Node) ReplicaOutline() ReplicaState { return n.replicaState(outlineOf) }

// outlineOf is s's snapshot without its log and state view.
func outlineOf(s *statemachine.Shard) statemachine.Snapshot {
	return statemachine.Snapshot{FirstOffset: s.FirstOffset(), NextOffset: s.NextOffset(), Groups: s.Groups()}
}

// ScopeState is the node's state of scope s, as ReplicaState holds it
// (false when the node holds no such scope).
func (n *Node) ScopeState(s felix.Scope) (ScopeState, bool) {
	for _, g := range n.raftGroups {
		for _, t := range g.tenants {
			if g.scopeOf(t) == s {
				return ScopeState{Scope: s, Shard: g.scopes[t].Snapshot(), OutboxStart: g.outboxStart[t]}, true
			}
		}
	}
	return ScopeState{}, false
}

// replicaState is ReplicaState with each shard's snapshot taken by snap.
func (n *Node) replicaState(snap func(*statemachine.Shard) statemachine.Snapshot) ReplicaState {
	v := ReplicaState{Node: n.cfg.ID, Metadata: *n.meta, OutboxRows: n.store.Counts().Outbox}
	for _, g := range n.raftGroups {
		st := g.rn.BasicStatus()
		gv := RaftGroupState{ID: g.id, Term: st.GetTerm(), Commit: st.GetCommit(), Applied: g.applied, Lead: st.Lead, Leader: st.RaftState == raft.StateLeader}
		if g.id != MetaGroup {
			gv.Features, gv.Incarnation = g.features, g.incarnation
		}
		for _, t := range g.tenants {
			gv.Scopes = append(gv.Scopes, ScopeState{Scope: g.scopeOf(t), Shard: snap(g.scopes[t]), OutboxStart: g.outboxStart[t]})
		}
		v.RaftGroups = append(v.RaftGroups, gv)
	}
	return v
}

// GroupProgress is one raft group's commit index and this node's applied
// index.
type GroupProgress struct {
	ID, Commit, Applied uint64
}

// AppendGroupProgress appends every raft group's progress to dst, ascending
// by id: ReplicaState's ID, Commit and Applied without copying the shards
// (a quiesce loop polls these every step).
func (n *Node) AppendGroupProgress(dst []GroupProgress) []GroupProgress {
	for _, g := range n.raftGroups {
		dst = append(dst, GroupProgress{ID: g.id, Commit: g.rn.BasicStatus().GetCommit(), Applied: g.applied})
	}
	return dst
}

// RaftGroups is the number of raft groups the node hosts (metadata included).
func (n *Node) RaftGroups() int { return len(n.raftGroups) }

// RaftGroupOf returns the raft group id of a stream shard, or 0 if unknown.
func (n *Node) RaftGroupOf(namespace, stream string, shard uint32) uint64 {
	return n.topo.raftGroupOf(namespace, stream, shard)
}

// Leader reports the leader node id that group's raft on this node
// believes in (0 = none known) and whether that is this node.
func (n *Node) Leader(group uint64) (lead uint64, isLeader bool) {
	g := n.raftGroup(group)
	if g == nil {
		return 0, false
	}
	st := g.rn.BasicStatus()
	return st.Lead, st.RaftState == raft.StateLeader
}

// TransferLeadership asks group's raft, on this node (which should lead
// it), to hand leadership to node to; it reports whether the group exists.
func (n *Node) TransferLeadership(group, to uint64) bool {
	g := n.raftGroup(group)
	if g == nil || n.failed != nil {
		return false
	}
	g.rn.TransferLeader(to)
	n.process()
	return true
}

// Campaign makes this node's raft for group start an election now (a
// forced promotion); it reports whether the group exists.
func (n *Node) Campaign(group uint64) bool {
	g := n.raftGroup(group)
	if g == nil || n.failed != nil {
		return false
	}
	if err := g.rn.Campaign(); err != nil {
		n.logger.Warningf("group %d: campaign: %v", group, err)
	}
	n.process()
	return true
}

// LeaderTerm reports group's raft term on this node and whether this node
// leads it (cheap: no replica state is copied).
func (n *Node) LeaderTerm(group uint64) (term uint64, isLeader bool) {
	g := n.raftGroup(group)
	if g == nil {
		return 0, false
	}
	st := g.rn.BasicStatus()
	return st.GetTerm(), st.RaftState == raft.StateLeader
}

// ScopeConsumerGroups is one scope's consumer groups.
type ScopeConsumerGroups struct {
	Scope  felix.Scope
	Groups []statemachine.GroupState
}

// ConsumerGroups lists every scope's consumer groups, by group id then
// tenant (cheap next to View: no log or state is copied).
func (n *Node) ConsumerGroups() []ScopeConsumerGroups {
	var out []ScopeConsumerGroups
	for _, g := range n.raftGroups {
		for _, t := range g.tenants {
			if gs := g.scopes[t].Groups(); len(gs) > 0 {
				out = append(out, ScopeConsumerGroups{Scope: g.scopeOf(t), Groups: gs})
			}
		}
	}
	return out
}
