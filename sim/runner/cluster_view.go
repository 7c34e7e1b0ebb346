package runner

import (
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/workload"
)

// ReplicaLogsOf converts a cluster snapshot to properties' view, once for
// every check: per running broker (in snapshot order), every stream
// scope's replica, scopes ascending, each named "broker-<raft id>".
func ReplicaLogsOf(s cluster.Snapshot) []properties.ReplicaLog {
	out := make([]properties.ReplicaLog, 0, len(s.Replicas))
	for i := range s.Replicas {
		out = append(out, replicaLogOf(&s.Replicas[i]))
	}
	return out
}

func replicaLogOf(v *node.ReplicaState) properties.ReplicaLog {
	name := fmt.Sprintf("broker-%d", v.Node)
	rl := properties.ReplicaLog{Node: v.Node}
	for gi := range v.RaftGroups {
		for si := range v.RaftGroups[gi].Scopes {
			sv := &v.RaftGroups[gi].Scopes[si]
			rl.Scopes = append(rl.Scopes, workload.ReplicaViewOf(name, sv.Scope, &sv.Shard))
		}
	}
	sort.Slice(rl.Scopes, func(i, j int) bool { return rl.Scopes[i].Scope.Less(rl.Scopes[j].Scope) })
	return rl
}

// ClusterScopesOf converts a cluster snapshot to the cluster checks'
// grouping: per scope (ascending), one replica per running broker that
// holds it (properties.ClusterScopes over ReplicaLogsOf).
func ClusterScopesOf(s cluster.Snapshot) []properties.ClusterScope {
	return properties.ClusterScopes(ReplicaLogsOf(s))
}
