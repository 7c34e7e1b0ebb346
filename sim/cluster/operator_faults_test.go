package cluster

import (
	"slices"
	"testing"
)

// TestSetVoterDemotesAndPromotes: the operator demotes a broker to a
// learner in every group, refuses a second demotion (it would leave one
// voter), the cluster keeps committing with two voters, and the broker is
// a voter again once promoted back; every replica ends with the same log.
func TestSetVoterDemotesAndPromotes(t *testing.T) {
	c, p := newRetentionCluster(t, 41, DefaultStreams(1))
	sc := acmeScope(0)
	group := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
	acks := commitN(t, c, p, sc, 0, 10, nil)
	settle := func(what string) {
		t.Helper()
		if err := c.World.RunUntil(c.MembershipSettled, 10*secondNs); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	if !c.SetVoter(SimID(2), false) {
		t.Fatal("demoting broker 2 changed nothing")
	}
	if c.SetVoter(SimID(3), false) {
		t.Fatal("a second demotion was accepted: it leaves one voter")
	}
	settle("demotion")
	for g := uint64(1); g <= uint64(c.Groups()); g++ {
		lead, _ := c.Leader(g)
		voters, learners, _ := c.Node(lead).Membership(g)
		if slices.Contains(voters, 2) || !slices.Contains(learners, 2) || len(voters) != 2 {
			t.Fatalf("group %d after the demotion: voters %v learners %v, want broker 2 a learner", g, voters, learners)
		}
	}
	acks = commitN(t, c, p, sc, 10, 20, acks)
	if !c.SetVoter(SimID(2), true) {
		t.Fatal("promoting broker 2 back changed nothing")
	}
	settle("promotion")
	lead, _ := c.Leader(group)
	if voters, learners, _ := c.Node(lead).Membership(group); len(voters) != 3 || len(learners) != 0 {
		t.Fatalf("after the promotion: voters %v learners %v, want three voters", voters, learners)
	}
	acks = commitN(t, c, p, sc, 20, 25, acks)
	c.World.RunFor(secondNs / 2)
	checkAcked(t, c, group, "acme", acks)
	if c.MembershipChanges() != 2 {
		t.Fatalf("%d membership changes counted, want 2", c.MembershipChanges())
	}
}

// TestOperatorRetainKeepsNewest: the operator's retention step leaves
// every replica the same newest records (and their keys), at the same log
// position, while the outbox keeps every undelivered event; a step that
// has nothing to drop proposes nothing.
func TestOperatorRetainKeepsNewest(t *testing.T) {
	c, p := newRetentionCluster(t, 42, DefaultStreams(1))
	sc := acmeScope(0)
	group := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
	commitN(t, c, p, sc, 0, 20, nil)
	if !c.Retain(5) {
		t.Fatal("retain 5 of 20 proposed nothing")
	}
	c.World.RunFor(secondNs / 2)
	for id, sh := range scopeShards(t, c, group, "acme") {
		if sh.FirstOffset != 15 || sh.NextOffset != 20 || len(sh.State) != 5 || sh.State[0].Key != "k15" {
			t.Fatalf("broker %d retains [%d, %d) with %d keys, want [15, 20) and k15..k19", id, sh.FirstOffset, sh.NextOffset, len(sh.State))
		}
	}
	checkOutboxes(t, c, 0, 20)
	if c.Retain(5) {
		t.Fatal("a second retain 5 proposed a drop: the scopes hold 5 records")
	}
}
