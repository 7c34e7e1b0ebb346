package cluster

import (
	"slices"
	"testing"

	"github.com/felixsim/felixsim/sim/world"
)

// waitReplaced runs until the operator reports the membership settled and
// every broker runs; it fails the test after budgetNs.
func waitReplaced(t *testing.T, c *Cluster, budgetNs int64) {
	t.Helper()
	if err := c.World.RunUntil(func() (bool, string) {
		if c.Running() < c.Brokers() {
			return false, "a broker is down"
		}
		return c.MembershipSettled()
	}, budgetNs); err != nil {
		t.Fatalf("%v (failures %v)", err, c.Failures())
	}
}

// checkFullStrength asserts every group of every running broker has
// exactly want as voters and no learners, and that the three brokers run
// under want's identities.
func checkFullStrength(t *testing.T, c *Cluster, want []uint64) {
	t.Helper()
	for i := 0; i < c.Brokers(); i++ {
		n := c.Node(RaftID(i))
		if n == nil || !slices.Contains(want, n.ID()) {
			t.Fatalf("slot %d runs %v, want one of %v", i, n, want)
		}
		for g := uint64(1); g <= uint64(c.Groups()); g++ {
			voters, learners, ok := n.Membership(g)
			if !ok || !slices.Equal(voters, want) || len(learners) != 0 {
				t.Fatalf("broker %d group %d: voters %v learners %v, want voters %v and no learners", n.ID(), g, voters, learners, want)
			}
		}
	}
}

// TestDiskReplacedBrokerRejoins: a follower's disk is replaced while the
// workload goes on and the leader compacts past it. The slot boots under a
// new raft id (3 + RaftIDStride), joins every group (the metadata group
// too) as a learner by membership change, catches up by snapshot, is
// promoted, and the old id is gone from every group. The cluster then
// serves commits with all three brokers again: the new broker holds every
// acknowledged commit whole, its retained window equals the leader's, a
// commit needs it when another broker is down, and a restart rebuilds it
// from its own store.
func TestDiskReplacedBrokerRejoins(t *testing.T) {
	p, spec := NewProbe("probe")
	c, err := New(Config{Seed: 41, Extra: []world.NodeSpec{spec}, Streams: retentionStreams(1<<10, 0), CompactEntriesMin: 8, CompactKeepEntries: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	sc := acmeScope(0)
	group := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
	acks := commitN(t, c, p, sc, 0, 10, nil)
	lead, _ := c.Leader(group)
	slot := SimID(lead%3 + 1)
	old := c.IdentityOf(slot)
	c.World.ReplaceDisk(slot, secondNs/2)
	acks = commitN(t, c, p, sc, 10, 40, acks)
	waitReplaced(t, c, 20*secondNs)
	id := c.IdentityOf(slot)
	if id != old+RaftIDStride || SimID(id) != slot {
		t.Fatalf("slot %d runs identity %d after replacing %d, want %d", slot, id, old, old+RaftIDStride)
	}
	want := slices.Sorted(slices.Values([]uint64{RaftID((slot + 1) % 3), RaftID((slot + 2) % 3), id}))
	checkFullStrength(t, c, want)
	rp := c.Replacements()
	if len(rp) != 1 || rp[0].Old != old || rp[0].New != id || rp[0].DoneNs == 0 {
		t.Fatalf("replacements %+v, want %d -> %d done", rp, old, id)
	}
	// The new broker starts from a snapshot taken after it was added as a
	// learner, then applies its promotion; a survivor applies both steps.
	st := c.Node(id).Stats()
	if st.SnapshotsInstalled < uint64(c.Groups()) || st.MembershipChanges < uint64(c.Groups()) {
		t.Fatalf("new broker %d: %d snapshots installed, %d membership changes; want one of each per group at least (%d groups)",
			id, st.SnapshotsInstalled, st.MembershipChanges, c.Groups())
	}
	lead, _ = c.Leader(group)
	if st := c.Node(lead).Stats(); st.MembershipChanges < 2*uint64(c.Groups()) || st.SnapshotsSent == 0 {
		t.Fatalf("leader %d: %d membership changes, %d snapshots sent; want two changes per group (%d groups) and a snapshot",
			lead, st.MembershipChanges, st.SnapshotsSent, c.Groups())
	}
	c.World.RunFor(secondNs / 2)
	checkAcked(t, c, group, "acme", acks)
	checkRetainedEqual(t, c, group, lead, id)
	// A quorum now needs the new broker: with another one down, commits
	// still land, and the new broker restarted rebuilds from its store.
	other := want[0]
	if other == id || other == lead {
		other = want[1]
	}
	if other == id || other == lead {
		other = want[2]
	}
	c.World.Kill(SimID(other), false, 0)
	acks = commitN(t, c, p, sc, 40, 50, acks)
	c.World.Restart(SimID(other))
	c.World.Kill(slot, false, secondNs/10)
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	acks = commitN(t, c, p, sc, 50, 60, acks)
	c.World.RunFor(secondNs)
	checkAcked(t, c, group, "acme", acks)
	checkFullStrength(t, c, want)
	if f := c.Failures(); len(f) != 0 {
		t.Fatalf("brokers failed: %+v", f)
	}
}

// TestCorruptStoreBrokerReplaced: a broker whose store is corrupt in the
// middle (a flipped byte with committed transactions after it) refuses to
// boot; the operator replaces its disk and it rejoins under a new
// identity, so the cluster ends at full strength with every acknowledged
// commit on all three.
func TestCorruptStoreBrokerReplaced(t *testing.T) {
	c, p := newTestCluster(t, 14)
	sc := acmeScope(2)
	group := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
	acks := commitN(t, c, p, sc, 0, 20, nil)
	c.World.RunFor(secondNs)
	c.World.Kill(2, false, 0)
	for _, name := range c.World.Mem(2).Names() { // the store's files, unnamed here
		if err := c.World.Mem(2).CorruptByte(name, 200, 0x40); err != nil {
			t.Fatal(err)
		}
	}
	c.World.Restart(2)
	c.World.RunFor(secondNs / 10)
	acks = commitN(t, c, p, sc, 20, 30, acks)
	waitReplaced(t, c, 20*secondNs)
	rp := c.Replacements()
	if len(rp) != 1 || rp[0].Old != 3 || rp[0].New != 3+RaftIDStride || !rp[0].Corrupt {
		t.Fatalf("replacements %+v, want the corrupt broker 3 replaced by %d", rp, 3+RaftIDStride)
	}
	checkFullStrength(t, c, []uint64{1, 2, 3 + RaftIDStride})
	c.World.RunFor(secondNs)
	checkAcked(t, c, group, "acme", acks)
}
