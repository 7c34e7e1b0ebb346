package runner

import (
	"sort"
	"testing"

	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/faultplan"
)

// relayCrashPlan kills the relay (the world's last node) every 700 ms
// between 1 s and 9 s, alternating lost and torn unsynced writes, and
// partitions it from broker 1 for a while: the seeds' crash windows
// (after delivering, before persisting; while down) come up again and
// again.
func relayCrashPlan(o Options) *faultplan.Plan {
	relayNode := WorldNodes(o) - 1
	p := &faultplan.Plan{Seed: o.Seed, Nodes: WorldNodes(o), DurationNs: o.DurationNs}
	for i, at := 0, int64(1e9); at < 9e9; i, at = i+1, at+7e8 {
		p.Faults = append(p.Faults, faultplan.FaultEvent{AtNs: at, Kind: faultplan.FaultKill, Node: relayNode, Torn: i%2 == 1, DurNs: 2e8 + int64(i%3)*1e8})
	}
	p.Faults = append(p.Faults,
		faultplan.FaultEvent{AtNs: 4e9, Kind: faultplan.FaultPartition, Node: relayNode, Peer: 0},
		faultplan.FaultEvent{AtNs: 6e9, Kind: faultplan.FaultHealNet})
	sort.SliceStable(p.Faults, func(i, j int) bool { return p.Faults[i].AtNs < p.Faults[j].AtNs })
	return p
}

// TestRelayCrashesDeliverEverything: a relay killed a dozen times under
// the workload still hands the sink every committed event in order per
// scope, redelivering after crashes (at least once), with nothing
// uncommitted and every offset matching its record; every delivered entry
// is trimmed from every replica's outbox by the end.
func TestRelayCrashesDeliverEverything(t *testing.T) {
	o := Options{Seed: 5, DurationNs: 10e9, FaultGapMeanNs: 1e9}
	o.Plan = relayCrashPlan(o)
	var r *run
	res, err := runWith(o, func(b *run) { r = b })
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() {
		t.Fatalf("relay crashes:\n%s", res.Summary())
	}
	st := r.relay.Stats()
	redelivered := r.relay.Sink().Redeliveries()
	t.Logf("relay: %+v, %d deliveries, %d of them again", st, r.relay.Sink().Len(), redelivered)
	if st.Boots < 10 || redelivered == 0 || st.Trims == 0 {
		t.Fatalf("relay stats %+v: want at least 10 boots, some redeliveries and trims", st)
	}
	for i := 0; i < r.c.Brokers(); i++ {
		n := r.c.Node(cluster.RaftID(i))
		if n == nil {
			t.Fatalf("broker %d not running at the end", cluster.RaftID(i))
		}
		rs := n.ReplicaState()
		if rs.OutboxRows != 0 {
			t.Errorf("broker %d still holds %d outbox rows after the relay drained", rs.Node, rs.OutboxRows)
		}
		for _, g := range rs.RaftGroups {
			for _, sc := range g.Scopes {
				if sc.OutboxStart != sc.Shard.NextOffset {
					t.Errorf("broker %d scope %s: outbox starts at %d, its log ends at %d", rs.Node, sc.Scope, sc.OutboxStart, sc.Shard.NextOffset)
				}
			}
		}
	}
}
