package cluster

import (
	"fmt"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/wire"
)

// acked is one acknowledged commit: its offset and what it wrote.
type acked struct {
	offset uint64
	i      int
}

// commitN commits i = from..to-1 to sc: event "e<i>", put "k<i>" = "v<i>".
func commitN(t *testing.T, c *Cluster, p *Probe, sc felix.Scope, from, to int, out []acked) []acked {
	t.Helper()
	for i := from; i < to; i++ {
		ans := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.Commit{Record: felix.Record{
			Event: felix.EventPublish, Payload: []byte(fmt.Sprintf("e%d", i)),
			Ops: []felix.StateOp{{Kind: felix.OpPut, Key: fmt.Sprintf("k%d", i), Value: []byte(fmt.Sprintf("v%d", i))}}}}})
		if w, ok := ans.(*wire.Written); ok {
			out = append(out, acked{offset: w.Offset, i: i})
		} else {
			t.Fatalf("commit %d: %v", i, ans)
		}
	}
	return out
}

// checkAcked asserts every acknowledged commit is on every running broker
// at its offset, event and state together, and that every replica of the
// group holds the same log.
func checkAcked(t *testing.T, c *Cluster, group uint64, tenant string, acks []acked) {
	t.Helper()
	snap := c.Snapshot()
	if len(snap.Replicas) != c.Brokers() {
		t.Fatalf("only %d of %d brokers running (down: %v)", len(snap.Replicas), c.Brokers(), snap.Down)
	}
	var ref *statemachine.Snapshot
	for _, r := range snap.Replicas {
		gv := r.RaftGroups[group-1]
		var sh *statemachine.Snapshot
		for i := range gv.Scopes {
			if gv.Scopes[i].Scope.Tenant == tenant {
				sh = &gv.Scopes[i].Shard
			}
		}
		if sh == nil {
			t.Fatalf("broker %d has no scope for %s in group %d", r.Node, tenant, group)
		}
		for _, a := range acks {
			if a.offset < sh.FirstOffset || a.offset >= sh.NextOffset {
				t.Fatalf("broker %d: acknowledged commit %d at offset %d outside [%d, %d)", r.Node, a.i, a.offset, sh.FirstOffset, sh.NextOffset)
			}
			e := sh.Entries[a.offset-sh.FirstOffset]
			if string(e.Record.Payload) != fmt.Sprintf("e%d", a.i) {
				t.Fatalf("broker %d: offset %d holds event %q, want e%d", r.Node, a.offset, e.Record.Payload, a.i)
			}
			if !stateHas(sh, fmt.Sprintf("k%d", a.i), fmt.Sprintf("v%d", a.i), a.offset) {
				t.Fatalf("broker %d: state k%d is not v%d at version %d", r.Node, a.i, a.i, a.offset)
			}
		}
		if ref == nil {
			ref = sh
		} else if ref.Digest() != sh.Digest() {
			t.Fatalf("broker %d's shard differs from broker %d's (next %d vs %d)", r.Node, snap.Replicas[0].Node, sh.NextOffset, ref.NextOffset)
		}
	}
}

// stateHas reports whether the snapshot's state maps key to value at version.
func stateHas(sh *statemachine.Snapshot, key, value string, version uint64) bool {
	for _, kv := range sh.State {
		if kv.Key == key {
			return string(kv.Value) == value && kv.Version == version
		}
	}
	return false
}

// TestFailoverThenSecondPromotion kills a shard's leader mid-workload, then
// kills the leader promoted in its place, and checks that every
// acknowledged commit is still there, event and state at the same offset,
// on every broker.
func TestFailoverThenSecondPromotion(t *testing.T) {
	c, p := newTestCluster(t, 11)
	sc := acmeScope(3)
	group := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
	acks := commitN(t, c, p, sc, 0, 20, nil)
	first := c.Failover(group, secondNs)
	if first == 0 {
		t.Fatal("no leader to fail over")
	}
	acks = commitN(t, c, p, sc, 20, 40, acks)
	if err := c.World.RunUntil(func() (bool, string) { return c.Node(first) != nil, "first leader back" }, 5*secondNs); err != nil {
		t.Fatal(err)
	}
	second := c.Failover(group, secondNs)
	if second == 0 || second == first {
		t.Fatalf("second promotion: killed %d after %d", second, first)
	}
	acks = commitN(t, c, p, sc, 40, 60, acks)
	if err := c.World.RunUntil(func() (bool, string) { return c.Node(second) != nil, "second leader back" }, 5*secondNs); err != nil {
		t.Fatal(err)
	}
	c.World.RunFor(2 * secondNs)
	checkAcked(t, c, group, "acme", acks)
}

// TestLeadershipTransfer hands a shard's leadership to another broker
// mid-workload; nothing acknowledged is lost.
func TestLeadershipTransfer(t *testing.T) {
	c, p := newTestCluster(t, 12)
	sc := acmeScope(0)
	group := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
	acks := commitN(t, c, p, sc, 0, 10, nil)
	lead, _ := c.Leader(group)
	to := lead%uint64(c.Brokers()) + 1
	if !c.TransferLeadership(group, to) {
		t.Fatal("no leader to transfer from")
	}
	if err := c.World.RunUntil(func() (bool, string) { l, _ := c.Leader(group); return l == to, "transfer" }, 5*secondNs); err != nil {
		t.Fatal(err)
	}
	acks = commitN(t, c, p, sc, 10, 20, acks)
	c.World.RunFor(secondNs)
	checkAcked(t, c, group, "acme", acks)
}

// TestWholeClusterRestart kills every broker at once (unsynced writes
// lost) and restarts them: each rebuilds raft state and shard state from
// its store alone, and every acknowledged commit is still there.
func TestWholeClusterRestart(t *testing.T) {
	c, p := newTestCluster(t, 13)
	sc := acmeScope(1)
	group := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
	acks := commitN(t, c, p, sc, 0, 15, nil)
	for i := 0; i < c.Brokers(); i++ {
		c.World.Kill(i, true, secondNs/2)
	}
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	// A broker that lost its last acknowledged entry with its unsynced
	// writes gets it back from the new leader; give the leader a second
	// to send it, as the other tests here do before checking.
	c.World.RunFor(secondNs)
	checkAcked(t, c, group, "acme", acks)
	acks = commitN(t, c, p, sc, 15, 25, acks)
	c.World.RunFor(secondNs)
	checkAcked(t, c, group, "acme", acks)
	if f := c.Failures(); len(f) != 0 {
		t.Fatalf("brokers failed: %+v", f)
	}
}
