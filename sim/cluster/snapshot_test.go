package cluster

import (
	"reflect"
	"testing"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/wire"
)

// TestFollowerCatchesUpBySnapshot: while a follower is down, retention
// drops records (by count) and the leader compacts its raft log past the
// follower; the follower restarts, catches up by snapshot (sent and
// installed, counted), and its rebuilt shard equals the leader's: same
// window, same records, and for every key whose last write is retained the
// same value at the same version (the whole state, since state is the fold
// of the window). It then keeps serving commits, and a second restart
// rebuilds the installed state from the store alone.
func TestFollowerCatchesUpBySnapshot(t *testing.T) {
	p, spec := NewProbe("probe")
	c, err := New(Config{Seed: 31, Extra: []world.NodeSpec{spec}, Streams: retentionStreams(16, 0), CompactEntriesMin: 8, CompactKeepEntries: 4})
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
	down := lead%3 + 1
	c.World.Kill(SimID(down), false, 0)
	acks = commitN(t, c, p, sc, 10, 60, acks)
	c.World.RunFor(secondNs / 2)
	lead, _ = c.Leader(group)
	if st := c.Node(lead).Stats(); st.Compactions == 0 {
		t.Fatalf("leader %d never compacted its raft log: %+v", lead, st)
	}
	c.World.Restart(SimID(down))
	if err := c.World.RunUntil(func() (bool, string) {
		n := c.Node(down)
		return n != nil && n.Stats().SnapshotsInstalled > 0, "follower installed a snapshot"
	}, 5*secondNs); err != nil {
		t.Fatal(err)
	}
	c.World.RunFor(secondNs / 2)
	lead, _ = c.Leader(group)
	if st := c.Node(lead).Stats(); st.SnapshotsSent == 0 {
		t.Fatalf("leader %d sent no snapshot: %+v", lead, st)
	}
	checkRetainedEqual(t, c, group, lead, down)
	ref := scopeShards(t, c, group, "acme")[lead]
	if ref.FirstOffset == 0 || ref.NextOffset != 60 || len(ref.State) != 16 {
		t.Fatalf("leader window [%d, %d) with %d keys, want the last 16 of 60 records and their 16 keys", ref.FirstOffset, ref.NextOffset, len(ref.State))
	}
	commitN(t, c, p, sc, 60, 70, acks)
	c.World.RunFor(secondNs / 2)
	checkRetainedEqual(t, c, group, lead, down)
	c.World.Kill(SimID(down), false, secondNs/10)
	c.World.RunFor(secondNs)
	checkRetainedEqual(t, c, group, lead, down)
}

// checkRetainedEqual asserts broker b's shard of acme equals broker a's:
// the same window, the same records and the same state, key for key.
func checkRetainedEqual(t *testing.T, c *Cluster, group, a, b uint64) {
	t.Helper()
	shards := scopeShards(t, c, group, "acme")
	sa, sb := shards[a], shards[b]
	if sa == nil || sb == nil {
		t.Fatalf("brokers %d and %d must both hold acme: %v %v", a, b, sa != nil, sb != nil)
	}
	if sa.FirstOffset != sb.FirstOffset || sa.NextOffset != sb.NextOffset {
		t.Fatalf("broker %d retains [%d, %d), broker %d [%d, %d)", b, sb.FirstOffset, sb.NextOffset, a, sa.FirstOffset, sa.NextOffset)
	}
	for _, kv := range sa.State {
		if !stateHas(sb, kv.Key, string(kv.Value), kv.Version) {
			t.Fatalf("broker %d lacks %q = %q at version %d that broker %d holds", b, kv.Key, kv.Value, kv.Version, a)
		}
	}
	if len(sa.State) != len(sb.State) || sa.Digest() != sb.Digest() {
		t.Fatalf("brokers %d and %d differ (%d vs %d keys)", a, b, len(sa.State), len(sb.State))
	}
}

