package cluster

import (
	"fmt"
	"testing"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/statemachine"
)

// retentionStreams is one stream of one shard that keeps at most lenMax
// records and none older than ageNs.
func retentionStreams(lenMax int, ageNs int64) []node.StreamSpec {
	s := DefaultStreams(1)
	s[0].RetainedLenMax, s[0].ReplayWindowLenMax, s[0].RetainedAgeMaxNs = lenMax, lenMax, ageNs
	return s
}

func newRetentionCluster(t *testing.T, seed uint64, streams []node.StreamSpec) (*Cluster, *Probe) {
	t.Helper()
	p, spec := NewProbe("probe")
	c, err := New(Config{Seed: seed, Extra: []world.NodeSpec{spec}, Streams: streams})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	return c, p
}

// scopeShards returns every running broker's shard of tenant in group.
func scopeShards(t *testing.T, c *Cluster, group uint64, tenant string) map[uint64]*statemachine.Snapshot {
	t.Helper()
	out := map[uint64]*statemachine.Snapshot{}
	for _, r := range c.Snapshot().Replicas {
		for _, sc := range r.RaftGroups[group-1].Scopes {
			if sc.Scope.Tenant == tenant {
				sh := sc.Shard
				out[r.Node] = &sh
			}
		}
	}
	return out
}

// TestRetentionByAgeThroughRaft: records older than the age limit are
// dropped on every replica at the same log position, keys they wrote last
// with them, so every replica holds the same window and state; a key
// rewritten since stays.
func TestRetentionByAgeThroughRaft(t *testing.T) {
	c, p := newRetentionCluster(t, 21, retentionStreams(1<<10, 2*secondNs))
	sc := acmeScope(0)
	group := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
	acks := commitN(t, c, p, sc, 0, 10, nil)
	c.World.RunFor(secondNs)
	acks = commitN(t, c, p, sc, 10, 20, acks)
	c.World.RunFor(secondNs + secondNs/2) // the first ten are 2.5 s old, the next ten 1.5 s
	shards := scopeShards(t, c, group, "acme")
	if len(shards) != 3 {
		t.Fatalf("%d brokers hold the scope, want 3", len(shards))
	}
	var digest uint64
	for id, sh := range shards {
		if sh.FirstOffset != acks[10].offset {
			t.Fatalf("broker %d retains from %d, want %d (the first record younger than 2 s)", id, sh.FirstOffset, acks[10].offset)
		}
		if len(sh.State) != 10 || sh.State[0].Key != "k10" {
			t.Fatalf("broker %d state %d keys from %q, want k10..k19 (k0..k9 were last written by dropped records)", id, len(sh.State), sh.State[0].Key)
		}
		if digest != 0 && sh.Digest() != digest {
			t.Fatalf("broker %d's shard differs from another broker's", id)
		}
		digest = sh.Digest()
	}
	// A broker restarted now rebuilds from its store's retained window: it
	// must come back with the same shard, byte for byte.
	lead, _ := c.Leader(group)
	follower := lead%3 + 1
	c.World.Kill(SimID(follower), false, secondNs/10)
	c.World.RunFor(3 * secondNs / 10) // the second ten are 1.8 s old: still retained
	if got := scopeShards(t, c, group, "acme")[follower]; got == nil || got.Digest() != digest {
		t.Fatalf("broker %d rebuilt a different shard after its restart: %+v", follower, got)
	}
	c.World.RunFor(2 * secondNs)
	for id, sh := range scopeShards(t, c, group, "acme") {
		if sh.FirstOffset != sh.NextOffset || len(sh.State) != 0 {
			t.Fatalf("broker %d retains [%d, %d) with %d keys after every record aged out", id, sh.FirstOffset, sh.NextOffset, len(sh.State))
		}
	}
}

// TestRetentionByCountSurvivesRestart: a small window drops records at the
// same position everywhere; a restarted broker rebuilds the same shard.
func TestRetentionByCountSurvivesRestart(t *testing.T) {
	c, p := newRetentionCluster(t, 22, retentionStreams(8, 0))
	sc := acmeScope(0)
	group := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
	commitN(t, c, p, sc, 0, 30, nil)
	c.World.RunFor(secondNs / 2)
	before := scopeShards(t, c, group, "acme")
	for id, sh := range before {
		if sh.NextOffset-sh.FirstOffset != 8 || len(sh.State) != 8 || sh.State[0].Key != "k22" {
			t.Fatalf("broker %d retains [%d, %d) with %d keys, want the last 8 records and keys k22..k29", id, sh.FirstOffset, sh.NextOffset, len(sh.State))
		}
	}
	for id := uint64(1); id <= 3; id++ {
		c.World.Kill(SimID(id), false, secondNs/4)
		c.World.RunFor(secondNs)
		got := scopeShards(t, c, group, "acme")[id]
		if got == nil || got.Digest() != before[id].Digest() {
			t.Fatal(fmt.Sprintf("broker %d rebuilt a different shard after its restart", id))
		}
	}
}
