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
	facts := &historyFacts{shardCount: shardCount, live: liveStreams(c.Config().Streams)}
	for i := range h.Ops {
		facts.latestNs = max(facts.latestNs, h.Ops[i].InvokeNs, h.Ops[i].CompleteNs)
	}
	p := &historyPart{h: h, logs: logs, ref: properties.LongestLogs(logs), ledger: ledger, facts: facts}
	if steps != nil {
		steps.drops.attach(&p.ref)
	}
	v := p.judge()
	add(properties.InvariantRoutedToOwningShard, v.route)
	out = append(out, foldReplicaFindings(v.replica)...)
	for i, hc := range historyChecks {
		add(hc.name, v.history[i])
	}
	add(properties.InvariantLinearizable, v.lin.Err())
	out = append(out, v.contract.violations()...)
	return append(out, ephemeralViolations(p.judgeEphemeral())...)
}