// TestSnapshotCarriesOutboxStart: a follower that catches up by snapshot
// after the relay confirmed (trimmed) a prefix of the outbox holds the
// leader's outbox start and no row the leader trimmed.
func TestSnapshotCarriesOutboxStart(t *testing.T) {
	p, spec := NewProbe("probe")
	c, err := New(Config{Seed: 31, Extra: []world.NodeSpec{spec}, CompactEntriesMin: 8, CompactKeepEntries: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	sc := acmeScope(0)
	group := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
	commitN(t, c, p, sc, 0, 10, nil)
	lead, _ := c.Leader(group)
	down := lead%3 + 1
	c.World.Kill(SimID(down), false, 0)
	commitN(t, c, p, sc, 10, 50, nil)
	if a, ok := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.OutboxTrim{ThroughOffset: 29}}).(*wire.Acked); !ok {
		t.Fatalf("outbox trim: %v", a)
	}
	commitN(t, c, p, sc, 50, 60, nil)
	c.World.Restart(SimID(down))
	if err := c.World.RunUntil(func() (bool, string) {
		n := c.Node(down)
		return n != nil && n.Stats().SnapshotsInstalled > 0, "the follower installed a snapshot"
	}, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	c.World.RunFor(secondNs)
	for _, r := range c.Snapshot().Replicas {
		for _, s := range r.RaftGroups[group-node.MetaGroup].Scopes {
			if s.Scope == sc && s.OutboxStart != 30 {
				t.Fatalf("broker %d: outbox start %d after the trim through 29, want 30", r.Node, s.OutboxStart)
			}
		}
		if want := int(60 - 30); r.OutboxRows != want {
			t.Fatalf("broker %d holds %d outbox rows, want %d (offsets 30..59)", r.Node, r.OutboxRows, want)
		}
	}
}

// TestScopeStatesAreTheSnapshots: with a broker down, ScopeStates of every
// scope is what Snapshot holds of it, broker by broker (held or not),
// and Outline is Snapshot without the shards' logs and state views: the
// same brokers, groups, scopes, windows and consumer groups.
func TestScopeStatesAreTheSnapshots(t *testing.T) {
	p, spec := NewProbe("probe")
	c, err := New(Config{Seed: 32, Extra: []world.NodeSpec{spec}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	commitN(t, c, p, acmeScope(0), 0, 5, nil)
	commitN(t, c, p, acmeScope(1), 0, 3, nil)
	c.World.RunFor(secondNs / 2)
	c.World.Kill(SimID(2), false, 0)
	full, outline := c.Snapshot(), c.Outline()
	if len(full.Replicas) != 2 || !reflect.DeepEqual(full.Down, outline.Down) || len(outline.Replicas) != 2 {
		t.Fatalf("%d replicas, down %v; outline %d, down %v", len(full.Replicas), full.Down, len(outline.Replicas), outline.Down)
	}
	records := 0
	for i, rs := range full.Replicas {
		for g, gs := range rs.RaftGroups {
			for k, sc := range gs.Scopes {
				records += len(sc.Shard.Entries)
				want := sc.Shard
				want.Entries, want.State = nil, nil
				if got := outline.Replicas[i].RaftGroups[g].Scopes[k]; got.Scope != sc.Scope || !reflect.DeepEqual(got.Shard, want) {
					t.Fatalf("outline of %s on broker %d: %+v, want %+v", sc.Scope, rs.Node, got.Shard, want)
				}
				bs := c.ScopeStates(sc.Scope)
				if len(bs) != 2 || bs[i].Node != rs.Node || !bs[i].Held || !reflect.DeepEqual(bs[i].State, sc) {
					t.Fatalf("ScopeStates(%s)[%d] = %+v, want broker %d's %+v", sc.Scope, i, bs, rs.Node, sc)
				}
			}
		}
	}
	if records < 16 {
		t.Fatalf("%d records in the snapshot: the comparison proves little", records)
	}
	if bs := c.ScopeStates(acmeScope(9)); len(bs) != 2 || bs[0].Held || bs[1].Held {
		t.Fatalf("ScopeStates of a scope nobody holds: %+v", bs)
	}
}
