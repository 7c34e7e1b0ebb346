package runner

import (
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/workload"
	"github.com/felixsim/felixsim/statemachine"
)

// ClusterScopesOf converts a cluster snapshot to the replica properties'
// view: per scope (ascending), one properties.ReplicaView per running
// broker that holds it, named "broker-<raft id>".
func ClusterScopesOf(s cluster.Snapshot) []properties.ClusterScope {
	byScope := map[properties.HistoryScope]*properties.ClusterScope{}
	var keys []properties.HistoryScope
	for ri := range s.Replicas {
		r := &s.Replicas[ri]
		for gi := range r.Groups {
			for si := range r.Groups[gi].Scopes {
				sv := &r.Groups[gi].Scopes[si]
				k := workload.HistoryScopeOf(sv.Scope)
				cs, ok := byScope[k]
				if !ok {
					cs = &properties.ClusterScope{Scope: k, FromStart: true}
					byScope[k] = cs
					keys = append(keys, k)
				}
				cs.FromStart = cs.FromStart && sv.Shard.FirstOffset == 0
				cs.Replicas = append(cs.Replicas, replicaViewOf(fmt.Sprintf("broker-%d", r.Node), &sv.Shard))
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Less(keys[j]) })
	out := make([]properties.ClusterScope, 0, len(keys))
	for _, k := range keys {
		out = append(out, *byScope[k])
	}
	return out
}

// replicaViewOf is one broker's shard as the replica properties read it:
// the retained log (events named by payload) and the state view.
func replicaViewOf(name string, sn *statemachine.Snapshot) properties.ReplicaView {
	v := properties.ReplicaView{Name: name, Log: make([]properties.ViewEntry, 0, len(sn.Entries)), State: make([]properties.ViewSlot, 0, len(sn.State))}
	for i := range sn.Entries {
		e := &sn.Entries[i]
		ve := properties.ViewEntry{Offset: e.Offset, HasEvent: e.Record.Event == statemachine.EventPublish || e.Record.Event == statemachine.EventEnqueue,
			Event: string(e.Record.Payload), Conditional: e.Record.Conditional, ExpectedOffset: e.Record.ExpectedOffset}
		for _, op := range e.Record.Ops {
			ve.Ops = append(ve.Ops, properties.ViewOp{Delete: op.Kind == statemachine.OpDelete, Key: op.Key, Value: string(op.Value)})
		}
		v.Log = append(v.Log, ve)
	}
	for _, kv := range sn.State {
		v.State = append(v.State, properties.ViewSlot{Key: kv.Key, Value: string(kv.Value), Version: kv.Version})
	}
	return v
}
