package workload

import (
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/statemachine"
)

// HistoryEntries copies entries read from a broker as a history keeps
// them (bytes cloned, no condition): for operations the harness records
// beside the workload's, such as the runner's consumer-group drain.
func HistoryEntries(es []felix.Entry) []felix.Entry { return historyEntriesOf(es) }

// ScopeGroupsOf converts one replica's consumer groups of scope to the
// view the group checks read: the one conversion of a statemachine group
// to properties' form.
func ScopeGroupsOf(scope felix.Scope, gs []statemachine.GroupState) properties.ScopeGroups {
	sg := properties.ScopeGroups{Scope: scope, Groups: make([]properties.GroupView, 0, len(gs))}
	for i := range gs {
		sg.Groups = append(sg.Groups, GroupViewOf(&gs[i]))
	}
	return sg
}

// GroupViewOf converts one consumer group (ScopeGroupsOf's conversion).
func GroupViewOf(g *statemachine.GroupState) properties.GroupView {
	gv := properties.GroupView{Name: g.Name, CommittedOffset: g.CommittedOffset, DeliverNextOffset: g.DeliverNextOffset}
	for _, l := range g.Leases {
		gv.Leases = append(gv.Leases, properties.GroupLease{Offset: l.Offset, ExpiryNs: l.ExpiryNs})
	}
	return gv
}
