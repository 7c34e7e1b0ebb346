package properties

import "github.com/felixsim/felixsim/felix"

// GroupLease is one in-flight record of a consumer group: handed out, not
// yet acked, leased until ExpiryNs (the fetch's command time plus its
// lease).
type GroupLease struct {
	Offset   uint64
	ExpiryNs int64
}

// GroupView is one replica's state of one consumer group.
type GroupView struct {
	Name string
	// CommittedOffset is the group's position: every offset below it is
	// acked. DeliverNextOffset is the next offset never handed out.
	CommittedOffset   uint64
	DeliverNextOffset uint64
	// Leases are ascending by offset.
	Leases []GroupLease
}

// ScopeGroups is one scope's consumer groups on one replica, ascending by
// name.
type ScopeGroups struct {
	Scope  felix.Scope
	Groups []GroupView
}

// GroupReplica is every consumer group one broker holds, scopes ascending.
type GroupReplica struct {
	Broker string
	Scopes []ScopeGroups
}

// GroupPositionView is one consumer group's committed position in one scope.
type GroupPositionView struct {
	Scope           felix.Scope
	Group           string
	CommittedOffset uint64
}

// lessGroupPosition orders positions by scope, then group name.
func lessGroupPosition(a, b *GroupPositionView) bool {
	if a.Scope != b.Scope {
		return a.Scope.Less(b.Scope)
	}
	return a.Group < b.Group
}

// GroupKey names one consumer group of one scope.
type GroupKey struct {
	Scope felix.Scope
	Group string
}
