package runner

import (
	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
)

// GroupRecordsRetained is checked three ways: in-run on the broker that
// applied each retention step (its scope's groups against the new window:
// a group stranded for a moment and rescued later, say by a stream's
// re-creation, is still seen), on every replica after the drain, and by
// the drain itself, for which a group's fetch refused as below the window
// is that violation, never a group skipped.

// groupsDropped checks GroupRecordsRetained on the broker that just
// applied retention step d, in d's scope (firstReplica: the first to
// apply it).
func (ir *inRun) groupsDropped(d *node.DroppedPrefix, firstReplica bool) {
	n := ir.c.Node(d.Node)
	if n == nil {
		return
	}
	first, next, gs, ok := n.ScopeWindow(d.Scope, ir.windowBuf[:0])
	ir.windowBuf = gs[:0]
	if !ok || len(gs) == 0 {
		return
	}
	if firstReplica {
		ir.countNearGroup(d, gs)
	}
	w := properties.ScopeWindow{Scope: d.Scope, FirstOffset: first, NextOffset: next, Groups: ir.windowViews[:0]}
	for _, p := range gs {
		w.Groups = append(w.Groups, properties.GroupPositionView{Scope: p.Scope, Group: p.Group, CommittedOffset: p.CommittedOffset})
	}
	ir.windowViews = w.Groups[:0]
	ir.note(properties.InvariantGroupRecordsRetained, properties.GroupsWithinWindow(ir.name(d.Node), []properties.ScopeWindow{w}))
}

// countNearGroup counts a retention step that dropped d.Scope's records
// up to within coverage.RetentionNearGroupRecords of the committed
// position of one of the scope's consumer groups gs, or past it. The
// administered stream's emptying at a re-creation is no retention step
// and is not counted.
func (ir *inRun) countNearGroup(d *node.DroppedPrefix, gs []node.GroupPosition) {
	if ir.counts == nil || d.Scope.Stream == AdminStream {
		return
	}
	for _, p := range gs {
		if d.Below+coverage.RetentionNearGroupRecords >= p.CommittedOffset {
			ir.counts.Add(coverage.RetentionAtGroupPosition)
			return
		}
	}
}

// groupWindowViolations checks GroupRecordsRetained on every replica of
// a snapshot, reporting the first broker that breaks it.
func groupWindowViolations(s cluster.Snapshot) []Violation {
	for i := range s.Replicas {
		v := &s.Replicas[i]
		if err := properties.GroupsWithinWindow(brokerName(v.Node), scopeWindowsOf(v)); err != nil {
			return []Violation{violationOf(properties.InvariantGroupRecordsRetained, err)}
		}
	}
	return nil
}

// scopeWindowsOf is every scope of a replica that holds a consumer group,
// with its window and its groups' positions.
func scopeWindowsOf(v *node.ReplicaState) []properties.ScopeWindow {
	var out []properties.ScopeWindow
	for gi := range v.RaftGroups {
		for si := range v.RaftGroups[gi].Scopes {
			sc := &v.RaftGroups[gi].Scopes[si]
			if len(sc.Shard.Groups) == 0 {
				continue
			}
			w := properties.ScopeWindow{Scope: sc.Scope, FirstOffset: sc.Shard.FirstOffset, NextOffset: sc.Shard.NextOffset}
			for _, g := range sc.Shard.Groups {
				w.Groups = append(w.Groups, properties.GroupPositionView{Scope: sc.Scope, Group: g.Name, CommittedOffset: g.CommittedOffset})
			}
			out = append(out, w)
		}
	}
	return out
}
