package cluster

import (
	"testing"

	"github.com/felixsim/felixsim/sim/faultplan"
)

// TestLeaderRoleFaultHitsTheLeader aims a kill at the plan role "leader":
// when it fires it must kill the broker leading the lowest shard group at
// that moment, whichever broker that is, and the group must fail over.
func TestLeaderRoleFaultHitsTheLeader(t *testing.T) {
	for _, seed := range []uint64{3, 4, 5} {
		c, _ := newTestCluster(t, seed)
		lead, ok := c.Leader(2)
		if !ok {
			t.Fatalf("seed %d: shard group 2 has no leader after AllLed", seed)
		}
		if id, ok := c.resolveRole(RoleLeader); !ok || id != SimID(lead) {
			t.Fatalf("seed %d: resolveRole(leader) = %d, %v; want sim id %d", seed, id, ok, SimID(lead))
		}
		if _, ok := c.resolveRole("follower"); ok {
			t.Fatalf("seed %d: an unknown role resolved", seed)
		}
		// Node names the broker that does NOT lead, so only the role can
		// make the kill hit the leader.
		other := (SimID(lead) + 1) % c.Brokers()
		at := c.World.NowNs() + 1_000_000
		plan := &faultplan.Plan{Seed: seed, Nodes: c.Brokers() + 1, DurationNs: at + secondNs,
			Faults: []faultplan.FaultEvent{{AtNs: at, Kind: faultplan.FaultKill, Node: other, Role: RoleLeader}}}
		if err := faultplan.ApplyPlan(c.World, plan); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		c.World.RunFor(2_000_000)
		if c.Node(lead) != nil {
			t.Fatalf("seed %d: the leader (broker %d) still runs after a kill aimed at role leader", seed, lead)
		}
		if c.Node(RaftID(other)) == nil {
			t.Fatalf("seed %d: broker %d, named by Node but not the leader, was killed", seed, RaftID(other))
		}
		err := c.World.RunUntil(func() (bool, string) {
			l, ok := c.Leader(2)
			return ok && l != lead, "shard group 2 fails over"
		}, 5*secondNs)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		c.Close()
	}
}
