package node

import (
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
)

// GroupPosition is one consumer group's committed position in one scope.
type GroupPosition struct {
	Scope           felix.Scope
	Group           string
	CommittedOffset uint64
}

// AppendGroupPositions appends the committed position of every consumer
// group in raft group id's scopes to dst (scopes by tenant, groups by
// name), without copying leases; nothing for an unknown id or the
// metadata group.
func (n *Node) AppendGroupPositions(dst []GroupPosition, id uint64) []GroupPosition {
	g := n.raftGroup(id)
	if g == nil || g.id == MetaGroup {
		return dst
	}
	var buf [4]statemachine.GroupPosition
	for _, t := range g.tenants {
		for _, p := range g.scopes[t].AppendGroupPositions(buf[:0]) {
			dst = append(dst, GroupPosition{Scope: g.scopeOf(t), Group: p.Name, CommittedOffset: p.CommittedOffset})
		}
	}
	return dst
}

// GroupProgress returns consumer group name's committed position in scope
// and the scope's next offset; found is false when this node holds no
// such scope or the group has never fetched there.
func (n *Node) GroupProgress(scope felix.Scope, name string) (committed, next uint64, found bool) {
	g := n.raftGroup(n.topo.raftGroupOf(scope.Namespace, scope.Stream, scope.Shard))
	if g == nil || g.id == MetaGroup {
		return 0, 0, false
	}
	s := g.lookup(scope.Tenant)
	if s == nil {
		return 0, 0, false
	}
	committed, found = s.GroupCommitted(name)
	return committed, s.NextOffset(), found
}

// ScopeWindow returns scope's retained window on this node (first
// retained offset and tail) and its consumer groups' committed positions
// appended to dst, ascending by name; found is false when the node holds
// no such scope.
func (n *Node) ScopeWindow(scope felix.Scope, dst []GroupPosition) (first, next uint64, groups []GroupPosition, found bool) {
	g := n.raftGroup(n.topo.raftGroupOf(scope.Namespace, scope.Stream, scope.Shard))
	if g == nil || g.id == MetaGroup {
		return 0, 0, dst, false
	}
	s := g.lookup(scope.Tenant)
	if s == nil {
		return 0, 0, dst, false
	}
	var buf [4]statemachine.GroupPosition
	for _, p := range s.AppendGroupPositions(buf[:0]) {
		dst = append(dst, GroupPosition{Scope: scope, Group: p.Name, CommittedOffset: p.CommittedOffset})
	}
	return s.FirstOffset(), s.NextOffset(), dst, true
}
