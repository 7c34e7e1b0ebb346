package runner

import (
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
)

// CheckCluster runs, at this instant, every property a run's final check
// runs that needs no workload or relay: the stored raft logs, routing,
// the replica properties over a snapshot and every history property,
// linearizability and the client-contract checks over h (a caller's own
// history, such as a scenario's).
// shardCount is the topology the routing check reads; steps, when not
// nil, observed every broker since boot and gives linearizability the
// retention steps (nil: retention is not modelled). ledger is what the
// brokers' trace showed of h's requests (LedgerSink.Ledger); nil leaves
// the checks that match landings to requests by id unjudged.
func CheckCluster(c *cluster.Cluster, h *properties.History, shardCount func(namespace, stream string) (uint32, bool), steps *RetentionSteps, ledger *properties.Ledger) []Violation {
	logs := ReplicaLogsOf(c.Snapshot())
	out := storedLogViolations(c)
	add := func(name properties.InvariantName, err error) {
		if err != nil {
			out = append(out, violationOf(name, err))
		}
	}
	add(properties.InvariantRoutedToOwningShard, properties.HistoryWritesOnOwningShard(h, logs, shardCount))
	out = append(out, ReplicaViolations(properties.ClusterScopes(logs), h)...)
	ref := properties.LongestLogs(logs)
	if steps != nil {
		steps.drops.attach(&ref)
	}
	for _, hc := range historyChecks {
		add(hc.name, hc.fn(h, logs, &ref, ledger))
	}
	lin := properties.HistoryLinearizable(withoutLiveStreams(h, liveStreams(c.Config().Streams)), &ref, 0)
	add(properties.InvariantLinearizable, lin.Err())
	contract, _ := ContractViolations(h, nil, ledger)
	out = append(out, contract...)
	return append(out, ephemeralViolations(c.Config().Streams, h, logs)...)
}
